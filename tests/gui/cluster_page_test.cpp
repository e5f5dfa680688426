// The Cluster page and a race measured through the cluster, on a real cluster: a redis-server with
// a password on a Unix socket and real replay agents (`opevo agent`), started by the integration
// tests' fixture. No part of Redis is mocked.
#include "ui/pages/cluster_page.h"

#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QElapsedTimer>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QTabWidget>
#include <fstream>
#include <memory>

#include "gui_test_support.h"
#include "integration/cluster_fixture.h"
#include "io/replay_dataset.h"
#include "ui/controller/cluster_controller.h"
#include "ui/controller/engine_controller.h"
#include "ui/main_window.h"
#include "ui/models/cluster_agent_model.h"
#include "ui/models/cluster_device_model.h"
#include "ui/models/cluster_queue_model.h"
#include "ui/pages/runs_page.h"
#include "ui/widgets/algorithm_panel.h"
#include "ui/widgets/cluster_connect_bar.h"
#include "ui/widgets/cluster_race_option.h"
#include "ui/widgets/dataset_picker.h"
#include "ui/widgets/race_setup_panel.h"

namespace opevo::ui {
namespace {

namespace ct = opevo::test;  // the cluster fixture's helpers, beside ui::test's
using ct::ClusterFixture;
using test::waitUntil;

// Fast enough that a test sees changes within a fraction of a second.
constexpr int kPollMs = 200;

// The page's models, checked by QAbstractItemModelTester while it lives.
class ModelTesters {
 public:
  explicit ModelTesters(const ClusterPage& page) {
    for (QAbstractItemModel* m : {static_cast<QAbstractItemModel*>(page.agentModel()),
                                  static_cast<QAbstractItemModel*>(page.deviceModel()),
                                  static_cast<QAbstractItemModel*>(page.queueModel())})
      m_testers.push_back(std::make_unique<QAbstractItemModelTester>(
          m, QAbstractItemModelTester::FailureReportingMode::Warning));
  }
  ~ModelTesters() {
    m_testers.clear();
    EXPECT_TRUE(m_warnings.messages().isEmpty()) << m_warnings.messages().join('\n').toStdString();
  }

 private:
  test::ModelTestFailures m_warnings;
  std::vector<std::unique_ptr<QAbstractItemModelTester>> m_testers;
};

void connectPage(ClusterPage& page, const ClusterFixture& cluster,
                 const QString& passwordFile = {}) {
  page.setPollInterval(kPollMs);
  page.connectBar()->setAddress(QString::fromStdString(cluster.address()));
  page.connectBar()->setPasswordFile(passwordFile);
  ASSERT_TRUE(page.connectToCluster());
}

QVariant agentValue(const ClusterPage& page, const QString& agent, int column) {
  const ClusterAgentModel* m = page.agentModel();
  const int row = m->rowOf(agent);
  return row < 0 ? QVariant() : m->data(m->index(row, column), ClusterAgentModel::RawRole);
}

bool agentIs(const ClusterPage& page, const QString& agent, const char* state) {
  return agentValue(page, agent, ClusterAgentModel::StateColumn).toString() == QLatin1String(state);
}

int deviceRowOf(const ClusterPage& page, const QString& agent) {
  const ClusterDeviceModel* m = page.deviceModel();
  for (int r = 0; r < m->rowCount(); ++r)
    if (m->index(r, ClusterDeviceModel::AgentColumn).data().toString() == agent) return r;
  return -1;
}

// An agent and its replay device are listed live; a short race started on the Runs page through
// the cluster is measured by it (every trial in the store, on this machine), and the page's
// trials done for the agent grow to the race's budget.
TEST(ClusterPage, ListsTheAgentAndItsDeviceAndCountsTheTrialsOfARaceThroughTheCluster) {
  ClusterFixture cluster("gui-race");
  cluster.startAgent("replayer", 0);
  ASSERT_TRUE(cluster.waitForAgents(1, 15)) << cluster.logText("replayer");

  MainWindow window;
  window.runsPage()->setStorePath(QString::fromStdString(cluster.db()));
  window.show();
  ClusterPage* page = window.clusterPage();
  window.pages()->setCurrentWidget(page);
  EXPECT_EQ(window.pages()->tabText(MainWindow::ClusterPageIndex), QStringLiteral("Cluster"));
  ModelTesters testers(*page);
  connectPage(*page, cluster);

  const QString agent = QStringLiteral("replayer");
  ASSERT_TRUE(waitUntil([&] { return agentIs(*page, agent, "live"); }, 5000))
      << page->message().toStdString();
  EXPECT_EQ(agentValue(*page, agent, ClusterAgentModel::BackendColumn).toString(),
            QStringLiteral("replay"));
  EXPECT_EQ(agentValue(*page, agent, ClusterAgentModel::DevicesColumn).toInt(), 1);
  EXPECT_LT(agentValue(*page, agent, ClusterAgentModel::HeartbeatColumn).toLongLong(), 3000);
  const int device = deviceRowOf(*page, agent);
  ASSERT_GE(device, 0);
  const ClusterDeviceModel* devices = page->deviceModel();
  const QString kind = devices->index(device, ClusterDeviceModel::KindColumn).data().toString();
  EXPECT_TRUE(kind.startsWith(QStringLiteral("replay:"))) << kind.toStdString();
  EXPECT_EQ(QString::fromStdString(cluster.kindOf("replayer")), kind);
  EXPECT_FALSE(
      devices->index(device, ClusterDeviceModel::DeviceColumn).data().toString().isEmpty());
  EXPECT_EQ(devices->index(device, ClusterDeviceModel::CapacityColumn).data().toInt(), 1);
  EXPECT_EQ(agentValue(*page, agent, ClusterAgentModel::TrialsColumn).toLongLong(), 0);
  EXPECT_TRUE(page->summary().contains(QStringLiteral("1 live agent,")))
      << page->summary().toStdString();
  EXPECT_TRUE(page->message().isEmpty()) << page->message().toStdString();

  // The Runs page offers the cluster once it is connected.
  RunsPage* runs = window.runsPage();
  RaceSetupPanel* setup = runs->setup();
  ASSERT_TRUE(setup->clusterOption()->setChecked(true));
  setup->datasetPicker()->load(QString::fromStdString(ct::kClusterDataset));
  ASSERT_TRUE(waitUntil([&] { return !setup->datasetPicker()->loading(); }, 15000));
  ASSERT_TRUE(setup->datasetPicker()->dataset());
  setup->algorithmPanel()->setChecked({QStringLiteral("opevo")});
  setup->setRepeats(1);
  constexpr int kTrials = 24;
  setup->setTrials(kTrials);
  setup->setPaceMs(0);
  ASSERT_TRUE(runs->start()) << runs->message().toStdString();
  ASSERT_TRUE(waitUntil([&] { return !runs->controller()->busy(); }, 15000));
  EXPECT_TRUE(runs->message().isEmpty()) << runs->message().toStdString();
  // The master stayed the store's only writer: the whole budget, each configuration once.
  ct::expectExactBudget(ct::storedTrials(cluster.db()), kTrials);

  // Trials done reach the page with the agent's next heartbeats.
  EXPECT_TRUE(waitUntil(
      [&] {
        return agentValue(*page, agent, ClusterAgentModel::TrialsColumn).toLongLong() >= kTrials;
      },
      5000))
      << agentValue(*page, agent, ClusterAgentModel::TrialsColumn).toLongLong();
  EXPECT_GE(devices->index(deviceRowOf(*page, agent), ClusterDeviceModel::TrialsColumn)
                .data(ClusterDeviceModel::RawRole)
                .toLongLong(),
            kTrials);
  // Its queue is listed, drained, and served by the one live device.
  const ClusterQueueModel* queues = page->queueModel();
  ASSERT_EQ(queues->rowCount(), 1);
  EXPECT_EQ(queues->index(0, ClusterQueueModel::KindColumn).data().toString(), kind);
  EXPECT_EQ(queues->index(0, ClusterQueueModel::DevicesColumn).data().toInt(), 1);
  EXPECT_TRUE(waitUntil(
      [&] { return queues->index(0, ClusterQueueModel::WaitingColumn).data().toInt() == 0; },
      3000));

  // A race across spaces is refused through the cluster, before anything is stored: each space's
  // measurer would open a session of its own on the agents.
  ASSERT_TRUE(setup->setBackend(QStringLiteral("cpu")));
  ASSERT_TRUE(setup->setMode(QStringLiteral("loop+joint")));
  QString problem;
  EXPECT_FALSE(setup->spec(&problem));
  EXPECT_EQ(problem, QStringLiteral("A race across spaces measures on this machine: race one space "
                                    "at a time through the cluster, or untick it."));

  // The window keeps the address, never the password.
  window.saveSettings();
  QSettings settings;
  EXPECT_EQ(settings.value(QStringLiteral("cluster/address")).toString().toStdString(),
            cluster.address());
  for (const QString& key : settings.allKeys())
    EXPECT_FALSE(
        settings.value(key).toString().contains(QString::fromStdString(cluster.password())))
        << key.toStdString();

  // Disconnecting takes the option away from the Runs page.
  page->disconnectFromCluster();
  EXPECT_FALSE(setup->clusterOption()->isChecked());
  EXPECT_FALSE(setup->clusterOption()->target());
  EXPECT_EQ(page->agentModel()->rowCount(), 0);
}

// A wrong password is said on the page (and the page stops watching, no crash); so is a server
// that is not there, without the GUI thread ever waiting for it; a race through the cluster with
// the wrong password fails with the same words before anything is stored.
TEST(ClusterPage, SaysWhenThePasswordIsWrongOrTheServerIsNotThere) {
  ClusterFixture cluster("gui-refused");
  const auto wrong = cluster.dir() / "wrong-password";
  std::ofstream(wrong) << "not-the-password\n";

  ClusterPage page;
  page.show();
  test::StallProbe stalls;
  connectPage(page, cluster, QString::fromStdString(wrong.string()));
  ASSERT_TRUE(waitUntil([&] { return !page.message().isEmpty(); }, 5000));
  const QString refused = page.message();
  EXPECT_TRUE(refused.startsWith(QStringLiteral("Wrong password"))) << refused.toStdString();
  EXPECT_TRUE(refused.contains(QString::fromStdString(wrong.string()))) << refused.toStdString();
  EXPECT_TRUE(refused.contains(QStringLiteral("Password file"))) << refused.toStdString();
  // The summary says the server answered and refused, not that it was not reached.
  EXPECT_FALSE(page.summary().contains(QStringLiteral("not reached")))
      << page.summary().toStdString();
  EXPECT_TRUE(page.summary().contains(QStringLiteral("not connected")))
      << page.summary().toStdString();
  EXPECT_EQ(page.agentModel()->rowCount(), 0);
  // A refused password stays refused: the page stops asking, so the password file can be chosen
  // (the button the message names is enabled) and Connect pressed again.
  EXPECT_FALSE(page.connectBar()->connected());
  EXPECT_TRUE(refused.contains(QStringLiteral("then Connect"))) << refused.toStdString();
  const auto* button =
      page.connectBar()->findChild<QPushButton*>(QStringLiteral("clusterPasswordFile"));
  ASSERT_TRUE(button);
  EXPECT_TRUE(button->isEnabled());
  QTest::qWait(3 * kPollMs);
  EXPECT_EQ(page.message(), refused);

  // The right password (the environment's, once the file is cleared) is taken at once.
  page.disconnectFromCluster();
  connectPage(page, cluster);
  EXPECT_TRUE(
      waitUntil([&] { return page.summary().contains(QStringLiteral("0 live agents,")); }, 5000))
      << page.summary().toStdString() << page.message().toStdString();
  EXPECT_TRUE(page.message().isEmpty()) << page.message().toStdString();

  // No server at that address.
  page.disconnectFromCluster();
  page.connectBar()->setAddress(QString::fromStdString((cluster.dir() / "nobody.sock").string()));
  ASSERT_TRUE(page.connectToCluster());
  ASSERT_TRUE(waitUntil([&] { return !page.message().isEmpty(); }, 5000));
  EXPECT_TRUE(page.message().contains(QStringLiteral("Cannot reach the cluster")))
      << page.message().toStdString();
  EXPECT_TRUE(page.message().contains(QStringLiteral("opevo cluster serve")));
  // An address that cannot be one (no port, a port past 65535) is refused at once, said once,
  // and nothing is watched.
  page.disconnectFromCluster();
  for (const char* bad : {"cluster-without-port", "nohost:99999"}) {
    page.connectBar()->setAddress(QString::fromLatin1(bad));
    EXPECT_FALSE(page.connectToCluster()) << bad;
    EXPECT_TRUE(page.message().contains(QStringLiteral("port"))) << page.message().toStdString();
    EXPECT_FALSE(page.connectBar()->connected()) << bad;
    EXPECT_TRUE(page.summary().startsWith(QStringLiteral("Not connected")))
        << page.summary().toStdString();
  }
  EXPECT_LT(stalls.longestMs(), 1000) << "the GUI thread waited for the cluster";

  // A race through the cluster with the wrong password fails, saying so.
  EngineController engine;
  RaceSpec spec;
  spec.dataset = std::make_shared<const ReplayDataset>(loadReplayDataset(ct::kClusterDataset));
  spec.algorithms = {AlgorithmChoice{"random", {}}};
  spec.trials = 5;
  spec.cluster = ClusterTarget{cluster.address(), wrong.string()};
  spec.storePath = cluster.db();
  std::optional<RaceOutcome> outcome;
  QObject::connect(&engine, &EngineController::finished,
                   [&](const RaceOutcome& o) { outcome = o; });
  ASSERT_TRUE(engine.start(spec));
  ASSERT_TRUE(waitUntil([&] { return outcome.has_value(); }, 10000));
  // Failed, or refused (nothing measured): either way not run.
  EXPECT_NE(outcome->end, RaceOutcome::End::Finished);
  EXPECT_NE(outcome->end, RaceOutcome::End::Stopped);
  EXPECT_TRUE(outcome->message.startsWith(QStringLiteral("wrong password")))
      << outcome->message.toStdString();
  EXPECT_TRUE(ct::storedTrials(cluster.db()).empty());
}

// A race through a cluster where no agent serves its dataset fails at once, saying so, before
// anything is stored. One whose agent takes a minute a trial waits for it; Stop ends it at once
// (the waiting measurer is cancelled) instead of leaving the engine thread waiting for results.
TEST(ClusterPage, StopEndsARaceThatWaitsForAgents) {
  ClusterFixture cluster("gui-stop");
  EngineController engine;
  RaceSpec spec;
  spec.dataset = std::make_shared<const ReplayDataset>(loadReplayDataset(ct::kClusterDataset));
  spec.algorithms = {AlgorithmChoice{"random", {}}};
  spec.trials = 5;
  spec.cluster = ClusterTarget{cluster.address(), {}};
  std::optional<RaceOutcome> outcome;
  QObject::connect(&engine, &EngineController::finished,
                   [&](const RaceOutcome& o) { outcome = o; });
  ASSERT_TRUE(engine.start(spec));
  ASSERT_TRUE(waitUntil([&] { return outcome.has_value(); }, 10000));
  EXPECT_NE(outcome->end, RaceOutcome::End::Finished);
  EXPECT_NE(outcome->end, RaceOutcome::End::Stopped);
  EXPECT_TRUE(outcome->message.contains(QStringLiteral("no live agent")))
      << outcome->message.toStdString();
  EXPECT_TRUE(ct::storedTrials(cluster.db()).empty());

  outcome.reset();
  cluster.startAgent("slow", 60000);
  ASSERT_TRUE(cluster.waitForAgents(1, 15)) << cluster.logText("slow");
  ASSERT_TRUE(engine.start(spec));
  QTest::qWait(1000);
  ASSERT_FALSE(outcome.has_value()) << outcome->message.toStdString();
  QElapsedTimer stopping;
  stopping.start();
  engine.stop();
  ASSERT_TRUE(waitUntil([&] { return outcome.has_value(); }, 5000));
  EXPECT_LT(stopping.elapsed(), 2000);
  EXPECT_EQ(outcome->end, RaceOutcome::End::Stopped) << outcome->message.toStdString();
}

// Finding 4: the server stopped. What was read stays listed, but a live agent as last read is
// "unknown", greyed, its heartbeat "last seen N s ago" counting on, its device's trial unknown:
// the walk saw green "live" rows and a device "measuring" a trial, frozen. A replay's simulated
// time per trial comes first in its Device column, which cut it off at 1024x700.
TEST(ClusterPage, AgentsOfAServerThatCannotBeReadAreShownAsUnknown) {
  ClusterFixture cluster("gui-down");
  cluster.startAgent("node", 700);
  ASSERT_TRUE(cluster.waitForAgents(1, 15)) << cluster.logText("node");

  ClusterPage page;
  page.show();
  ModelTesters testers(page);
  connectPage(page, cluster);
  const QString node = QStringLiteral("node");
  ASSERT_TRUE(waitUntil([&] { return agentIs(page, node, "live"); }, 5000));
  const ClusterDeviceModel* devices = page.deviceModel();
  const int device = deviceRowOf(page, node);
  ASSERT_GE(device, 0);
  const QString name = devices->index(device, ClusterDeviceModel::DeviceColumn).data().toString();
  EXPECT_TRUE(name.startsWith(QStringLiteral("simulated 700 ms per trial: replay of ")))
      << name.toStdString();
  const ClusterAgentModel* agents = page.agentModel();
  const QModelIndex state = agents->index(agents->rowOf(node), ClusterAgentModel::StateColumn);
  const QModelIndex beat = agents->index(agents->rowOf(node), ClusterAgentModel::HeartbeatColumn);

  cluster.server().kill();
  ASSERT_TRUE(waitUntil([&] { return agentIs(page, node, "unknown"); }, 5000));
  EXPECT_FALSE(page.message().isEmpty());
  EXPECT_EQ(state.data().toString(), QStringLiteral("unknown"));
  EXPECT_EQ(state.data(Qt::ForegroundRole), beat.data(Qt::ForegroundRole)) << "not greyed";
  const QString seen = beat.data().toString();
  EXPECT_TRUE(seen.startsWith(QStringLiteral("last seen "))) << seen.toStdString();
  EXPECT_EQ(devices->index(device, ClusterDeviceModel::NowColumn).data().toString(),
            QStringLiteral("unknown"));
  // It counts on with each poll that fails.
  EXPECT_TRUE(waitUntil([&] { return beat.data().toString() != seen; }, 3000))
      << seen.toStdString();
}

// An agent killed with -9 stops beating; once its heartbeat expires the page lists it as gone
// (greyed, its device too) while the other stays live.
TEST(ClusterPage, ShowsAKilledAgentAsGoneOnceItsHeartbeatExpires) {
  ClusterFixture cluster("gui-gone");
  cluster.startAgent("doomed", 0);
  cluster.startAgent("survivor", 0);
  ASSERT_TRUE(cluster.waitForAgents(2, 15)) << cluster.logText("doomed");

  ClusterPage page;
  page.show();
  ModelTesters testers(page);
  connectPage(page, cluster);
  const QString doomed = QStringLiteral("doomed"), survivor = QStringLiteral("survivor");
  ASSERT_TRUE(waitUntil(
      [&] { return agentIs(page, doomed, "live") && agentIs(page, survivor, "live"); }, 5000));
  cluster.killNow("doomed");
  // Its record lives five heartbeats (at least 5 s) after the last.
  ASSERT_TRUE(waitUntil([&] { return agentIs(page, doomed, "gone"); }, 9000));
  EXPECT_TRUE(agentIs(page, survivor, "live"));
  const ClusterAgentModel* agents = page.agentModel();
  const QModelIndex state = agents->index(agents->rowOf(doomed), ClusterAgentModel::StateColumn);
  EXPECT_EQ(state.data().toString(), QStringLiteral("gone"));
  EXPECT_TRUE(state.data(Qt::ForegroundRole).isValid());
  EXPECT_GE(agentValue(page, doomed, ClusterAgentModel::HeartbeatColumn).toLongLong(), 4000);
  const ClusterDeviceModel* devices = page.deviceModel();
  EXPECT_EQ(
      devices->index(deviceRowOf(page, doomed), ClusterDeviceModel::NowColumn).data().toString(),
      QStringLiteral("gone"));
  EXPECT_EQ(
      devices->index(deviceRowOf(page, survivor), ClusterDeviceModel::NowColumn).data().toString(),
      QStringLiteral("idle"));
  EXPECT_TRUE(page.summary().contains(QStringLiteral("1 live agent (1 gone)")))
      << page.summary().toStdString();
}

}  // namespace
}  // namespace opevo::ui
