// A network tuned under a twin-aware scheduler ends with the twins' closing round: each task with
// twins measures their final best configurations (NetworkTuning). `opevo net runs ID` says it
// ("closing round: a 1 from twin b"); the Networks page said nothing of it, a finished run of 13
// of its 16 trials reading only that the rest had nothing left to measure. The page's status says
// the round, for a stored run and a live race's end, and the task table's Trials counts a task's
// closing trials.

#include <gtest/gtest.h>

#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QToolButton>
#include <memory>
#include <string>
#include <vector>

#include "cli_beside.h"
#include "gui_test_support.h"
#include "net/network_json.h"
#include "net/stored_network_run.h"
#include "net/tasks.h"
#include "store/store.h"
#include "ui/controller/network_controller.h"
#include "ui/controller/network_types.h"
#include "ui/models/network_task_model.h"
#include "ui/pages/networks_page.h"
#include "ui/widgets/network_setup_panel.h"

namespace opevo::ui {
namespace {

using test::waitUntil;

const QString kTwins = QStringLiteral(OPEVO_DATASETS_DIR "/../../tests/data/net_twins.json");

// The CLI's standard output, empty on a failure, which fails the test naming its error.
QString cliOutput(const QStringList& args) {
  const test::CliRun run = test::runCli(args);
  if (run.exitCode == 0) return run.out;
  ADD_FAILURE() << "opevo " << args.join(' ').toStdString() << ": " << run.err.toStdString();
  return {};
}

class NetworksClosingRound : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(m_dir.isValid());
    m_db = m_dir.filePath(QStringLiteral("twins.db"));
    m_page.setStorePath(m_db);
    // Read on Qt's pool, which creates the database: a test must not end (its folder removed)
    // while it is being made, or the folder stays in /tmp.
    ASSERT_TRUE(waitUntil([&] { return !m_page.setup()->busyReading(); }));
    m_page.resize(1000, 640);
    m_page.show();
  }
  // The twins' network on show: its tasks a, b (twins), p and d.
  void chooseTwins() {
    m_page.setup()->selectNetwork(kTwins);
    ASSERT_TRUE(
        waitUntil([&] { return !m_page.loadingPicture() && m_page.taskModel()->rowCount() == 4; }));
  }
  QString status() const { return m_page.statusLabel()->text(); }
  QString trialsOf(int row, int role = Qt::DisplayRole) const {
    return m_page.taskModel()->index(row, NetworkTaskModel::TrialsColumn).data(role).toString();
  }

  NetworkSetupPanel* setup() const { return m_page.setup(); }
  QString cell(int row, int column) const {
    return m_page.taskModel()->index(row, column).data().toString();
  }
  // The table's row of the task named `name`; -1 when none.
  int rowOf(const QString& name) const {
    for (int r = 0; r < m_page.taskModel()->rowCount(); ++r)
      if (cell(r, NetworkTaskModel::TaskColumn) == name) return r;
    return -1;
  }

  QTemporaryDir m_dir;
  QString m_db;
  std::vector<NetworkSnapshotPtr> m_snapshots;  // outlives the page, which may still send some
  NetworksPage m_page;
};

// A finished contender of the twins' network whose run ended with the round "a 1 from twin b".
ContenderState closedContender() {
  ContenderState c;
  c.label = QStringLiteral("opevo-m / topological / loop");
  c.networkId = 1;
  c.budget = 16;
  c.trials = 13;
  c.done = true;
  c.unitTask = {0, 0, 1, 2, 3, 0};
  c.unitTrials = {2, 1, 3, 3, 3, 1};
  c.unitClosingFrom = {{}, {}, {}, {}, {}, {"b"}};
  c.taskTrials = {4, 3, 3, 3};
  c.taskBestMs = {0.115, 0.117, 0.004, 0.002};
  return c;
}

// A race's end: a contender whose units of the round name their twins (as network_worker's
// describe() fills them; that fill is not run here) is said in the status and the task table.
TEST_F(NetworksClosingRound, AContendersClosingUnitsAreSaidAtTheRacesEnd) {
  chooseTwins();
  auto s = std::make_shared<NetworkSnapshot>();
  s->contenders.push_back(closedContender());
  emit m_page.controller()->updated(s);
  EXPECT_EQ(trialsOf(0), QStringLiteral("4 (1 closing)"));
  EXPECT_TRUE(trialsOf(0, Qt::ToolTipRole).contains(QStringLiteral("a 1 from twin b")))
      << trialsOf(0, Qt::ToolTipRole).toStdString();
  EXPECT_EQ(trialsOf(1), QStringLiteral("3")) << "b had no closing unit";
  emit m_page.controller()->finished(NetworkOutcome{});
  EXPECT_TRUE(status().contains(QStringLiteral("closing round: a 1 from twin b")))
      << status().toStdString();
  // Of several contenders, each says its own.
  ContenderState other = closedContender();
  other.label = QStringLiteral("opevo-m / gradient / loop");
  other.unitClosingFrom.back() = {"b", "b"};
  s = std::make_shared<NetworkSnapshot>();
  s->contenders = {closedContender(), other};
  emit m_page.controller()->updated(s);
  emit m_page.controller()->finished(NetworkOutcome{});
  EXPECT_TRUE(status().contains(
      QStringLiteral("closing round of opevo-m / gradient / loop: a 2 from twin b")))
      << status().toStdString();
  // None: nothing said.
  s = std::make_shared<NetworkSnapshot>();
  s->contenders.push_back(closedContender());
  s->contenders.front().unitClosingFrom.clear();
  emit m_page.controller()->updated(s);
  emit m_page.controller()->finished(NetworkOutcome{});
  EXPECT_FALSE(status().contains(QStringLiteral("closing round"))) << status().toStdString();
  EXPECT_EQ(trialsOf(0), QStringLiteral("4"));
}

// The units the worker records: a closing unit names the twins it came from; a scheduler's unit
// that began with its twin's best is not the round.
TEST(NetworksClosingRoundUnits, OnlyTheRoundsUnitsNameTheirTwins) {
  const net::TaskGraph graph = net::extractTasks(net::loadNetwork(kTwins.toStdString()));
  ASSERT_GE(graph.tasks.size(), 2u);
  net::NetworkUnit unit;
  unit.task = 0;
  unit.fromTwins = {1};
  EXPECT_TRUE(closingFrom(unit, graph).empty());
  unit.closing = true;
  EXPECT_EQ(closingFrom(unit, graph), std::vector<std::string>{graph.tasks[1].name});
}

// A stored run tuned by the CLI, shown: the page says the round `opevo net runs ID` says.
TEST_F(NetworksClosingRound, AStoredRunSaysTheRoundNetRunsSays) {
  ASSERT_FALSE(
      cliOutput({"net",         "tune",     kTwins,    "--backend",      "cpu",  "--mode",
                 "loop",        "--trials", "16",      "--unit",         "2",    "--scheduler",
                 "topological", "--algo",   "opevo-m", "--min-time-ms",  "1",    "--runs",
                 "1",           "--warmup", "0",       "--no-reference", "--db", m_db})
          .isNull());
  const QString shown = cliOutput({"net", "runs", QStringLiteral("1"), "--db", m_db});
  const QRegularExpressionMatch cli = QRegularExpression(QStringLiteral("^closing round: (.*)$"),
                                                         QRegularExpression::MultilineOption)
                                          .match(shown);
  m_page.setup()->reloadButton()->click();
  ASSERT_TRUE(waitUntil([&] { return m_page.setup()->runsBox()->count() == 1; }));
  m_page.setup()->showButton()->click();
  ASSERT_TRUE(waitUntil([&] {
    return !m_page.loadingStored() && !m_page.loadingPicture() &&
           status().startsWith(QStringLiteral("Network run 1")) &&
           m_page.taskModel()->rowCount() == 4;
  })) << status().toStdString();
  if (!cli.hasMatch()) {
    // The twins had measured each other's bests already (the CPU's timings chose them): no round,
    // and none said; the round itself was not checked, which the skip makes visible.
    EXPECT_FALSE(status().contains(QStringLiteral("closing round"))) << status().toStdString();
    GTEST_SKIP() << "this run had no closing round to show (its twins' bests were measured)";
  }
  EXPECT_TRUE(status().contains(QStringLiteral("closing round: ") + cli.captured(1)))
      << status().toStdString() << "\nnet runs: " << cli.captured(0).toStdString();
  // Its tasks' rows count their closing trials.
  int closingRows = 0;
  for (int r = 0; r < m_page.taskModel()->rowCount(); ++r)
    closingRows += trialsOf(r).contains(QStringLiteral(" closing)"));
  EXPECT_GE(closingRows, 1);
}

// A live race's snapshots mark the units of the twins' closing round (network_worker's describe()
// fills ContenderState::unitClosingFrom), held against what the store recorded of the same units.
// The budget makes the round certain: 11 trials of the twins' network (tasks a, b, p, d; a and b
// twins) under the topological scheduler keep 4 for the round and hand out 7, a's share one
// trial. b begins with that one configuration of a's (a scheduler's unit that came from its twin,
// which is not the round) and measures one of its own, so b's best two hold one configuration a
// never measured, whatever the CPU's timings: a's closing unit measures it, "1 from twin b", and
// b, which measured all of a's, has none.
TEST_F(NetworksClosingRound, ALiveRaceMarksExactlyItsClosingUnitsWithTheirTwins) {
  chooseTwins();
  ASSERT_TRUE(setup()->setAlgorithms({QStringLiteral("random"), QStringLiteral("opevo-m")}));
  ASSERT_TRUE(setup()->setSchedulers({QStringLiteral("topological")}));
  ASSERT_TRUE(setup()->setModes({QStringLiteral("loop")}));
  setup()->backendBox()->setCurrentText(QStringLiteral("cpu"));
  setup()->setTrials(11);
  setup()->unitBox()->setValue(4);

  // Every snapshot the race sends: a unit is marked as it is measured and never changes after.
  QObject::connect(m_page.controller(), &NetworkController::updated, &m_page,
                   [this](NetworkSnapshotPtr s) { m_snapshots.push_back(std::move(s)); });
  m_page.start();
  ASSERT_TRUE(waitUntil([&] { return m_page.controller()->busy(); }));
  ASSERT_TRUE(waitUntil([&] { return !m_page.controller()->busy(); }, 240000));
  ASSERT_NE(m_page.snapshot(), nullptr);
  const NetworkSnapshot& last = *m_page.snapshot();
  ASSERT_EQ(last.contenders.size(), 2u);

  const Store store(m_db.toStdString());
  for (int i = 0; i < 2; ++i) {
    const ContenderState& c = last.contenders[static_cast<std::size_t>(i)];
    SCOPED_TRACE(c.label.toStdString());
    const net::StoredNetworkRun run = net::readStoredNetworkRun(store, c.networkId);
    ASSERT_EQ(run.tasks.size(), 4u);
    std::size_t a = run.tasks.size();
    for (std::size_t t = 0; t < run.tasks.size(); ++t)
      if (run.tasks[t].name == "a") a = t;
    ASSERT_LT(a, run.tasks.size());

    // Unit by unit, the snapshot's marks are the store's record of the round.
    ASSERT_EQ(c.unitTask.size(), run.units.size());
    ASSERT_EQ(c.unitClosingFrom.size(), run.units.size());
    int closingUnits = 0;
    for (std::size_t u = 0; u < run.units.size(); ++u) {
      SCOPED_TRACE("unit " + std::to_string(u + 1));
      EXPECT_EQ(c.unitTask[u], run.units[u].task);
      EXPECT_EQ(c.unitClosingFrom[u], run.units[u].closingFrom);
      if (c.unitClosingFrom[u].empty()) continue;
      ++closingUnits;
      // The one closing unit: a's, the configuration of twin b's that a never measured.
      EXPECT_EQ(c.unitTask[u], static_cast<int>(a));
      EXPECT_EQ(c.unitClosingFrom[u], std::vector<std::string>{"b"});
      EXPECT_EQ(c.unitTrials[u], 1);
    }
    EXPECT_EQ(closingUnits, 1);

    // And the status says it at the race's end, as `opevo net runs` says a stored run's.
    EXPECT_TRUE(m_page.statusLabel()->text().contains(
        QStringLiteral("closing round of %1: a 1 from twin b").arg(c.label)))
        << m_page.statusLabel()->text().toStdString();

    // Every earlier snapshot of this contender marked its units as the last one does.
    for (const NetworkSnapshotPtr& s : m_snapshots) {
      if (s->contenders.size() != last.contenders.size()) continue;
      const ContenderState& earlier = s->contenders[static_cast<std::size_t>(i)];
      ASSERT_LE(earlier.unitClosingFrom.size(), c.unitClosingFrom.size());
      for (std::size_t u = 0; u < earlier.unitClosingFrom.size(); ++u)
        EXPECT_EQ(earlier.unitClosingFrom[u], c.unitClosingFrom[u]) << "unit " << u + 1;
    }

    // The table, showing this contender, counts a's closing trial beside its trials.
    m_page.contenderBox()->setCurrentIndex(i);
    for (std::size_t t = 0; t < run.tasks.size(); ++t) {
      const QString name = QString::fromStdString(run.tasks[t].name);
      const int row = rowOf(name);
      ASSERT_GE(row, 0) << name.toStdString();
      const QString trials = QString::number(c.taskTrials[t]);
      EXPECT_EQ(cell(row, NetworkTaskModel::TrialsColumn).toStdString(),
                (t == a ? QStringLiteral("%1 (1 closing)").arg(trials) : trials).toStdString())
          << name.toStdString();
      EXPECT_EQ(c.taskTrials[t], run.tasks[t].trials) << name.toStdString();
    }
  }
}

}  // namespace
}  // namespace opevo::ui
