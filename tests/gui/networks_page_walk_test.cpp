// The findings of a user's walk of the Networks page at 1024x700: a stored-runs list gone stale
// while the CLI changed the database, Show choosing a network file that no longer reads, labels
// that did not tell runs apart, FLOPs other than the CLI's, shapes of params that do not read,
// and a form forgotten between sessions.
#include <gtest/gtest.h>

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QToolButton>

#include "cli_beside.h"
#include "gui_test_support.h"
#include "store/store.h"
#include "tiny_network.h"
#include "ui/charts/network_graph_view.h"
#include "ui/controller/network_controller.h"
#include "ui/jobs/network_layout.h"
#include "ui/models/network_task_model.h"
#include "ui/pages/networks_page.h"
#include "ui/widgets/network_setup_panel.h"

namespace opevo::ui {
namespace {

using test::kTinyNetwork;
using test::waitUntil;

// The same network with an op no build knows, as the walk's overwritten file had.
constexpr const char* kBroken = R"({
  "name": "tiny", "inputs": [{"name": "image", "shape": [1, 3, 12, 12]}],
  "layers": [{"name": "c1", "op": "swish", "input": "image"}]})";

// The CLI's exit code; a failure names its error.
int cliExitCode(const QStringList& args) {
  const test::CliRun run = test::runCli(args);
  if (run.exitCode != 0)
    ADD_FAILURE() << "opevo " << args.join(' ').toStdString() << ": " << run.err.toStdString();
  return run.exitCode;
}

class NetworksPageWalkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(m_dir.isValid());
    m_db = m_dir.filePath(QStringLiteral("gui.db"));
    m_file = m_dir.filePath(QStringLiteral("tiny.json"));
    write(kTinyNetwork);
    m_page.setStorePath(m_db);
    m_page.resize(1000, 640);  // what a 1024x700 window leaves the page
    m_page.show();
  }
  void TearDown() override {
    m_page.stop();
    waitUntil([&] { return !m_page.controller()->busy(); }, 60000);
  }
  void write(const char* text) {
    QFile f(m_file);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(text);
  }
  NetworkSetupPanel* setup() { return m_page.setup(); }
  QString status() { return m_page.statusLabel()->text(); }
  bool pictureShown(std::size_t nodes) {
    return waitUntil([&] {
      return !m_page.loadingPicture() && m_page.graphView()->networkLayout() &&
             m_page.graphView()->networkLayout()->nodes.size() == nodes;
    });
  }
  // Tiny with one contender: opevo-m, gradient, layouts and loops, `trials` trials.
  void chooseTiny(int trials) {
    setup()->selectNetwork(m_file);
    ASSERT_TRUE(pictureShown(6));
    ASSERT_TRUE(setup()->setAlgorithms({QStringLiteral("opevo-m")}));
    ASSERT_TRUE(setup()->setSchedulers({QStringLiteral("gradient")}));
    ASSERT_TRUE(setup()->setModes({QStringLiteral("joint")}));
    setup()->setTrials(trials);
  }
  bool raceEnded() {
    return waitUntil([&] { return !m_page.controller()->busy(); }, 240000);
  }
  QString entryOf(std::int64_t id) {
    QComboBox* runs = setup()->runsBox();
    const int i = runs->findData(QVariant::fromValue<qlonglong>(id));
    return i < 0 ? QString() : runs->itemText(i);
  }

  QTemporaryDir m_dir;
  QString m_db, m_file;
  NetworksPage m_page;
};

// Finding 1 and 7: `opevo net tune --resume 2` finished run 2, and the page still listed it as
// interrupted with Resume enabled and "Resume continues it" in its status; a run the CLI started
// was not listed until a later race ended.
TEST_F(NetworksPageWalkTest, TheStoredRunsFollowTheCliAndResumeOfAFinishedRunSaysSo) {
  chooseTiny(24);
  m_page.start();
  ASSERT_TRUE(waitUntil(
      [&] { return m_page.snapshot() && m_page.snapshot()->contenders.at(0).trials >= 4; },
      120000));
  m_page.stop();
  ASSERT_TRUE(raceEnded());
  ASSERT_TRUE(waitUntil([&] { return setup()->resumeButton()->isEnabled(); }));
  const std::int64_t id = setup()->selectedRun()->id;
  // The store's word, as `opevo net runs` says it, in the status and the list; the entry names
  // the mode too (a race of two modes listed its runs alike).
  EXPECT_TRUE(status().contains(QStringLiteral("network run %1 is interrupted").arg(id)))
      << status().toStdString();
  EXPECT_EQ(entryOf(id),
            QStringLiteral("%1: tiny, interrupted (opevo-m / gradient / layouts+loops, 24 trials)")
                .arg(id));

  // The CLI finishes it while the page is on show.
  ASSERT_EQ(cliExitCode({"net", "tune", "--resume", QString::number(id), "--db", m_db,
                         "--no-reference", "--warmup", "0", "--runs", "1"}),
            0);
  ASSERT_EQ(Store(m_db.toStdString()).networks().at(0).status, RunStatus::Finished);
  // Resume reads the store first: the run is said to have finished, nothing fails.
  setup()->resumeButton()->click();
  ASSERT_TRUE(waitUntil([&] { return status().contains(QStringLiteral("has finished")); }))
      << status().toStdString();
  EXPECT_FALSE(m_page.controller()->busy());
  EXPECT_TRUE(entryOf(id).contains(QStringLiteral(", finished ")));
  EXPECT_FALSE(setup()->resumeButton()->isEnabled());

  // Show states the run's status; deleted by the CLI, Reload says it is gone rather than leave
  // the page speaking of it.
  setup()->showButton()->click();
  ASSERT_TRUE(waitUntil([&] {
    return !m_page.loadingStored() && status().startsWith(QStringLiteral("Network run"));
  }));
  ASSERT_EQ(cliExitCode({"net", "delete", QString::number(id), "--db", m_db}), 0);
  setup()->reloadButton()->click();
  EXPECT_TRUE(waitUntil([&] { return status().contains(QStringLiteral("no longer stored")); }))
      << status().toStdString();
  // A run the CLI started while the page was hidden is listed once it is shown again.
  m_page.hide();
  ASSERT_EQ(cliExitCode({"net", "tune", m_file, "--trials", "4", "--algo", "opevo-m", "--mode",
                         "loop", "--db", m_db, "--no-reference", "--warmup", "0", "--runs", "1"}),
            0);
  m_page.show();
  ASSERT_TRUE(waitUntil([&] { return setup()->runsBox()->count() == 1; }));
  EXPECT_TRUE(entryOf(id + 1).contains(QStringLiteral("opevo-m / gradient / loops, 4 trials")))
      << entryOf(id + 1).toStdString();
}

// A finished run that left trials unspent (the twins' closing reserve under topological) read
// "Network run 1, 13 of 16 trials", as a run stopped early reads.
TEST_F(NetworksPageWalkTest, AFinishedRunThatLeftTrialsUnspentSaysItFinished) {
  ASSERT_EQ(cliExitCode({"net", "tune",
                         QStringLiteral(OPEVO_DATASETS_DIR "/../../tests/data/net_twins.json"),
                         "--trials", "16", "--scheduler", "topological", "--algo", "opevo-m",
                         "--db", m_db, "--no-reference", "--warmup", "0", "--runs", "1"}),
            0);
  const auto stored = Store(m_db.toStdString()).networks();
  ASSERT_EQ(stored.size(), 1u);
  // Empty, the box says so (it was blank); filled, its newest run is the one Show shows.
  EXPECT_EQ(setup()->runsBox()->count(), 0);
  EXPECT_EQ(setup()->runsBox()->placeholderText(), QStringLiteral("none stored yet"));
  setup()->reloadButton()->click();
  ASSERT_TRUE(waitUntil([&] { return setup()->runsBox()->count() == 1; }));
  EXPECT_EQ(setup()->runsBox()->currentIndex(), 0);
  ASSERT_TRUE(setup()->showButton()->isEnabled());
  setup()->showButton()->click();
  ASSERT_TRUE(waitUntil([&] {
    return !m_page.loadingStored() && status().startsWith(QStringLiteral("Network run"));
  }));
  EXPECT_TRUE(status().startsWith(QStringLiteral("Network run 1, finished with ")))
      << status().toStdString();
  EXPECT_TRUE(status().contains(QStringLiteral(" of its 16 trials"))) << status().toStdString();
}

// Finding 2: Show of a run whose file was overwritten with one that fails chose the file again,
// and Start failed "unknown op 'swish'" under the old graph; the file fixed, choosing it again
// left the red line, the same entry not being read again.
TEST_F(NetworksPageWalkTest, ShowNeverChoosesAFileThatNoLongerReads) {
  chooseTiny(8);
  m_page.start();
  ASSERT_TRUE(raceEnded());
  ASSERT_TRUE(waitUntil([&] { return setup()->selectedRun().has_value(); }));
  write(kBroken);
  setup()->selectNetwork(QStringLiteral("alexnet"));
  ASSERT_TRUE(pictureShown(28));
  setup()->selectNetwork(m_file);
  ASSERT_TRUE(waitUntil([&] { return status().contains(QStringLiteral("still showing")); }));
  setup()->showButton()->click();
  ASSERT_TRUE(waitUntil([&] {
    return !m_page.loadingStored() && !m_page.loadingPicture() &&
           status().contains(QStringLiteral("no longer reads"));
  })) << status().toStdString();
  EXPECT_TRUE(pictureShown(6)) << "the run's network, as stored";
  EXPECT_EQ(setup()->network(), QStringLiteral("alexnet")) << "Start races what reads";
  EXPECT_EQ(setup()->networkBox()->findText(QStringLiteral("tiny.json")), -1);
  QString error;
  ASSERT_TRUE(setup()->spec(&error)) << error.toStdString();
  EXPECT_EQ(setup()->spec(&error)->network, "alexnet");

  // Fixed, and chosen: read, no red line.
  write(kTinyNetwork);
  setup()->selectNetwork(m_file);
  ASSERT_TRUE(waitUntil([&] { return !m_page.loadingPicture() && setup()->network() == m_file; }));
  // Broken again and the same entry chosen again from the box: read again, and refused.
  write(kBroken);
  emit setup()->networkBox()->activated(setup()->networkBox()->currentIndex());
  ASSERT_TRUE(waitUntil([&] { return status().contains(QStringLiteral("swish")); }))
      << status().toStdString();
  write(kTinyNetwork);
  emit setup()->networkBox()->activated(setup()->networkBox()->currentIndex());
  ASSERT_TRUE(waitUntil([&] { return !status().contains(QStringLiteral("swish")); }))
      << status().toStdString();
  EXPECT_TRUE(setup()->startButton()->isEnabled());
}

// Finding 4: the window's task table showed the convolution's FLOPs (AlexNet's conv1 140.6M)
// where `opevo net show` counts the fused epilogue too (140.94 MFLOP). Finding 3: ResNet-18's
// task names were elided from the left ("….0.conv1"), hiding the layer.
TEST_F(NetworksPageWalkTest, TheTaskTableCountsFlopsAsTheCliAndKeepsBothEndsOfANameInView) {
  ASSERT_TRUE(pictureShown(28));
  const double flops = m_page.taskModel()
                           ->index(0, NetworkTaskModel::FlopColumn)
                           .data(NetworkTaskModel::RawRole)
                           .toDouble();
  EXPECT_NEAR(flops * 1e3, 140.94, 0.005);
  EXPECT_EQ(m_page.taskTable()->textElideMode(), Qt::ElideMiddle);
}

// Finding 5: under "batch=0" the table and the graph kept batch=4's shapes as if they were its.
TEST_F(NetworksPageWalkTest, ParamsThatDoNotReadGreyTheShapesOfTheParamsBefore) {
  ASSERT_TRUE(pictureShown(28));
  setup()->paramsEdit()->setText(QStringLiteral("batch=4"));
  emit setup()->paramsEdit()->editingFinished();
  ASSERT_TRUE(waitUntil([&] {
    return m_page.taskModel()->index(0, NetworkTaskModel::ShapeColumn).data() == "4x64x55x55";
  }));
  EXPECT_TRUE(m_page.taskTable()->isEnabled());
  for (const char* bad : {"batch 4 4", "batch=0"}) {
    setup()->paramsEdit()->setText(QString::fromLatin1(bad));
    emit setup()->paramsEdit()->editingFinished();
    ASSERT_TRUE(waitUntil([&] {
      return !m_page.loadingPicture() && !setup()->startButton()->isEnabled();
    })) << bad;
    EXPECT_FALSE(m_page.taskTable()->isEnabled()) << bad;
    EXPECT_TRUE(m_page.graphView()->graphicsEffect()) << bad;
    EXPECT_TRUE(status().contains(QStringLiteral("still show batch=4"))) << status().toStdString();
  }
  setup()->paramsEdit()->setText(QStringLiteral("batch=2"));
  emit setup()->paramsEdit()->editingFinished();
  ASSERT_TRUE(waitUntil([&] { return setup()->startButton()->isEnabled(); }));
  EXPECT_TRUE(m_page.taskTable()->isEnabled());
  EXPECT_FALSE(m_page.graphView()->graphicsEffect());
}

// Finding 6: Trials 32 and an opened file were gone after a restart.
TEST(NetworkSetupPanelState, TheFormIsKeptBetweenSessionsAFileGoneSinceLeftOut) {
  QTemporaryDir dir;
  const QString file = dir.filePath(QStringLiteral("tiny.json"));
  QFile f(file);
  ASSERT_TRUE(f.open(QIODevice::WriteOnly));
  f.write(kTinyNetwork);
  f.close();
  QSettings settings(dir.filePath(QStringLiteral("s.ini")), QSettings::IniFormat);
  {
    NetworkSetupPanel before;
    before.selectNetwork(file);
    before.paramsEdit()->setText(QStringLiteral("batch=2"));
    before.backendBox()->setCurrentText(QStringLiteral("cpu"));
    ASSERT_TRUE(before.setAlgorithms({QStringLiteral("opevo-m"), QStringLiteral("autotvm")}));
    ASSERT_TRUE(before.setSchedulers({QStringLiteral("round-robin")}));
    ASSERT_TRUE(before.setModes({QStringLiteral("loop"), QStringLiteral("joint-np")}));
    before.setTrials(32);
    before.unitBox()->setValue(2);
    before.frozenTorchBox()->setChecked(true);
    before.saveState(settings);
  }
  NetworkSetupPanel after;
  after.restoreState(settings);
  EXPECT_EQ(after.network(), file);
  EXPECT_EQ(after.paramsEdit()->text(), QStringLiteral("batch=2"));
  EXPECT_EQ(after.trialsBox()->value(), 32);
  EXPECT_EQ(after.unitBox()->value(), 2);
  EXPECT_TRUE(after.roundRobinBox()->isChecked());
  EXPECT_FALSE(after.gradientBox()->isChecked());
  EXPECT_TRUE(after.loopModeBox()->isChecked());
  EXPECT_FALSE(after.jointModeBox()->isChecked());
  EXPECT_TRUE(after.jointNoPropagationBox()->isChecked());
  EXPECT_TRUE(after.frozenTorchBox()->isChecked());
  QString error;
  const auto spec = after.spec(&error);
  ASSERT_TRUE(spec) << error.toStdString();
  EXPECT_EQ(spec->algorithms, (std::vector<std::string>{"opevo-m", "autotvm"}));
  EXPECT_EQ(spec->torchForm, net::TorchForm::Frozen);
  // The file gone by the next session: the preset chosen before stays, the rest is restored.
  QFile::remove(file);
  NetworkSetupPanel gone;
  gone.restoreState(settings);
  EXPECT_EQ(gone.network(), QStringLiteral("alexnet"));
  EXPECT_EQ(gone.trialsBox()->value(), 32);
}

}  // namespace
}  // namespace opevo::ui
