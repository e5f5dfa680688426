// Findings of a new user's walk through the Runs and History pages (a CPU race, a resume, the
// window at 1024x700), each as the window shows it.

#include <gtest/gtest.h>

#include <QComboBox>
#include <QLabel>
#include <QSpinBox>
#include <QTemporaryDir>

#include "gui_test_support.h"
#include "store/run_lock.h"
#include "store/store.h"
#include "ui/charts/race_chart_view.h"
#include "ui/charts/race_results_widget.h"
#include "ui/controller/race_data.h"
#include "ui/controller/reference_line.h"
#include "ui/main_window.h"
#include "ui/models/history_model.h"
#include "ui/pages/history_page.h"
#include "ui/pages/runs_page.h"
#include "ui/widgets/algorithm_panel.h"
#include "ui/widgets/race_setup_panel.h"

namespace opevo::ui {
namespace {

using test::waitUntil;

RunRecord deviceRun(const std::string& algorithm, int repeat, const std::string& operatorJson) {
  RunRecord r;
  r.operatorName = "resnet18_conv3_b1";
  r.operatorJson = operatorJson;
  r.algorithm = algorithm;
  r.backend = "cpu";
  r.device = "cpu: AMD EPYC, 2 threads";
  r.budgetJson = R"({"trials": 60, "seconds": 15, "target": 200})";
  r.speedUnit = "GFLOP/s";
  r.seed = 3 + static_cast<std::uint64_t>(repeat);
  r.raceRepeat = repeat;
  r.raceAlgorithm = algorithm == "opevo-m" ? 0 : 1;
  return r;
}

TrialRow failedTrial(int seq) {
  TrialRow t;
  t.seq = seq;
  t.order = seq;
  t.config = "x=" + std::to_string(seq);
  t.status = seq == 1 ? TrialStatus::RuntimeFault : TrialStatus::CompileError;
  t.message = seq == 1 ? "worker died (signal 11)" : "error: 'tile' was not declared\nmore";
  return t;
}

class HistoryWalk : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(m_dir.isValid());
    m_path = m_dir.filePath(QStringLiteral("runs.db")).toStdString();
  }
  std::int64_t add(const RunRecord& r, const std::vector<TrialRow>& rows, RunStatus status) {
    Store store(m_path);
    const std::int64_t id = store.createRunWithTrials(r, rows);
    store.setRunStatus(id, status);
    return id;
  }
  bool open(HistoryPage& page, int runs) {
    page.setStorePath(QString::fromStdString(m_path));
    return waitUntil([&] { return !page.busy() && page.model()->rowCount() == runs; });
  }
  QTemporaryDir m_dir;
  std::string m_path;
};

// A run whose every trial failed drew a flat 0 GFLOP/s line captioned "10 trials of 1 run".
TEST_F(HistoryWalk, ARunWhoseEveryTrialFailedSaysWhyInsteadOfAZeroLine) {
  std::vector<TrialRow> rows;
  for (int i = 1; i <= 3; ++i) rows.push_back(failedTrial(i));
  const std::int64_t id =
      add(deviceRun("opevo-m", 0, R"({"name": "c3", "mode": "loop"})"), rows, RunStatus::Finished);
  HistoryPage page;
  ASSERT_TRUE(open(page, 1));
  page.selectRuns({id});
  const auto* info = page.findChild<QLabel*>(QStringLiteral("historyInfo"));
  ASSERT_TRUE(waitUntil([&] { return !page.busy() && info->text().contains("failed"); }));
  EXPECT_TRUE(info->text().contains(QStringLiteral("run %1: all 3 trials failed").arg(id)))
      << info->text().toStdString();
  EXPECT_TRUE(info->text().contains("2 did not compile, 1 faulted while running"))  // as tune says
      << info->text().toStdString();
  EXPECT_TRUE(info->text().contains("worker died (signal 11)")) << info->text().toStdString();
  EXPECT_EQ(page.data()->trialCount(), 0);  // no line pretending to be a speed
}

// The mode was only inside the run's operator JSON.
TEST_F(HistoryWalk, TheModeColumnNamesWhatWasTuned) {
  add(deviceRun("opevo-m", 0, R"({"name": "c3", "kind": "conv2d", "mode": "joint"})"), {},
      RunStatus::Finished);
  add(deviceRun("opevo-m", 1, R"({"name": "c3", "kind": "conv2d", "target": "winograd"})"), {},
      RunStatus::Finished);
  add(deviceRun("opevo-m", 2, R"({"name": "c3", "kind": "matmul", "target": "matvec-gpu"})"), {},
      RunStatus::Finished);
  add(deviceRun("opevo-m", 3, R"({"name": "c3", "kind": "conv2d"})"), {}, RunStatus::Finished);
  add(deviceRun("opevo-m", 4, R"({"replay": "/nowhere/A100.json.gz"})"), {}, RunStatus::Finished);
  // A measured file brought in by `opevo import` (io/run_import.cpp writes this operator).
  add(deviceRun("import", 5, R"({"name": "c3", "kind": "imported", "space": {}})"), {},
      RunStatus::Finished);
  HistoryPage page;
  ASSERT_TRUE(open(page, 6));
  QStringList modes;
  for (int r = page.model()->rowCount() - 1; r >= 0; --r)  // newest first: oldest last
    modes << page.model()->index(r, HistoryModel::ModeColumn).data().toString();
  EXPECT_EQ(modes, (QStringList{"joint", "winograd", "matvec", "loop", "replay", "imported"}));
  EXPECT_EQ(page.model()->headerData(HistoryModel::ModeColumn, Qt::Horizontal).toString(), "Mode");
}

// Reopened after a stopped or killed race, nothing said that runs could go on.
TEST_F(HistoryWalk, TheTitleSaysHowManyRunsCanBeResumed) {
  add(deviceRun("opevo-m", 0, "{}"), {}, RunStatus::Interrupted);
  add(deviceRun("autotvm", 0, "{}"), {}, RunStatus::Interrupted);
  add(deviceRun("opevo-m", 1, "{}"), {}, RunStatus::Finished);
  HistoryPage page;
  ASSERT_TRUE(open(page, 3));
  EXPECT_TRUE(page.title().contains("2 runs can be resumed")) << page.title().toStdString();
}

// The greyed form showed last session's race while History's resumed one ran.
TEST(RaceFormWalk, TheFormShowsAResumedRacesSettings) {
  RaceSetupPanel panel;
  ASSERT_TRUE(panel.setOperator(QStringLiteral("resnet18_conv4_b1")));
  ASSERT_TRUE(panel.setMode(QStringLiteral("joint")));
  const std::string loop = R"({"name": "resnet18_conv3_b1", "kind": "conv2d", "mode": "loop"})";
  std::vector<RunRecord> runs{deviceRun("opevo-m", 0, loop), deviceRun("autotvm", 0, loop),
                              deviceRun("opevo-m", 2, loop)};
  for (std::size_t i = 0; i < runs.size(); ++i) {
    runs[i].id = 12 + static_cast<std::int64_t>(i);
    runs[i].raceId = 7;
    runs[i].raceSchedule = Schedule::Shuffle;  // the store reads it from the race (schema 12)
  }
  panel.showResumed(runs);
  EXPECT_EQ(panel.findChild<QComboBox*>(QStringLiteral("scheduleBox"))->currentData().toInt(),
            static_cast<int>(Schedule::Shuffle));
  EXPECT_EQ(panel.backend(), QStringLiteral("cpu"));
  EXPECT_EQ(panel.operatorBox()->currentText(), QStringLiteral("resnet18_conv3_b1"));
  EXPECT_EQ(panel.modeBox()->currentData().toString(), QStringLiteral("loop"));
  EXPECT_EQ(panel.algorithmPanel()->checkedNames(),
            (QStringList{QStringLiteral("opevo-m"), QStringLiteral("autotvm")}));
  EXPECT_EQ(panel.findChild<QSpinBox*>(QStringLiteral("repeatsSpin"))->value(), 3);
  EXPECT_EQ(panel.findChild<QSpinBox*>(QStringLiteral("seedSpin"))->value(), 3);
  EXPECT_EQ(panel.findChild<QSpinBox*>(QStringLiteral("trialsSpin"))->value(), 60);
}

// Measure on = CPU kept the replay's 5 repeats of 200 trials: 1000 real measurements.
TEST(RaceFormWalk, ADeviceGetsADevicesBudgetUnlessOneWasTyped) {
  RaceSetupPanel panel;
  auto* repeats = panel.findChild<QSpinBox*>(QStringLiteral("repeatsSpin"));
  auto* trials = panel.findChild<QSpinBox*>(QStringLiteral("trialsSpin"));
  ASSERT_EQ(repeats->value(), 5);
  ASSERT_EQ(trials->value(), 200);
  ASSERT_TRUE(panel.setBackend(QStringLiteral("cpu")));
  EXPECT_EQ(repeats->value(), 1);
  EXPECT_EQ(trials->value(), 40);
  trials->setValue(25);  // typed
  ASSERT_TRUE(panel.setBackend(QStringLiteral("replay")));
  EXPECT_EQ(repeats->value(), 5);
  EXPECT_EQ(trials->value(), 25);
}

// opevo checked beside opevo-m, its row scrolled away: the race ran both unseen.
TEST(RaceFormWalk, TheCheckedAlgorithmsAreSaidUnderTheList) {
  AlgorithmPanel panel;
  panel.setChecked({QStringLiteral("opevo-m"), QStringLiteral("opevo")});
  EXPECT_EQ(panel.checkedLabel()->text(), QStringLiteral("2 checked: opevo, opevo-m"));
  panel.setChecked({});
  EXPECT_TRUE(panel.checkedLabel()->text().startsWith("None checked"));
}

// The legend read "timed once, 265 GFLOP/s: oneD…" (1.75x oneDNN) while the kernels timed beside
// the library read 0.90x; the window never gave that ratio.
TEST(ReferenceNoteWalk, TheNoteSaysWhatTheLineIsAndTheSideBySideRatio) {
  RaceData data;
  RaceResultsWidget results(&data);
  RaceData::Info info;
  info.algorithms << QStringLiteral("ansor") << QStringLiteral("autotvm");
  info.speedUnit = QStringLiteral("GFLOP/s");
  data.reset(info);
  EXPECT_TRUE(results.referenceNote().isEmpty());
  ReferenceLine line = referenceLineOf("oneDNN convolution", 265);
  line.origin = QStringLiteral("timed once, before the trials");
  data.setReference(line);
  EXPECT_TRUE(results.referenceNote().contains("(timed once, before the trials)"))
      << results.referenceNote().toStdString();
  EXPECT_TRUE(results.referenceNote().contains("busy machine"));
  // Shown at a size whose legend has room for the library's whole name (a narrow one names the
  // library alone, its whole description in the note and the tooltip).
  results.resize(1000, 600);
  results.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&results));
  results.trialsChart()->refresh(true);
  // The legend names the line alone: its origin pushed the library's name out.
  EXPECT_EQ(results.trialsChart()->referenceLegend(),
            QStringLiteral("265 GFLOP/s: oneDNN convolution"));

  SideBySideFigure side;
  side.library = QStringLiteral("oneDNN convolution");
  side.bestAlgorithm = QStringLiteral("ansor");
  side.rounds = side.roundsRun = side.roundsAsked = 5;
  side.bestSpeed = 239;
  side.referenceSpeed = 265;
  line.sideBySide = side;
  data.setReference(line);
  EXPECT_TRUE(results.referenceNote().startsWith(
      "Side by side after the trials, 5 rounds in turn: ansor's best 239.0 GFLOP/s, oneDNN "
      "convolution 265.0 GFLOP/s (0.90x)"))
      << results.referenceNote().toStdString();
}

// `opevo tune --resume 18 &`, then History's Resume of run 18: "The race failed: … being tuned
// by another process", the chart retitled "run 18 resumed" over nothing, and the status bar
// saying "run 18 not resumed" long after.
TEST(ResumeWalk, ARefusedResumeIsARefusalAndLeavesTheChartAsItWas) {
  MainWindow window;
  window.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  RunsPage* runs = window.runsPage();
  window.pages()->setCurrentWidget(runs);
  RunRecord run = deviceRun("opevo-m", 0, R"({"name": "c3", "kind": "conv2d"})");
  {
    Store store(Store::defaultPath());
    run.id = store.createRunWithTrials(run, {});
    store.setRunStatus(run.id, RunStatus::Interrupted);
  }
  RaceData::Info before;
  before.label = QStringLiteral("the race shown before");
  runs->data()->reset(before);
  const QString statusBefore = runs->datasetStatus()->text();
  // Held as another process holds it (this process: "here already"): refused before a trial.
  RunLock held(Store::defaultPath(), LockedKind::Run, run.id);
  ASSERT_TRUE(runs->resumeRun(run));
  ASSERT_TRUE(waitUntil([&] { return !runs->controller()->busy(); }, 30000));
  EXPECT_TRUE(runs->message().startsWith(QStringLiteral("Run %1 not resumed: ").arg(run.id)))
      << runs->message().toStdString();
  EXPECT_TRUE(runs->message().contains("being tuned")) << runs->message().toStdString();
  EXPECT_FALSE(runs->message().contains("failed")) << runs->message().toStdString();
  EXPECT_EQ(runs->data()->info().label, before.label);
  EXPECT_EQ(runs->datasetStatus()->text(), statusBefore);
}

}  // namespace
}  // namespace opevo::ui
