#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "gui_test_support.h"
#include "layout/tuning_mode.h"
#include "store/store.h"
#include "support/file_size_limit.h"
#include "ui/charts/race_chart_view.h"
#include "ui/charts/race_results_widget.h"
#include "ui/controller/race_data.h"
#include "ui/main_window.h"
#include "ui/models/history_model.h"
#include "ui/models/trials_model.h"
#include "ui/pages/history_page.h"
#include "ui/pages/runs_page.h"
#include "ui/widgets/algorithm_panel.h"
#include "ui/widgets/kernel_export_dialog.h"
#include "ui/widgets/more_trials_dialog.h"
#include "ui/widgets/race_setup_panel.h"

namespace opevo::ui {
namespace {

using test::waitUntil;

// Races measured for real on this machine's CPU (the backend every machine has), resumed from
// the History page, and exported from it: the window end to end, with the worker process, the
// compiler and OpenBLAS behind it.
class DeviceRaceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(m_dir.isValid());
    // Small enough that a trial (compile, verify against OpenBLAS, time) takes about a second.
    m_op = m_dir.filePath(QStringLiteral("mm96.json"));
    QFile file(m_op);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.write(R"({"name": "mm96", "kind": "matmul", "shape": {"n": 96, "m": 128, "k": 64}})");
    file.close();
    m_window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&m_window));
    m_window.pages()->setCurrentWidget(runs());
    m_tester = std::make_unique<QAbstractItemModelTester>(
        runs()->trialsModel(), QAbstractItemModelTester::FailureReportingMode::Warning);
  }
  void TearDown() override {
    runs()->stop();
    waitUntil([&] { return !runs()->controller()->busy(); }, 60000);
    m_tester.reset();
    EXPECT_TRUE(m_warnings.messages().isEmpty()) << m_warnings.messages().join('\n').toStdString();
  }

  RunsPage* runs() { return m_window.runsPage(); }
  RaceSetupPanel* setup() { return runs()->setup(); }
  HistoryPage* history() { return m_window.historyPage(); }
  void prepareCpuRace(const QStringList& algorithms, int trials) {
    ASSERT_TRUE(setup()->setBackend(QStringLiteral("cpu")));
    setup()->addOperatorFile(m_op);
    setup()->algorithmPanel()->setChecked(algorithms);
    setup()->setRepeats(1);
    setup()->setTrials(trials);
    // The probe runs off the GUI thread; until it answers a device race waits.
    ASSERT_TRUE(waitUntil(
        [&] {
          QString problem;
          setup()->spec(&problem);
          return !problem.startsWith(QStringLiteral("Still looking"));
        },
        60000));
  }
  bool raceEnded(int timeoutMs = 180000) {
    return waitUntil([&] { return !runs()->controller()->busy(); }, timeoutMs);
  }
  std::vector<RunRecord> storedRuns() { return Store(Store::defaultPath()).runs(); }
  int historyRowOf(std::int64_t runId) {
    for (int r = 0; r < history()->model()->rowCount(); ++r)
      if (history()->model()->row(r).run.id == runId) return r;
    return -1;
  }

  test::ModelTestFailures m_warnings;
  QTemporaryDir m_dir;
  QString m_op;
  MainWindow m_window;
  std::unique_ptr<QAbstractItemModelTester> m_tester;
};

// A depthwise convolution on the CPU's loop template (a channel at a time, 0.2-0.3x oneDNN on
// MobileNetV2's large layers) says which template vectorises it.
TEST_F(DeviceRaceTest, ADepthwiseConvolutionOnTheLoopTemplateNamesTheJointOne) {
  m_op = m_dir.filePath(QStringLiteral("dw16.json"));
  QFile file(m_op);
  ASSERT_TRUE(file.open(QIODevice::WriteOnly));
  file.write(R"({"name": "dw16", "kind": "conv2d", "shape": {"batch": 1, "in_channels": 16,
      "height": 10, "width": 10, "out_channels": 16, "kernel_h": 3, "kernel_w": 3, "stride": 1,
      "pad": 1, "groups": 16}})");
  file.close();
  prepareCpuRace({QStringLiteral("random")}, 2);
  // The note of the race's start (the one at its end says the library's timing instead).
  QStringList said;
  QObject::connect(runs(), &RunsPage::statusMessage, [&](const QString& text) { said << text; });
  ASSERT_TRUE(runs()->start()) << runs()->message().toStdString();
  ASSERT_TRUE(raceEnded());
  EXPECT_TRUE(said.join('\n').contains(
      QStringLiteral("\"Layouts and loops (ALT joint)\" vectorises it across channels")))
      << said.join('\n').toStdString();
}

// A race whose every trial failed drew flat lines at zero and said "Race finished: 2 trials.":
// its note now says that none worked and why, counted as `opevo tune` counts them. A compiler
// that builds the toolchain's probe and refuses every kernel fails each trial.
TEST_F(DeviceRaceTest, ARaceWhoseEveryTrialFailedSaysSo) {
  // The compiler the machine builds with (OPEVO_CXX where set) compiles the probe.
  const QByteArray before = qgetenv("OPEVO_CXX");
  const QString compiler = m_dir.filePath(QStringLiteral("refusing-c++"));
  QFile script(compiler);
  ASSERT_TRUE(script.open(QIODevice::WriteOnly));
  script.write("#!/bin/sh\nfor a in \"$@\"; do case \"$a\" in *opevo_toolchain_probe*) exec '" +
               (before.isEmpty() ? QByteArray("c++") : before) +
               "' \"$@\";; esac; done\necho 'kernel refused' >&2; exit 1\n");
  script.close();
  ASSERT_TRUE(script.setPermissions(script.permissions() | QFileDevice::ExeOwner));
  prepareCpuRace({QStringLiteral("random")}, 2);
  QStringList said;
  QObject::connect(runs(), &RunsPage::statusMessage, [&](const QString& text) { said << text; });
  qputenv("OPEVO_CXX", compiler.toUtf8());
  const bool started = runs()->start();
  // Ended (or stopped) before the compiler is restored: a race left running would build on.
  const bool ended = started && raceEnded();
  if (!ended) {
    runs()->stop();
    raceEnded(60000);
  }
  if (before.isEmpty())
    qunsetenv("OPEVO_CXX");
  else
    qputenv("OPEVO_CXX", before);
  ASSERT_TRUE(started) << runs()->message().toStdString();
  ASSERT_TRUE(ended);
  EXPECT_TRUE(said.join('\n').contains(
      QStringLiteral("Race finished: 2 trials. None of its 2 trials worked: 2 did not compile.")))
      << said.join('\n').toStdString();
}

TEST_F(DeviceRaceTest, ACpuRaceMeasuresVerifiedKernelsBesideOpenBlas) {
  prepareCpuRace({QStringLiteral("opevo"), QStringLiteral("random")}, 10);
  ASSERT_TRUE(runs()->start()) << runs()->message().toStdString();
  test::StallProbe probe;
  ASSERT_TRUE(raceEnded());
  std::printf(
      "[ stall    ] longest GUI-thread gap during a CPU-backend race of %d trials: %lld ms\n",
      static_cast<int>(runs()->data()->trials().size()), static_cast<long long>(probe.longestMs()));
  RecordProperty("longest_gui_stall_cpu_ms", static_cast<int>(probe.longestMs()));
  EXPECT_TRUE(runs()->message().isEmpty()) << runs()->message().toStdString();
  const RaceData& data = *runs()->data();
  ASSERT_EQ(data.trials().size(), 20u);
  EXPECT_FALSE(data.runsOf(0).empty());
  EXPECT_FALSE(data.runsOf(1).empty());
  // The two runs take turns on the CPU batch by batch (8 trials, then 2 each): both curves grow
  // together, in the order the engine measured them.
  std::vector<int> turns;
  for (std::size_t i = 0; i < data.trials().size(); ++i) {
    EXPECT_EQ(data.trials()[i].order, static_cast<long long>(i + 1));
    if (turns.empty() || turns.back() != data.trials()[i].algorithm)
      turns.push_back(data.trials()[i].algorithm);
  }
  EXPECT_EQ(turns, (std::vector<int>{0, 1, 0, 1}));
  int ok = 0;
  for (const TrialPoint& t : data.trials()) ok += t.status == TrialStatus::Ok;
  EXPECT_GE(ok, 1);
  // The vendor library's line, and the device's own description in the chart's label.
  ASSERT_TRUE(data.info().reference.has_value());
  EXPECT_EQ(data.info().reference->name, QStringLiteral("OpenBLAS sgemm"));
  EXPECT_GT(data.info().reference->speed, 0);
  // Its legend gives the speed before the name, which the legend elides from the end.
  runs()->results()->trialsChart()->refresh(true);
  EXPECT_TRUE(runs()->results()->trialsChart()->referenceLegend().endsWith(
      QStringLiteral(" GFLOP/s: OpenBLAS sgemm")))
      << runs()->results()->trialsChart()->referenceLegend().toStdString();
  // Once finished, its best kernels and the library were timed in turns (as `opevo tune` does):
  // the ratio is in the note that ends the race and under the chart, beside what the line is.
  ASSERT_TRUE(data.info().reference->sideBySide.has_value());
  EXPECT_GT(data.info().reference->sideBySide->ratio(), 0);
  EXPECT_EQ(data.info().reference->sideBySide->roundsRun, 5);
  EXPECT_TRUE(runs()->note().contains(QStringLiteral("Side by side after the trials, 5 rounds")))
      << runs()->note().toStdString();
  EXPECT_TRUE(runs()->results()->referenceNote().contains(QStringLiteral("x). The dashed line is")))
      << runs()->results()->referenceNote().toStdString();
  EXPECT_TRUE(data.info().label.contains(QStringLiteral("mm96")))
      << data.info().label.toStdString();
  EXPECT_TRUE(data.info().label.contains(QStringLiteral("real measurements")));
  // The CPU's unit, as the store keeps the runs (0.05 TFLOPS read as nothing).
  EXPECT_EQ(data.info().speedUnit, QStringLiteral("GFLOP/s"));
  // Both runs are in the store as CPU runs of the operator, and a CLI resume could read them.
  int cpuRuns = 0;
  for (const RunRecord& r : storedRuns())
    if (r.backend == "cpu" && r.operatorName == "mm96" && r.status == RunStatus::Finished)
      ++cpuRuns;
  EXPECT_GE(cpuRuns, 2);
  // The side-by-side figure is kept with the run whose kernel it timed (History and `opevo show`
  // give it later): the window's races kept none, so a lucky timing was the run's only figure.
  // (This race's runs alone: run in one process, the suite's other races share the database.)
  int kept = 0;
  for (const RunRecord& r : storedRuns())
    if (r.operatorName == "mm96" && !r.sideBySideJson.empty()) {
      ++kept;
      const auto side = nlohmann::json::parse(r.sideBySideJson);
      EXPECT_EQ(side["rounds_asked"], 5) << r.sideBySideJson;
      EXPECT_NEAR(side["ratio"].get<double>(), data.info().reference->sideBySide->ratio(), 1e-9);
      EXPECT_EQ(side["library"].get<std::string>().rfind("OpenBLAS sgemm", 0), 0u)
          << r.sideBySideJson;
    }
  EXPECT_EQ(kept, 1);
}

TEST_F(DeviceRaceTest, AnUnavailableBackendIsRefusedNamingTheOnesThereAre) {
  prepareCpuRace({QStringLiteral("opevo")}, 3);
  ASSERT_TRUE(setup()->setBackend(QStringLiteral("hip")));  // no AMD GPU on the test machines
  EXPECT_FALSE(runs()->start());
  EXPECT_FALSE(runs()->controller()->busy());
  EXPECT_TRUE(runs()->message().contains(QStringLiteral("not available")))
      << runs()->message().toStdString();
  EXPECT_TRUE(runs()->message().contains(QStringLiteral("cpu"))) << runs()->message().toStdString();
  EXPECT_TRUE(runs()->startAction()->isEnabled());
}

TEST_F(DeviceRaceTest, AnOperatorFileThatIsWrongIsRefusedByName) {
  const QString bad = m_dir.filePath(QStringLiteral("typo.json"));
  QFile file(bad);
  ASSERT_TRUE(file.open(QIODevice::WriteOnly));
  file.write(R"({"kind": "matmul", "shape": {"n": 4, "m": 4, "kk": 4}})");
  file.close();
  prepareCpuRace({QStringLiteral("opevo")}, 3);
  setup()->addOperatorFile(bad);
  EXPECT_FALSE(runs()->start());
  EXPECT_TRUE(runs()->message().contains(QStringLiteral("kk"))) << runs()->message().toStdString();
}

// Winograd's template races on the CPU; an operator it does not take is refused with the reason
// before anything starts.
TEST_F(DeviceRaceTest, WinogradIsRefusedWhereItCannotRun) {
  prepareCpuRace({QStringLiteral("opevo")}, 3);
  ASSERT_TRUE(setup()->setMode(QStringLiteral("winograd")));
  ASSERT_TRUE(setup()->setOperator(QStringLiteral("C1")));
  EXPECT_FALSE(runs()->start());
  EXPECT_TRUE(runs()->message().contains(QStringLiteral("stride 4")))
      << runs()->message().toStdString();
  EXPECT_FALSE(runs()->controller()->busy());
  ASSERT_TRUE(setup()->setOperator(QStringLiteral("resnet18_conv2_b1")));
  QString problem;
  const auto spec = setup()->spec(&problem);
  ASSERT_TRUE(spec) << problem.toStdString();
  EXPECT_EQ(spec->target, SpaceTarget::Winograd);
  EXPECT_EQ(spec->mode, layout::TuningMode::Loop);
  EXPECT_TRUE(setup()->setMode(QStringLiteral("loop")));
  EXPECT_FALSE(setup()->setMode(QStringLiteral("layouts")));
}

// The matrix-vector template races on the CPU: MM1 (B stored k x m) is refused with the reason, a
// dense layer at batch 1 runs its verified kernels and stores the run in that template's space.
TEST_F(DeviceRaceTest, MatVecRacesADenseLayerAndRefusesAMatrixProduct) {
  prepareCpuRace({QStringLiteral("opevo")}, 3);
  ASSERT_TRUE(setup()->setMode(QStringLiteral("matvec")));
  ASSERT_TRUE(setup()->setOperator(QStringLiteral("MM1")));
  EXPECT_FALSE(runs()->start());
  EXPECT_TRUE(runs()->message().contains(QStringLiteral("stored k x m")))
      << runs()->message().toStdString();
  ASSERT_TRUE(setup()->setOperator(QStringLiteral("alexnet_fc8_b1")));
  ASSERT_TRUE(runs()->start()) << runs()->message().toStdString();
  ASSERT_TRUE(raceEnded());
  ASSERT_EQ(runs()->data()->trials().size(), 3u);
  for (const TrialPoint& t : runs()->data()->trials()) EXPECT_EQ(t.status, TrialStatus::Ok);
  bool stored = false;
  for (const RunRecord& r : storedRuns())
    stored |= r.operatorName == "alexnet_fc8_b1" &&
              r.operatorJson.find("\"target\":\"matvec\"") != std::string::npos;
  EXPECT_TRUE(stored) << [&] {
    std::string all;
    for (const RunRecord& r : storedRuns()) all += r.operatorName + " " + r.operatorJson + "\n";
    return all;
  }();
}

TEST_F(DeviceRaceTest, AStoppedRunResumesFromHistoryWithoutMeasuringAgain) {
  // A budget well above the 2 trials waited for: the measurer delivers trials in bursts, and a
  // budget of 6 was sometimes all measured before the stop arrived.
  constexpr std::size_t kBudget = 16;
  prepareCpuRace({QStringLiteral("opevo")}, static_cast<int>(kBudget));
  ASSERT_TRUE(runs()->start());
  ASSERT_TRUE(waitUntil([&] { return runs()->data()->trials().size() >= 2; }, 120000));
  runs()->stop();
  ASSERT_TRUE(raceEnded());
  const std::size_t before = runs()->data()->trials().size();
  ASSERT_LT(before, kBudget);
  std::int64_t runId = 0;
  for (const RunRecord& r : storedRuns())
    if (r.status == RunStatus::Interrupted && r.operatorName == "mm96")
      runId = std::max(runId, r.id);
  ASSERT_GT(runId, 0);

  m_window.pages()->setCurrentWidget(history());
  history()->reload();
  ASSERT_TRUE(waitUntil([&] { return !history()->busy() && historyRowOf(runId) >= 0; }, 20000));
  const int row = historyRowOf(runId);
  history()->view()->setCurrentIndex(history()->model()->index(row, 0));
  ASSERT_TRUE(history()->resumeButton()->isEnabled());
  history()->resumeButton()->click();
  EXPECT_EQ(m_window.pages()->currentWidget(), runs());
  EXPECT_TRUE(runs()->controller()->busy()) << runs()->message().toStdString();
  ASSERT_TRUE(raceEnded());
  EXPECT_TRUE(runs()->message().isEmpty()) << runs()->message().toStdString();
  // The curve holds the stored trials and the new ones: the whole budget, each measured once.
  EXPECT_EQ(runs()->data()->trials().size(), kBudget);
  Store store(Store::defaultPath());
  const auto trials = store.trials(runId);
  ASSERT_EQ(trials.size(), kBudget);
  for (std::size_t i = 0; i < trials.size(); ++i) EXPECT_EQ(trials[i].seq, static_cast<int>(i + 1));
  EXPECT_EQ(store.run(runId)->status, RunStatus::Finished);
  history()->reload();
  ASSERT_TRUE(waitUntil([&] { return !history()->busy() && historyRowOf(runId) >= 0; }, 20000));
  history()->view()->setCurrentIndex(history()->model()->index(historyRowOf(runId), 0));
  EXPECT_FALSE(history()->resumeButton()->isEnabled());  // finished: nothing to resume
}

TEST_F(DeviceRaceTest, TheBestKernelIsPreviewedAndExportedFromHistory) {
  prepareCpuRace({QStringLiteral("random")}, 2);
  ASSERT_TRUE(runs()->start());
  ASSERT_TRUE(raceEnded());
  std::int64_t runId = 0;
  for (const RunRecord& r : storedRuns())
    if (r.operatorName == "mm96" && r.algorithm == "random") runId = std::max(runId, r.id);
  ASSERT_GT(runId, 0);
  m_window.pages()->setCurrentWidget(history());
  history()->reload();
  ASSERT_TRUE(waitUntil([&] { return !history()->busy() && historyRowOf(runId) >= 0; }, 20000));
  history()->view()->setCurrentIndex(history()->model()->index(historyRowOf(runId), 0));
  ASSERT_TRUE(history()->exportButton()->isEnabled());
  history()->exportCurrent();
  auto* dialog = history()->findChild<KernelExportDialog*>();
  ASSERT_NE(dialog, nullptr);
  const QString source = dialog->sourceView()->toPlainText();
  EXPECT_TRUE(source.contains(QStringLiteral("opevo_cpu_kernel")))
      << source.left(400).toStdString();
  EXPECT_TRUE(source.contains(QStringLiteral("Configuration:")));
  // The same configuration written for CUDA, said to be unmeasured there.
  dialog->backendBox()->setCurrentIndex(dialog->backendBox()->findData(QStringLiteral("cuda")));
  EXPECT_TRUE(dialog->sourceView()->toPlainText().contains(QStringLiteral("__global__")));
  EXPECT_TRUE(dialog->sourceView()->toPlainText().contains(QStringLiteral("not measured there")));
  dialog->backendBox()->setCurrentIndex(dialog->backendBox()->findData(QStringLiteral("cpu")));
  const QString out = m_dir.filePath(QStringLiteral("export"));
  dialog->folderEdit()->setText(out);
  // Written off the GUI thread: the outcome is a signal.
  QSignalSpy exported(dialog, &KernelExportDialog::exported);
  QSignalSpy failed(dialog, &KernelExportDialog::failed);
  dialog->exportNow();
  ASSERT_TRUE(waitUntil([&] { return !dialog->busy(); }, 30000));
  ASSERT_EQ(exported.size(), 1) << dialog->message().toStdString();
  for (const char* f :
       {"kernel.cpp", "config.h", "record.json", "check.cpp", "build.sh", "trials.csv"})
    EXPECT_TRUE(QFileInfo::exists(QDir(out).filePath(QString::fromLatin1(f)))) << f;
  EXPECT_TRUE(dialog->message().contains(QStringLiteral("build.sh")))
      << dialog->message().toStdString();
  // A folder that cannot be made is refused with the reason, and the dialog stays usable.
  QFile blocker(m_dir.filePath(QStringLiteral("blocker")));
  ASSERT_TRUE(blocker.open(QIODevice::WriteOnly));
  blocker.close();
  dialog->folderEdit()->setText(m_dir.filePath(QStringLiteral("blocker/inside")));
  dialog->exportNow();
  ASSERT_TRUE(waitUntil([&] { return !dialog->busy(); }, 30000));
  EXPECT_EQ(failed.size(), 1);
  EXPECT_TRUE(dialog->message().contains(QStringLiteral("failed")))
      << dialog->message().toStdString();
  EXPECT_TRUE(dialog->findChild<QPushButton*>(QStringLiteral("exportButton"))->isEnabled());
  // A full disk: the file and the reason are said, and none of the export's files is left in the
  // folder.
  const QString full = m_dir.filePath(QStringLiteral("full"));
  ASSERT_TRUE(QDir().mkpath(full));
  const auto namesLeft = [&] {
    return QDir(full)
        .entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::System | QDir::Hidden)
        .join(' ')
        .toStdString();
  };
  // The export reads the run on a connection of its own: the store held open here keeps SQLite's
  // shared-memory index in place, so that the full disk meets the export's files, not the index.
  const Store held(Store::defaultPath());
  {
    const opevo::test::FileSizeLimit noRoom(0);
    dialog->folderEdit()->setText(full);
    dialog->exportNow();
    ASSERT_TRUE(waitUntil([&] { return !dialog->busy(); }, 30000));
  }
  EXPECT_EQ(failed.size(), 2);
  EXPECT_TRUE(dialog->message().contains(QDir(full).filePath("")) &&
              dialog->message().contains(QStringLiteral("': File too large")))
      << dialog->message().toStdString();
  EXPECT_EQ(namesLeft(), "");
  // Closed while writing: a failure keeps it open with its reason; a success closes it once the
  // files are in place (closed at once, its outcome was dropped unseen).
  {
    const opevo::test::FileSizeLimit noRoom(0);
    dialog->exportNow();
    dialog->reject();
    EXPECT_TRUE(dialog->isVisible());
    ASSERT_TRUE(waitUntil([&] { return !dialog->busy(); }, 30000));
  }
  EXPECT_TRUE(dialog->isVisible()) << dialog->message().toStdString();
  EXPECT_EQ(failed.size(), 3);
  EXPECT_EQ(namesLeft(), "");
  const QPointer<KernelExportDialog> open(dialog);  // deleted on close
  dialog->folderEdit()->setText(m_dir.filePath(QStringLiteral("later")));
  dialog->exportNow();
  dialog->reject();
  ASSERT_TRUE(waitUntil([&] { return !open || !open->isVisible(); }, 30000));
  EXPECT_TRUE(QFileInfo::exists(m_dir.filePath(QStringLiteral("later/kernel.cpp"))));
  if (open) open->close();
}

}  // namespace
}  // namespace opevo::ui

namespace opevo::ui {
namespace {

// The loops over plain layouts against ALT's layouts and loops in one race: each space's runs on
// an engine of their own, taking turns on the CPU, stored as one race, drawn as two curves named
// by their space, and resumed together from History after a stop.
TEST_F(DeviceRaceTest, LoopsAgainstLayoutsAndLoopsTakeTurnsAndResumeAsOneRace) {
  // OpEvo's batches are of 8: the loops' first batch, then the joint space's, long before either
  // has its 16.
  constexpr std::size_t kBudget = 16;
  prepareCpuRace({QStringLiteral("opevo")}, static_cast<int>(kBudget));
  ASSERT_TRUE(setup()->setMode(QStringLiteral("loop+joint")));
  ASSERT_TRUE(runs()->start()) << runs()->message().toStdString();
  EXPECT_EQ(runs()->data()->info().algorithms,
            (QStringList{QStringLiteral("opevo (loop)"), QStringLiteral("opevo (joint)")}));
  // Both spaces have begun before either is done: they take turns, batch by batch.
  ASSERT_TRUE(waitUntil(
      [&] {
        const auto& trials = runs()->data()->trials();
        return std::any_of(trials.begin(), trials.end(), [](auto& t) { return t.algorithm == 1; });
      },
      180000));
  runs()->stop();
  ASSERT_TRUE(raceEnded());
  const auto before = runs()->data()->trials();
  ASSERT_LT(before.size(), 2 * kBudget);
  EXPECT_EQ(before.front().algorithm, 0);
  // The joint stage's line is named for the joint curves: the loop curves beside it have none.
  runs()->results()->trialsChart()->refresh(true);
  QStringList names;
  for (const QAbstractSeries* s : runs()->results()->trialsChart()->chart()->series())
    names << s->name();
  EXPECT_TRUE(names.join('\n').contains(QStringLiteral("joint: layouts fixed after trial")))
      << names.join('\n').toStdString();
  // Turns, not one space after the other: the joint space began before the loops had their 16.
  const auto firstJoint =
      std::find_if(before.begin(), before.end(), [](auto& t) { return t.algorithm == 1; });
  ASSERT_NE(firstJoint, before.end());
  EXPECT_LT(firstJoint - before.begin(), static_cast<std::ptrdiff_t>(kBudget));
  for (std::size_t i = 0; i < before.size(); ++i)
    EXPECT_EQ(before[i].order, static_cast<long long>(i + 1));  // one order across the spaces

  // Stored as one race of two runs, one per space.
  std::vector<RunRecord> race;
  for (const RunRecord& r : storedRuns())
    if (r.operatorName == "mm96" && r.status == RunStatus::Interrupted) race.push_back(r);
  ASSERT_EQ(race.size(), 2u);
  EXPECT_NE(race[0].raceId, 0);
  EXPECT_EQ(race[0].raceId, race[1].raceId);
  EXPECT_EQ(layout::runModeName(race[0].operatorJson), "loop");
  EXPECT_EQ(layout::runModeName(race[1].operatorJson), "joint");

  // Resumed from History: both spaces go on, each on its own space, to the whole budget.
  m_window.pages()->setCurrentWidget(history());
  history()->reload();
  ASSERT_TRUE(
      waitUntil([&] { return !history()->busy() && historyRowOf(race[1].id) >= 0; }, 20000));
  history()->view()->setCurrentIndex(history()->model()->index(historyRowOf(race[1].id), 0));
  ASSERT_TRUE(history()->selectRaceButton()->isEnabled());
  history()->selectRaceButton()->click();
  ASSERT_TRUE(history()->resumeButton()->isEnabled());
  history()->resumeButton()->click();
  EXPECT_EQ(m_window.pages()->currentWidget(), runs());
  ASSERT_TRUE(raceEnded());
  EXPECT_TRUE(runs()->message().isEmpty()) << runs()->message().toStdString();
  EXPECT_EQ(runs()->data()->info().algorithms,
            (QStringList{QStringLiteral("opevo (loop)"), QStringLiteral("opevo (joint)")}));
  EXPECT_EQ(runs()->data()->trials().size(), 2 * kBudget);
  // The greyed form shows the race as it runs, so Start afterwards races both spaces again.
  EXPECT_EQ(setup()->algorithmPanel()->checkedNames(), QStringList{QStringLiteral("opevo")});
  EXPECT_EQ(setup()->findChild<QComboBox*>(QStringLiteral("modeBox"))->currentData().toString(),
            QStringLiteral("loop+joint"));
  Store store(Store::defaultPath());
  std::set<long long> orders;
  for (const RunRecord& r : race) {
    const auto trials = store.trials(r.id);
    ASSERT_EQ(trials.size(), kBudget) << "run " << r.id;
    for (std::size_t i = 0; i < trials.size(); ++i) {
      EXPECT_EQ(trials[i].seq, static_cast<int>(i + 1));
      orders.insert(trials[i].order);
    }
    EXPECT_EQ(store.run(r.id)->status, RunStatus::Finished);
  }
  EXPECT_EQ(orders.size(), 2 * kBudget);  // no order taken twice, before the stop or after
}

// A run of a race across spaces given more trials alone, its race-mate finished: its curve keeps
// its space's name, as History names it ("random (joint)"), not the algorithm's alone.
TEST_F(DeviceRaceTest, ARunOfARaceAcrossSpacesGoesOnAloneUnderItsSpacesName) {
  prepareCpuRace({QStringLiteral("random")}, 2);
  ASSERT_TRUE(setup()->setMode(QStringLiteral("loop+joint")));
  // Shuffled: the race across spaces keeps its schedule and seed, as a race in one space does.
  auto* turns = setup()->findChild<QComboBox*>(QStringLiteral("scheduleBox"));
  ASSERT_NE(turns, nullptr);
  turns->setCurrentIndex(turns->findData(static_cast<int>(Schedule::Shuffle)));
  const int seed = setup()->findChild<QSpinBox*>(QStringLiteral("seedSpin"))->value();
  ASSERT_TRUE(runs()->start()) << runs()->message().toStdString();
  ASSERT_TRUE(raceEnded());
  std::optional<RunRecord> joint;
  for (const RunRecord& r : storedRuns())
    if (r.operatorName == "mm96" && layout::runModeName(r.operatorJson) == "joint") joint = r;
  ASSERT_TRUE(joint);
  ASSERT_EQ(joint->status, RunStatus::Finished);
  EXPECT_EQ(joint->raceSchedule, Schedule::Shuffle);
  EXPECT_EQ(joint->raceScheduleSeed, static_cast<std::uint64_t>(seed));

  m_window.pages()->setCurrentWidget(history());
  history()->reload();
  ASSERT_TRUE(waitUntil([&] { return !history()->busy() && historyRowOf(joint->id) >= 0; }, 20000));
  history()->view()->setCurrentIndex(history()->model()->index(historyRowOf(joint->id), 0));
  EXPECT_EQ(history()->raceMatesOf({*joint}).size(), 1u);  // the loop run
  MoreTrialsDialog* dialog = history()->moreTrialsForSelected();
  ASSERT_NE(dialog, nullptr);
  auto* total = dialog->totalBox()->findChild<QLineEdit*>();
  ASSERT_NE(total, nullptr);
  total->selectAll();
  QTest::keyClicks(dialog->totalBox(), QStringLiteral("3"));
  ASSERT_TRUE(dialog->continueButton()->isEnabled()) << dialog->message().toStdString();
  dialog->continueButton()->click();
  ASSERT_TRUE(waitUntil([&] { return runs()->controller()->busy(); }, 20000));
  ASSERT_TRUE(raceEnded());
  EXPECT_TRUE(runs()->message().isEmpty()) << runs()->message().toStdString();
  EXPECT_EQ(runs()->data()->info().algorithms, QStringList{QStringLiteral("random (joint)")});
  EXPECT_EQ(Store(Store::defaultPath()).trials(joint->id).size(), 3u);
  // The greyed form shows the race it goes on, under its schedule.
  EXPECT_EQ(turns->currentData().toInt(), static_cast<int>(Schedule::Shuffle));
  // The engine names it so too: the side-by-side figure after the trials.
  EXPECT_TRUE(runs()->results()->referenceNote().contains(QStringLiteral("random (joint)'s best")))
      << runs()->results()->referenceNote().toStdString();
}

}  // namespace
}  // namespace opevo::ui
