#include <gtest/gtest.h>

#include <QAbstractAxis>
#include <QChart>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QValueAxis>
#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "engine/device_time.h"
#include "gui_test_support.h"
#include "io/run_import.h"
#include "store/history.h"
#include "store/store.h"
#include "ui/charts/race_chart_view.h"
#include "ui/charts/race_results_widget.h"
#include "ui/controller/race_data.h"
#include "ui/main_window.h"
#include "ui/models/trials_model.h"
#include "ui/pages/history_page.h"
#include "ui/pages/runs_page.h"
#include "ui/widgets/algorithm_panel.h"
#include "ui/widgets/dataset_picker.h"
#include "ui/widgets/race_setup_panel.h"

// The window's races on a replay say what their trials cost the device by the file, as `opevo
// compare` prints it, and a replay's time budget is that device time; a race on this machine's
// CPU keeps its tuning time. The whole window, driven as a user drives it, on a real store.
namespace opevo::ui {
namespace {

using test::waitUntil;

const QString kGemm = QStringLiteral(OPEVO_DATASETS_DIR "/gemm/RTX_2080_Ti.json.gz");

class RaceDeviceTimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&m_window));
    m_window.pages()->setCurrentWidget(runs());
    for (const RunRecord& r : storedRuns()) m_before.insert(r.id);
  }
  void TearDown() override {
    runs()->stop();
    waitUntil([&] { return !runs()->controller()->busy(); }, 60000);
  }

  RunsPage* runs() { return m_window.runsPage(); }
  RaceSetupPanel* setup() { return runs()->setup(); }
  HistoryPage* history() { return m_window.historyPage(); }
  std::vector<RunRecord> storedRuns() { return Store(Store::defaultPath()).runs(); }
  // The runs this test's race stored.
  std::vector<RunRecord> newRuns() {
    std::vector<RunRecord> out;
    for (const RunRecord& r : storedRuns())
      if (!m_before.count(r.id)) out.push_back(r);
    return out;
  }
  bool raceEnded(int timeoutMs = 180000) {
    return waitUntil([&] { return !runs()->controller()->busy(); }, timeoutMs);
  }
  void prepareReplay(const QStringList& algorithms, int repeats, int paceMs) {
    setup()->datasetPicker()->load(kGemm);
    ASSERT_TRUE(waitUntil([&] { return !setup()->datasetPicker()->loading(); }, 60000));
    ASSERT_TRUE(setup()->datasetPicker()->dataset());
    setup()->algorithmPanel()->setChecked(algorithms);
    setup()->setRepeats(repeats);
    setup()->setPaceMs(paceMs);
  }
  // A time budget alone, as a user ticks it: Trials unticked, Time ticked.
  void timeBudgetOnly(double seconds) {
    auto* useTrials = setup()->findChild<QCheckBox*>(QStringLiteral("useTrials"));
    ASSERT_NE(useTrials, nullptr);
    useTrials->setChecked(false);
    setup()->setSeconds(seconds);
  }
  // What the stored trials of a run cost the device by the file: compile_ms + measure_ms of each,
  // the sum `opevo compare` and `opevo show` print.
  static std::vector<double> deviceSecondsOf(const std::vector<TrialRow>& trials) {
    std::vector<double> sums;
    double ms = 0;
    for (const TrialRow& t : trials) {
      ms += t.compileMs + t.measureMs;
      sums.push_back(ms / 1e3);
    }
    return sums;
  }

  // Each run's curve in time ends at its device time by the file, and the chart and its tab say
  // so.
  void expectTimedByTheFile(RaceResultsWidget* results, const RaceData* data,
                            const std::vector<RunRecord>& stored) {
    EXPECT_EQ(data->clock(), RaceData::Clock::DeviceByFile);
    Store store(Store::defaultPath());
    for (const RunRecord& r : stored) {
      const int a =
          static_cast<int>(data->info().algorithms.indexOf(QString::fromStdString(r.algorithm)));
      ASSERT_GE(a, 0) << r.algorithm;
      const double device = deviceSecondsOf(store.trials(r.id)).back();
      EXPECT_NEAR(data->curve(a, r.raceRepeat).lastSeconds, device, 1e-9 * device) << r.id;
    }
    QTabWidget* tabs = results->tabs();
    EXPECT_EQ(tabs->tabText(tabs->indexOf(results->timeChart())), QStringLiteral("vs device time"));
    QChart* chart = results->timeChart()->chart();
    EXPECT_TRUE(chart->title().contains(QStringLiteral("Best speed vs device time by the file")))
        << chart->title().toStdString();
    EXPECT_EQ(chart->axes(Qt::Horizontal).value(0)->titleText(),
              QStringLiteral("Device time by the file (s)"));
  }

  MainWindow m_window;
  std::set<std::int64_t> m_before;
};

// Two algorithms, two repeats each: under the charts each algorithm's mean device time over its
// runs, in compare's spelling (deviceTimeText), each run's in the tooltip, the same on the
// History page once the race is stored.
TEST_F(RaceDeviceTimeTest, AReplayRaceShowsEachRunsDeviceTimeByTheFile) {
  prepareReplay({QStringLiteral("random"), QStringLiteral("opevo")}, 2, 0);
  setup()->setTrials(30);
  ASSERT_TRUE(runs()->start()) << runs()->message().toStdString();
  ASSERT_TRUE(raceEnded());
  runs()->results()->refreshNow();

  const std::vector<RunRecord> stored = newRuns();
  ASSERT_EQ(stored.size(), 4u);
  Store store(Store::defaultPath());
  const QStringList algorithms = runs()->data()->info().algorithms;
  std::map<std::string, std::vector<double>> byAlgorithm;
  QStringList each;
  for (const RunRecord& r : stored) {
    const std::vector<double> sums = deviceSecondsOf(store.trials(r.id));
    ASSERT_EQ(sums.size(), 30u);
    ASSERT_GT(sums.back(), 0);
    byAlgorithm[r.algorithm].push_back(sums.back());
    each << QStringLiteral("%1, repeat %2: %3")
                .arg(QString::fromStdString(r.algorithm))
                .arg(r.raceRepeat + 1)
                .arg(QString::fromStdString(deviceTimeText(sums.back())));
  }
  QStringList means;
  for (const QString& a : algorithms) {
    const std::vector<double>& v = byAlgorithm.at(a.toStdString());
    ASSERT_EQ(v.size(), 2u);
    means << a + QLatin1Char(' ') +
                 QString::fromStdString(deviceTimeText((v[0] + v[1]) / double(v.size())));
  }
  const QString expected =
      QStringLiteral("Device time by the file, mean over the runs: ") + means.join(", ");
  EXPECT_EQ(runs()->results()->deviceTimeText(), expected);
  const QString tip = runs()->results()->deviceTimeToolTip();
  for (const QString& run : each) EXPECT_TRUE(tip.contains(run)) << tip.toStdString();
  EXPECT_TRUE(tip.contains(QStringLiteral("Kernel Tuner's simulation mode"))) << tip.toStdString();
  // The time chart's x is that device time too, the clock of its budget: a replay's own
  // bookkeeping took a fraction of a second, which drew the faster tuner as the better one.
  expectTimedByTheFile(runs()->results(), runs()->data(), stored);
  // The trials table's time is the chart's: the last trial's, its run's device time so far.
  TrialsModel* table = runs()->trialsModel();
  const int last = table->rowCount() - 1;
  ASSERT_GE(last, 0);
  const TrialPoint& point = runs()->data()->trials().back();
  ASSERT_TRUE(point.deviceSeconds);
  EXPECT_DOUBLE_EQ(
      table->index(last, TrialsModel::TimeColumn).data(TrialsModel::RawRole).toDouble(),
      *point.deviceSeconds);

  // Reopened from the store: the same line, from the stored trials' compile_ms + measure_ms.
  m_window.pages()->setCurrentWidget(history());
  history()->reload();
  ASSERT_TRUE(waitUntil([&] { return !history()->busy(); }, 30000));
  std::vector<std::int64_t> ids;
  for (const RunRecord& r : stored) ids.push_back(r.id);
  ASSERT_TRUE(history()->selectRuns(ids).empty());
  ASSERT_TRUE(waitUntil([&] { return !history()->busy(); }, 30000));
  history()->results()->refreshNow();
  EXPECT_EQ(history()->results()->deviceTimeText(), expected);
  expectTimedByTheFile(history()->results(), history()->data(), stored);
}

// A replay's time budget in the window ("Time N s per run") is its device time by the file: the
// run ends on the trial whose device time reaches it, not after N seconds of this machine's time
// (at 20 ms a trial, 60 s of tuning time would have been some 3000 trials, not about 40).
TEST_F(RaceDeviceTimeTest, AReplaysTimeBudgetIsItsDeviceTime) {
  prepareReplay({QStringLiteral("random")}, 1, 20);
  timeBudgetOnly(60);
  ASSERT_TRUE(runs()->start()) << runs()->message().toStdString();
  // From Start, before its first trial: the charts name the clock the race will be drawn on (they
  // said "tuning time" until the first trial, then were rebuilt).
  ASSERT_EQ(runs()->data()->trialCount(), 0);
  EXPECT_EQ(runs()->data()->clock(), RaceData::Clock::DeviceByFile);
  QTabWidget* tabs = runs()->results()->tabs();
  EXPECT_EQ(tabs->tabText(tabs->indexOf(runs()->results()->timeChart())),
            QStringLiteral("vs device time"));
  EXPECT_EQ(runs()->results()->timeChart()->chart()->axes(Qt::Horizontal).value(0)->titleText(),
            QStringLiteral("Device time by the file (s)"));
  ASSERT_TRUE(raceEnded(120000));
  runs()->results()->refreshNow();

  const std::vector<RunRecord> stored = newRuns();
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].endReason, EndReason::Time);
  EXPECT_EQ(stored[0].status, RunStatus::Finished);
  const std::vector<double> sums =
      deviceSecondsOf(Store(Store::defaultPath()).trials(stored[0].id));
  ASSERT_GE(sums.size(), 2u);
  EXPECT_GE(sums.back(), 60.0);
  EXPECT_LT(sums[sums.size() - 2], 60.0);  // the trial before did not reach it
  EXPECT_EQ(runs()->results()->deviceTimeText(),
            QStringLiteral("Device time by the file: random ") +
                QString::fromStdString(deviceTimeText(sums.back())));
}

// A replay run stored before budgets counted device time (its budget's seconds were tuning time)
// is still drawn on what its trials cost the device, from the store and as it goes on: its
// budget's clock is what the budget counts, not what the trials cost.
TEST_F(RaceDeviceTimeTest, AReplayRunOnAnOldTuningTimeBudgetIsDrawnOnItsDeviceTime) {
  prepareReplay({QStringLiteral("random")}, 1, 0);
  setup()->setTrials(10);
  ASSERT_TRUE(runs()->start()) << runs()->message().toStdString();
  ASSERT_TRUE(raceEnded());
  const std::vector<RunRecord> first = newRuns();
  ASSERT_EQ(first.size(), 1u);
  const std::int64_t id = first[0].id;
  {
    // As such a run was stored: a time budget with no clock, and stopped before its end.
    Store store(Store::defaultPath());
    store.setRunBudget(id, "{\"seconds\":1000.0,\"trials\":20}");
    store.setRunStatus(id, RunStatus::Interrupted, EndReason::Stopped);
    ASSERT_EQ(budgetClockOf(*store.run(id)), BudgetClock::Tuning);
  }
  // Resumed on the Runs page, as History's Resume does.
  ASSERT_TRUE(runs()->resumeRun(*Store(Store::defaultPath()).run(id), {}))
      << runs()->message().toStdString();
  // Drawn from the resume's first update on, its stored trials with it.
  ASSERT_TRUE(waitUntil(
      [&] {
        return runs()->data()->info().label.startsWith(QStringLiteral("run %1 resumed").arg(id));
      },
      60000));
  EXPECT_EQ(runs()->data()->clock(), RaceData::Clock::DeviceByFile);
  ASSERT_TRUE(raceEnded());
  runs()->results()->refreshNow();
  ASSERT_EQ(Store(Store::defaultPath()).trials(id).size(), 20u);
  expectTimedByTheFile(runs()->results(), runs()->data(), {*Store(Store::defaultPath()).run(id)});

  // Reopened from the store.
  m_window.pages()->setCurrentWidget(history());
  history()->reload();
  ASSERT_TRUE(waitUntil([&] { return !history()->busy(); }, 30000));
  ASSERT_TRUE(history()->selectRuns({id}).empty());
  ASSERT_TRUE(waitUntil([&] { return !history()->busy(); }, 30000));
  history()->results()->refreshNow();
  expectTimedByTheFile(history()->results(), history()->data(),
                       {*Store(Store::defaultPath()).run(id)});
}

// Before any race the empty charts show the race the form describes: a replay's unit, optimum and
// device time as soon as its file is loaded (they said "best" against tuning time until Start),
// the CPU's tuning time once Measure on is the CPU. A race's curves stay when the form changes.
TEST_F(RaceDeviceTimeTest, BeforeStartTheChartsShowTheFormsRace) {
  RaceResultsWidget* results = runs()->results();
  QTabWidget* tabs = results->tabs();
  const auto timeTab = [&] { return tabs->tabText(tabs->indexOf(results->timeChart())); };
  const auto yTitle = [&] {
    return results->trialsChart()->chart()->axes(Qt::Vertical).value(0)->titleText();
  };
  const auto yRange = [&] {
    auto* y =
        qobject_cast<QValueAxis*>(results->trialsChart()->chart()->axes(Qt::Vertical).value(0));
    return y ? std::pair{y->min(), y->max()} : std::pair{-1.0, -1.0};
  };
  ASSERT_TRUE(setup()->setBackend(QStringLiteral("replay")));
  prepareReplay({QStringLiteral("random")}, 1, 0);
  runs()->results()->refreshNow();
  ASSERT_EQ(runs()->data()->trialCount(), 0);
  EXPECT_EQ(runs()->data()->clock(), RaceData::Clock::DeviceByFile);
  EXPECT_EQ(timeTab(), QStringLiteral("vs device time"));
  EXPECT_EQ(yTitle(), QStringLiteral("GFLOP/s"));
  ASSERT_TRUE(runs()->data()->info().optimum.has_value());
  const double optimum = *runs()->data()->info().optimum;
  EXPECT_DOUBLE_EQ(optimum, setup()->datasetPicker()->dataset()->bestSpeed);
  // The frame runs from 0 to just above the optimum, not around the optimum alone.
  EXPECT_EQ(yRange().first, 0.0);
  EXPECT_GT(yRange().second, optimum);
  EXPECT_LT(yRange().second, 1.1 * optimum);
  EXPECT_TRUE(runs()->data()->info().label.contains(QStringLiteral("RTX_2080_Ti")))
      << runs()->data()->info().label.toStdString();
  // A file that fails to load takes the frame of the one before with it (Start refuses the race).
  const QTemporaryDir dir;
  const QString bad = dir.filePath(QStringLiteral("cut.json"));
  QFile cut(bad);
  ASSERT_TRUE(cut.open(QIODevice::WriteOnly));
  cut.write("{\"device_name\": ");
  cut.close();
  setup()->datasetPicker()->load(bad);
  ASSERT_TRUE(waitUntil([&] { return !setup()->datasetPicker()->loading(); }, 60000));
  ASSERT_FALSE(setup()->datasetPicker()->error().isEmpty());
  EXPECT_FALSE(runs()->data()->info().optimum.has_value());
  EXPECT_EQ(runs()->data()->info().label, QString());
  setup()->datasetPicker()->load(kGemm);
  ASSERT_TRUE(waitUntil([&] { return !setup()->datasetPicker()->loading(); }, 60000));
  ASSERT_TRUE(runs()->data()->info().optimum.has_value());

  ASSERT_TRUE(setup()->setBackend(QStringLiteral("cpu")));
  runs()->results()->refreshNow();
  EXPECT_EQ(runs()->data()->clock(), RaceData::Clock::Tuning);
  EXPECT_EQ(timeTab(), QStringLiteral("vs tuning time"));
  EXPECT_FALSE(runs()->data()->info().optimum.has_value());
  EXPECT_EQ(runs()->data()->info().label,
            setup()->operatorBox()->currentText() + QStringLiteral(" on cpu: real measurements"));

  // A race drawn stays when another file is loaded: the frame is for charts no race drew on.
  ASSERT_TRUE(setup()->setBackend(QStringLiteral("replay")));
  setup()->setTrials(5);
  ASSERT_TRUE(runs()->start()) << runs()->message().toStdString();
  ASSERT_TRUE(raceEnded());
  ASSERT_EQ(runs()->data()->trialCount(), 5);
  setup()->datasetPicker()->load(
      QStringLiteral(OPEVO_DATASETS_DIR "/convolution_milo/A100.json.gz"));
  ASSERT_TRUE(waitUntil([&] { return !setup()->datasetPicker()->loading(); }, 60000));
  ASSERT_TRUE(setup()->setBackend(QStringLiteral("cpu")));
  EXPECT_EQ(runs()->data()->trialCount(), 5);
  EXPECT_EQ(runs()->data()->info().algorithms, QStringList{QStringLiteral("random")});
  EXPECT_DOUBLE_EQ(runs()->data()->info().optimum.value_or(0), optimum);
}

// A race measured on this machine's CPU keeps its tuning time as its budget, and shows no device
// time: its trials were measured here, not charged by a file.
TEST_F(RaceDeviceTimeTest, ACpuRaceKeepsItsTuningTimeAndShowsNoDeviceTime) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const QString op = dir.filePath(QStringLiteral("mm64.json"));
  QFile file(op);
  ASSERT_TRUE(file.open(QIODevice::WriteOnly));
  file.write(R"({"name": "mm64", "kind": "matmul", "shape": {"n": 64, "m": 64, "k": 64}})");
  file.close();
  ASSERT_TRUE(setup()->setBackend(QStringLiteral("cpu")));
  setup()->addOperatorFile(op);
  setup()->algorithmPanel()->setChecked({QStringLiteral("random")});
  setup()->setRepeats(1);
  timeBudgetOnly(2);
  // The probe runs off the GUI thread; until it answers a device race waits.
  ASSERT_TRUE(waitUntil(
      [&] {
        QString problem;
        setup()->spec(&problem);
        return !problem.startsWith(QStringLiteral("Still looking"));
      },
      60000));
  ASSERT_TRUE(runs()->start()) << runs()->message().toStdString();
  ASSERT_TRUE(raceEnded());
  runs()->results()->refreshNow();

  const std::vector<RunRecord> stored = newRuns();
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].endReason, EndReason::Time);
  const std::vector<TrialRow> trials = Store(Store::defaultPath()).trials(stored[0].id);
  ASSERT_FALSE(trials.empty());
  // Its tuning time reached the budget by its last trial (the run ends at the first check after
  // it, a few milliseconds of bookkeeping later at most).
  EXPECT_GE(trials.back().seconds, 1.9);
  EXPECT_EQ(runs()->results()->deviceTimeText(), QString());
  EXPECT_EQ(runs()->data()->clock(), RaceData::Clock::Tuning);
  EXPECT_DOUBLE_EQ(runs()->data()->curve(0, 0).lastSeconds, trials.back().seconds);
  QTabWidget* tabs = runs()->results()->tabs();
  EXPECT_EQ(tabs->tabText(tabs->indexOf(runs()->results()->timeChart())),
            QStringLiteral("vs tuning time"));
  EXPECT_EQ(runs()->results()->timeChart()->chart()->axes(Qt::Horizontal).value(0)->titleText(),
            QStringLiteral("Tuning time (s)"));
}

}  // namespace
}  // namespace opevo::ui
