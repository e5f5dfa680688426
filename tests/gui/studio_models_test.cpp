#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QLocale>
#include <QSet>
#include <QSignalSpy>
#include <QTextDocument>
#include <atomic>
#include <map>
#include <thread>

#include "engine/curve_stats.h"
#include "engine/engine.h"
#include "engine/interleaved_engines.h"
#include "gui_test_support.h"
#include "io/replay_dataset.h"
#include "io/run_import.h"
#include "replay/replay_measurer.h"
#include "store/records.h"
#include "tuners/registry.h"
#include "ui/charts/race_chart_view.h"
#include "ui/controller/race_control.h"
#include "ui/controller/race_data.h"
#include "ui/models/history_model.h"
#include "ui/models/settings_model.h"
#include "ui/models/trials_model.h"
#include "ui/widgets/display_format.h"

namespace opevo::ui {
namespace {

using Tester = QAbstractItemModelTester;
using test::ModelTestFailures;

TrialPoint trial(int algorithm, int repeat, int seq, double speed, double best) {
  TrialPoint t;
  t.algorithm = algorithm;
  t.repeat = repeat;
  t.seq = seq;
  t.config = QStringLiteral("x=%1").arg(seq);
  t.speed = speed;
  t.best = best;
  t.seconds = 0.1 * seq;
  if (speed == 0) {
    t.status = TrialStatus::RuntimeFault;
    t.message = QStringLiteral("illegal address");
  }
  return t;
}

TEST(TrialsModel, AppendsRowsAsTheRaceGoesAndSortsNumbersAsNumbers) {
  ModelTestFailures warnings;
  RaceData data;
  TrialsModel model(&data);
  TrialsFilterModel filter;
  filter.setSourceModel(&model);
  Tester tester(&model, Tester::FailureReportingMode::Warning);
  Tester filterTester(&filter, Tester::FailureReportingMode::Warning);
  data.reset(
      {{"opevo", "autotvm"}, 2, "GFLOP/s", "replay of test", 100.0, std::nullopt, {}, {}, {}});
  EXPECT_EQ(model.rowCount(), 0);
  data.append({trial(0, 0, 1, 9, 9), trial(0, 0, 2, 0, 9), trial(1, 0, 1, 100, 100)});
  ASSERT_EQ(model.rowCount(), 3);
  EXPECT_EQ(model.index(2, TrialsModel::AlgorithmColumn).data().toString(), "autotvm");
  EXPECT_EQ(model.index(1, TrialsModel::StatusColumn).data().toString(), "runtime_fault");
  EXPECT_EQ(model.index(1, TrialsModel::ReasonColumn).data().toString(), "illegal address");
  EXPECT_EQ(model.index(1, TrialsModel::SpeedColumn).data().toString(), "");  // no speed: failed
  EXPECT_TRUE(model.headerData(TrialsModel::SpeedColumn, Qt::Horizontal, Qt::ToolTipRole)
                  .toString()
                  .contains("GFLOP/s"));
  data.append({trial(1, 0, 2, 10, 100)});
  ASSERT_EQ(model.rowCount(), 4);
  // 100 above 10 above 9: numbers, not text ("9" > "100" as text).
  filter.sort(TrialsModel::SpeedColumn, Qt::DescendingOrder);
  EXPECT_EQ(filter.index(0, TrialsModel::SpeedColumn).data(TrialsModel::RawRole).toDouble(), 100);
  EXPECT_EQ(filter.index(1, TrialsModel::SpeedColumn).data(TrialsModel::RawRole).toDouble(), 10);
  filter.setFilter(TrialsModel::StatusColumn, QStringLiteral("fault"));
  EXPECT_EQ(filter.rowCount(), 1);
  filter.setFilter(-1, QStringLiteral("AUTOTVM"));  // any column, any case
  EXPECT_EQ(filter.rowCount(), 2);
  // A stale trial (of an algorithm the race does not have) is ignored, never out of bounds.
  data.append({trial(5, 0, 1, 1, 1)});
  EXPECT_EQ(model.rowCount(), 4);
  data.reset({});
  EXPECT_EQ(model.rowCount(), 0);
  EXPECT_TRUE(warnings.messages().isEmpty()) << warnings.messages().join('\n').toStdString();
}

// A cluster's trial says which agent measured it in its speed's tooltip, stored or live (a
// performance engineer traces an odd timing to its node); this machine's trials say nothing.
TEST(TrialsModel, AClustersTrialSaysWhichAgentMeasuredIt) {
  ModelTestFailures warnings;
  RunRecord run;
  run.id = 7;
  std::vector<TrialRow> rows(2);
  for (int i = 0; i < 2; ++i) {
    rows[std::size_t(i)].seq = i + 1;
    rows[std::size_t(i)].order = i + 1;
    rows[std::size_t(i)].status = TrialStatus::Ok;
    rows[std::size_t(i)].speed = 10.0 + i;
  }
  rows[0].agent = "node2-gpu0";
  const std::vector<TrialPoint> points = storedTrialPoints(run, rows, 0, 0);
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0].agent, "node2-gpu0");
  EXPECT_EQ(trialRecordOf(points[0], "opevo", QString()).measurement.agent, "node2-gpu0");
  RaceData data;
  TrialsModel model(&data);
  data.reset({{"opevo"}, 1, "GFLOP/s", "replay of test", 100.0, std::nullopt, {}, {}, {}});
  data.append(points);
  ASSERT_EQ(model.rowCount(), 2);
  const QString tip = model.index(0, TrialsModel::SpeedColumn).data(Qt::ToolTipRole).toString();
  EXPECT_TRUE(tip.contains("measured by node2-gpu0")) << tip.toStdString();
  EXPECT_FALSE(model.index(1, TrialsModel::SpeedColumn)
                   .data(Qt::ToolTipRole)
                   .toString()
                   .contains("measured by"));
  EXPECT_TRUE(warnings.messages().isEmpty()) << warnings.messages().join('\n').toStdString();
}

// A run measured elsewhere (a replay, an imported file) is charted on what its trials cost the
// device by the file, whichever clock its time budget counted (a replay stored before budgets
// said their clock counted tuning time); a run measured here on its tuning time. Stored runs with
// no trial yet are charted on the clock their trials will be on.
TEST(StoredTrialPoints, ARunMeasuredElsewhereIsOnItsDeviceTimeWhateverItsBudgetCounted) {
  std::vector<TrialRow> rows(2);
  for (int i = 0; i < 2; ++i) {
    rows[std::size_t(i)].seq = i + 1;
    rows[std::size_t(i)].status = TrialStatus::Ok;
    rows[std::size_t(i)].seconds = 0.001 * (i + 1);
    rows[std::size_t(i)].compileMs = 100;
    rows[std::size_t(i)].measureMs = 400;
  }
  RunRecord replay;
  replay.backend = "replay";
  replay.budgetJson = "{\"seconds\":10.0,\"trials\":40}";
  RunRecord imported = replay;
  imported.backend = kImportedBackend;
  RunRecord cpu = replay;
  cpu.backend = "cpu";
  for (const RunRecord& run : {replay, imported}) {
    const std::vector<TrialPoint> points = storedTrialPoints(run, rows, 0, 0);
    ASSERT_EQ(points.size(), 2u);
    ASSERT_TRUE(points[1].deviceSeconds) << run.backend;
    EXPECT_DOUBLE_EQ(*points[1].deviceSeconds, 1.0);
  }
  EXPECT_FALSE(storedTrialPoints(cpu, rows, 0, 0)[1].deviceSeconds);

  EXPECT_EQ(plannedClockOf({replay, imported}), RaceData::Clock::DeviceByFile);
  EXPECT_EQ(plannedClockOf({cpu}), RaceData::Clock::Tuning);
  EXPECT_EQ(plannedClockOf({cpu, replay}), RaceData::Clock::Both);
  RaceData data;
  RaceData::Info info;
  info.algorithms = {"random"};
  info.plannedClock = RaceData::Clock::DeviceByFile;
  data.reset(info);
  EXPECT_EQ(data.clock(), RaceData::Clock::DeviceByFile);
  // Then the trials say it.
  data.append(storedTrialPoints(cpu, rows, 0, 0));
  EXPECT_EQ(data.clock(), RaceData::Clock::Tuning);
}

// A stored race's table keeps its latest trials only, however long the race; the curves still
// count every trial. A race that is not stored keeps them all (its exports have nothing else).
TEST(TrialsModel, AStoredRaceKeepsOnlyItsLatestTrials) {
  ModelTestFailures warnings;
  for (const QString& storePath : {QStringLiteral("/tmp/stored.db"), QString()}) {
    RaceData data;
    TrialsModel model(&data);
    TrialsFilterModel filter;
    filter.setSourceModel(&model);
    Tester tester(&model, Tester::FailureReportingMode::Warning);
    Tester filterTester(&filter, Tester::FailureReportingMode::Warning);
    RaceData::Info info;
    info.algorithms = QStringList{"random"};
    info.storePath = storePath;
    data.reset(info);
    const int total = static_cast<int>(RaceData::kRecentTrials) + 2500;
    for (int first = 1; first <= total; first += 1000) {
      std::vector<TrialPoint> batch;
      for (int seq = first; seq < first + 1000 && seq <= total; ++seq)
        batch.push_back(trial(0, 0, seq, seq % 7 + 1, 7));
      data.append(batch);
    }
    EXPECT_EQ(data.trialCount(), total);
    EXPECT_EQ(data.curve(0, 0).trials, total);
    EXPECT_EQ(data.curve(0, 0).steps.size(), 1u);  // best 7 from the first trial on
    if (storePath.isEmpty()) {
      EXPECT_TRUE(data.hasAllTrials());
      EXPECT_EQ(model.rowCount(), total);
    } else {
      EXPECT_FALSE(data.hasAllTrials());
      ASSERT_EQ(model.rowCount(), static_cast<int>(RaceData::kRecentTrials));
      EXPECT_EQ(filter.rowCount(), model.rowCount());
      EXPECT_EQ(model.index(0, TrialsModel::TrialColumn).data().toInt(),
                total + 1 - model.rowCount());
      EXPECT_EQ(model.index(model.rowCount() - 1, TrialsModel::TrialColumn).data().toInt(), total);
    }
  }
  EXPECT_TRUE(warnings.messages().isEmpty()) << warnings.messages().join('\n').toStdString();
}

// "1080 of 10000 trials: the latest of 21000" read as a filter over the race's 21,000; the
// caption says what the table holds and what the filter keeps of it.
TEST(TrialsModel, TheCaptionSaysWhatIsShownOfTheRacesTrials) {
  const QLocale locale;
  const auto n = [&](long long v) { return locale.toString(v); };
  EXPECT_EQ(trialsCaption(21000, 10000, 1080),
            QStringLiteral("the latest %1 of %2 trials; filter: %3 of them (the CSV export has "
                           "them all)")
                .arg(n(10000), n(21000), n(1080)));
  EXPECT_EQ(trialsCaption(10003, 10000, 10000),
            QStringLiteral("the latest %1 of %2 trials (the CSV export has them all)")
                .arg(n(10000), n(10003)));
  EXPECT_EQ(trialsCaption(300, 300, 300), QStringLiteral("300 trials"));
  EXPECT_EQ(trialsCaption(300, 300, 12), QStringLiteral("300 trials; filter: 12 of them"));
}

TEST(SettingsModel, EditsAreCheckedByCoreAndRefusalsKeptAsTyped) {
  ModelTestFailures warnings;
  const TunerInfo* info = tunerRegistry().find("opevo");
  ASSERT_NE(info, nullptr);
  SettingsModel model("opevo", info->defaults());
  Tester tester(&model, Tester::FailureReportingMode::Warning);
  ASSERT_EQ(model.rowCount(), static_cast<int>(info->defaults().all().size()));
  QSignalSpy validity(&model, &SettingsModel::validityChanged);
  EXPECT_TRUE(model.flags(model.index(0, SettingsModel::ValueColumn)) & Qt::ItemIsEditable);
  EXPECT_FALSE(model.flags(model.index(0, SettingsModel::NameColumn)) & Qt::ItemIsEditable);
  EXPECT_TRUE(model.changedValues().empty());
  EXPECT_FALSE(model.setValueText("lambda", "2.5"));  // an integer setting
  EXPECT_FALSE(model.valid());
  EXPECT_TRUE(model.errors().join("").contains("lambda=2.5"))
      << model.errors().join("").toStdString();
  EXPECT_GE(validity.count(), 1);
  EXPECT_TRUE(model.setValueText("lambda", "4"));
  EXPECT_TRUE(model.valid());
  EXPECT_EQ(model.changedValues().at("lambda"), "4");
  model.restoreDefaults();
  EXPECT_TRUE(model.changedValues().empty());
  EXPECT_TRUE(warnings.messages().isEmpty()) << warnings.messages().join('\n').toStdString();
}

TEST(HistoryModel, ListsRunsNewestFirstWithTheirRace) {
  ModelTestFailures warnings;
  HistoryModel model;
  Tester tester(&model, Tester::FailureReportingMode::Warning);
  std::vector<RunRecord> runs(3);
  for (int i = 0; i < 3; ++i) {
    runs[i].id = i + 1;
    runs[i].algorithm = i % 2 ? "autotvm" : "opevo";
    runs[i].operatorJson = R"({"replay":"x.json"})";
    runs[i].raceId = 1;
    runs[i].raceRepeat = i / 2;
    runs[i].label = "replay of x";
    runs[i].operatorName = "Xgemm";
    runs[i].budgetJson = R"({"trials":40})";
    runs[i].status = i == 2 ? RunStatus::Running : RunStatus::Finished;
    runs[i].endReason = i == 2 ? EndReason::None : EndReason::Trials;
    runs[i].started = "2026-01-02T03:04:05.000Z";
  }
  runs[2].operatorJson = "not json";  // an older or foreign row still lists
  runs[2].raceId = 0;                 // a run of its own
  model.setRuns(runs);
  ASSERT_EQ(model.rowCount(), 3);
  EXPECT_EQ(model.index(0, HistoryModel::IdColumn).data().toLongLong(), 3);
  EXPECT_EQ(model.row(1).run.raceId, 1);
  EXPECT_EQ(model.index(2, HistoryModel::RepeatColumn).data().toInt(), 1);
  EXPECT_EQ(model.index(1, HistoryModel::StatusColumn).data().toString(), "finished (trials)");
  EXPECT_EQ(model.index(1, HistoryModel::OperatorColumn).data().toString(), "Xgemm");
  EXPECT_EQ(model.index(1, HistoryModel::OperatorColumn).data(Qt::ToolTipRole).toString(),
            "replay of x");
  EXPECT_EQ(model.index(1, HistoryModel::BudgetColumn).data().toString(), "40 trials");
  EXPECT_EQ(model.index(0, HistoryModel::StatusColumn).data().toString(), "running");
  EXPECT_FALSE(model.index(0, HistoryModel::RepeatColumn).data().isValid());
  EXPECT_EQ(model.index(1, HistoryModel::AlgorithmColumn).data().toString(), "autotvm");
  EXPECT_TRUE(warnings.messages().isEmpty()) << warnings.messages().join('\n').toStdString();
}

// A replay's time budget counts device time by the file: History says so as `opevo runs` does
// ("finished (time)" read as this machine's time), a run measured here keeps "time", and a replay
// stored before budgets said their clock counted tuning time and says "time" too.
TEST(HistoryModel, AReplayEndedByItsTimeBudgetSaysDeviceTime) {
  HistoryModel model;
  std::vector<RunRecord> runs(3);
  for (int i = 0; i < 3; ++i) {
    runs[i].id = i + 1;
    runs[i].algorithm = "opevo";
    runs[i].operatorJson = "{}";
    runs[i].budgetJson = R"({"seconds":60.0})";
    runs[i].status = RunStatus::Finished;
    runs[i].endReason = EndReason::Time;
  }
  runs[0].backend = "replay";
  runs[0].budgetJson = R"({"clock":"device","seconds":60.0})";
  runs[1].backend = "cpu";
  runs[2].backend = "replay";
  model.setRuns(runs);  // newest first: run 3, 2, 1
  ASSERT_EQ(model.rowCount(), 3);
  EXPECT_EQ(model.index(2, HistoryModel::StatusColumn).data().toString(), "finished (device time)");
  EXPECT_EQ(model.index(1, HistoryModel::StatusColumn).data().toString(), "finished (time)");
  EXPECT_EQ(model.index(0, HistoryModel::StatusColumn).data().toString(), "finished (time)");
}

// A replay's "Measured on" is its dataset's label up to the parenthesis, whole in the tooltip: the
// whole label pushed Best and Status out of view at 1280 pixels. A device's label is whole.
TEST(HistoryModel, AReplaysMeasuredOnIsItsDatasetWithTheDeviceInTheTooltip) {
  HistoryModel model;
  std::vector<RunRecord> runs(2);
  runs[0].id = 1;
  runs[0].backend = "replay";
  runs[0].device = "replay of RTX_2080_Ti.json.gz (NVIDIA GeForce RTX 2080 Ti, real measurements)";
  runs[1].id = 2;
  runs[1].backend = "cpu";
  runs[1].device = "AMD EPYC (with a note), 2 threads";
  for (RunRecord& r : runs) r.operatorJson = "{}";
  model.setRuns(runs);  // newest first
  const QModelIndex replay = model.index(1, HistoryModel::MeasuredOnColumn);
  EXPECT_EQ(replay.data().toString(), "replay of RTX_2080_Ti.json.gz");
  EXPECT_EQ(replay.data(Qt::ToolTipRole).toString().toStdString(), runs[0].device);
  EXPECT_EQ(model.index(0, HistoryModel::MeasuredOnColumn).data().toString().toStdString(),
            runs[1].device);
}

// A failed run said "failed" and nothing of why; its stored failure is the status's tooltip.
TEST(HistoryModel, AFailedRunsStatusSaysWhyWhenPointedAt) {
  HistoryModel model;
  std::vector<RunRecord> runs(2);
  for (int i = 0; i < 2; ++i) {
    runs[i].id = i + 1;
    runs[i].operatorName = "MM1";
    runs[i].budgetJson = R"({"trials":16})";
    runs[i].status = RunStatus::Failed;
    runs[i].endReason = EndReason::Failed;
  }
  runs[1].failure = "<stdin>:3: the device was lost: CUDA_ERROR_LAUNCH_FAILED";
  model.setRuns(runs);  // newest first: run 2, then run 1 (stored before schema 10: none said)
  const QString status = model.index(0, HistoryModel::StatusColumn).data().toString();
  // Shown as plain text: "<stdin>" is no tag.
  QTextDocument shown;
  shown.setHtml(model.index(0, HistoryModel::StatusColumn).data(Qt::ToolTipRole).toString());
  EXPECT_EQ(shown.toPlainText(),
            status + ": <stdin>:3: the device was lost: CUDA_ERROR_LAUNCH_FAILED");
  EXPECT_EQ(model.index(1, HistoryModel::StatusColumn).data(Qt::ToolTipRole).toString(), status);
}

// Each run's trials and best beside it, and a network's task runs named by their network: the
// newest run with trials is what "the latest race" opens (a network's last task may have none).
TEST(HistoryModel, ShowsTrialsBestAndTheNetworkOfATask) {
  HistoryModel model;
  std::vector<RunRecord> runs(3);
  for (int i = 0; i < 3; ++i) {
    runs[i].id = i + 1;
    runs[i].operatorName = i == 0 ? "MM1" : i == 1 ? "conv1" : "fc8";
    runs[i].budgetJson = R"({"trials":16})";
    runs[i].speedUnit = "TFLOPS";
    runs[i].status = RunStatus::Finished;
  }
  std::map<std::int64_t, RunTally> tallies;
  tallies[1] = {20, 0.0521};
  tallies[2] = {16, std::nullopt};  // no working trial
  const std::map<std::int64_t, QString> networks = {{2, "network run 1, alexnet"},
                                                    {3, "network run 1, alexnet"}};
  model.setRuns(runs, tallies, networks);
  ASSERT_EQ(model.rowCount(), 3);  // newest first: fc8, conv1, MM1
  EXPECT_EQ(model.index(0, HistoryModel::OperatorColumn).data().toString(),
            "fc8 (network run 1, alexnet)");
  EXPECT_EQ(model.index(0, HistoryModel::TrialsColumn).data().toInt(), 0);
  EXPECT_EQ(model.index(0, HistoryModel::BudgetColumn).data().toString(), "the network's");
  // The network's budget never reached it: not "finished (trials)", as if it had spent its own.
  EXPECT_EQ(model.index(0, HistoryModel::StatusColumn).data().toString(), "finished, no trial");
  EXPECT_TRUE(model.index(0, HistoryModel::StatusColumn)
                  .data(Qt::ToolTipRole)
                  .toString()
                  .contains("ran its default configuration"));
  EXPECT_NE(model.index(1, HistoryModel::StatusColumn).data().toString(), "finished, no trial");
  EXPECT_FALSE(model.index(1, HistoryModel::BestColumn).data().isValid());
  EXPECT_EQ(model.index(2, HistoryModel::TrialsColumn).data().toInt(), 20);
  // Four significant digits, in the same format as the Runs page and the trials table.
  EXPECT_EQ(model.index(2, HistoryModel::BestColumn).data().toString(),
            formatSpeed(0.0521) + " TFLOPS");
  EXPECT_EQ(model.index(2, HistoryModel::BestColumn).data().toString().left(6), "0.0521");
  EXPECT_EQ(model.index(2, HistoryModel::BudgetColumn).data().toString(), "16 trials");
  EXPECT_EQ(model.newestWithTrials(), 1);
  model.setRuns(runs);
  EXPECT_EQ(model.newestWithTrials(), -1);
}

// The walk found "1.364e+04 GFLOP/s" above "9470 GFLOP/s": one format for every magnitude, the
// Runs page's, so 13,638 and 9,470 read as what they are.
TEST(HistoryModel, BestSpeedsAreNeverInENotation) {
  HistoryModel model;
  std::vector<RunRecord> runs(2);
  std::map<std::int64_t, RunTally> tallies;
  for (int i = 0; i < 2; ++i) {
    runs[i].id = i + 1;
    runs[i].operatorName = "MM1";
    runs[i].speedUnit = "GFLOP/s";
    runs[i].status = RunStatus::Finished;
  }
  tallies[1] = {10, 9470.2};
  tallies[2] = {10, 13638.4};
  model.setRuns(runs, tallies);
  const QString big = model.index(0, HistoryModel::BestColumn).data().toString();
  const QString small = model.index(1, HistoryModel::BestColumn).data().toString();
  EXPECT_FALSE(big.contains(QLatin1Char('e'))) << big.toStdString();
  EXPECT_EQ(big, QLocale().toString(13638.0, 'f', 0) + " GFLOP/s");
  EXPECT_EQ(small, QLocale().toString(9470.0, 'f', 0) + " GFLOP/s");
}

TEST(HistoryModel, AnImportedRunOfOursNamesItsTuner) {
  HistoryModel model;
  std::vector<RunRecord> runs(2);
  runs[0].id = 1;
  runs[0].algorithm = "import";
  runs[0].settingsJson = R"({"source":"/x/MM1_opevo-m_seed1.json.gz","tuned_by":"opevo-m"})";
  runs[1].id = 2;
  runs[1].algorithm = "import";  // a Kernel Tuner cache: no tuner to name
  runs[1].settingsJson = R"({"source":"/x/A100.json.gz"})";
  model.setRuns(runs);
  EXPECT_EQ(model.index(1, HistoryModel::AlgorithmColumn).data().toString(), "opevo-m (imported)");
  EXPECT_EQ(model.index(0, HistoryModel::AlgorithmColumn).data().toString(), "import");
}

// A curve from its best after each trial, trial k at k seconds.
RunCurve curveOf(const std::vector<double>& bestByTrial, bool finished) {
  RunCurve c;
  for (std::size_t k = 0; k < bestByTrial.size(); ++k) c.add(double(k + 1), bestByTrial[k]);
  c.finished = finished;
  return c;
}

RunCurve timedCurve(const std::vector<std::pair<double, double>>& bestByTime, bool finished) {
  RunCurve c;
  for (const auto& [seconds, best] : bestByTime) c.add(seconds, best);
  c.finished = finished;
  return c;
}

TEST(CurveStats, MeanAndSampleDeviationAcrossRepeatsByTrial) {
  const RunCurve a = curveOf({1, 3, 5}, true);
  const RunCurve b = curveOf({3, 3}, true);         // finished early: keeps 3
  const RunCurve c = curveOf({2, 2, 2, 8}, false);  // still running
  const Band band = bandByTrial({&a, &b, &c});
  ASSERT_EQ(band.size(), 4u);
  EXPECT_DOUBLE_EQ(band.mean[0], 2);
  EXPECT_DOUBLE_EQ(band.sd[0], 1);  // values 1, 3, 2
  EXPECT_DOUBLE_EQ(band.mean[2], (5 + 3 + 2) / 3.0);
  EXPECT_EQ(band.n[3], 3);  // a and b finished: they keep their last best
  EXPECT_DOUBLE_EQ(band.mean[3], (5 + 3 + 8) / 3.0);
  // A running run has no value past its last trial: the band ends with it, where the mean of
  // the run ahead alone would jump (8 at trial 4, where the two runs' mean is unknown).
  const RunCurve running = curveOf({1, 2}, false);
  const Band partial = bandByTrial({&running, &c});
  ASSERT_EQ(partial.size(), 2u);
  EXPECT_EQ(partial.n[1], 2);
  EXPECT_DOUBLE_EQ(partial.mean[1], 2);
  // A run that has not begun is in no mean yet, and does not end the band.
  const RunCurve waiting = curveOf({}, false);
  EXPECT_EQ(bandByTrial({&a, &waiting}).size(), 3u);
}

// A curve keeps only the trials where its best changed, yet gives the best after every trial as
// the full series did: the band by trial, drawn from it, is the same point for point.
TEST(CurveStats, ACurveKeepsOnlyItsImprovementsAndAnswersForEveryTrial) {
  std::vector<std::vector<double>> series(4);
  std::uint64_t state = 7;
  for (std::size_t r = 0; r < series.size(); ++r) {
    double best = 0;
    for (int k = 0; k < 2000 + 300 * int(r); ++k) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      const double speed = double(state >> 11) / double(1ull << 53) * 100;
      best = std::max(best, speed);
      series[r].push_back(best);
    }
  }
  std::vector<RunCurve> curves;
  for (std::size_t r = 0; r < series.size(); ++r)
    curves.push_back(curveOf(series[r], /*finished=*/r % 2 == 0));
  std::vector<const RunCurve*> runs;
  for (const RunCurve& c : curves) {
    EXPECT_LT(c.steps.size(), 40u);  // about ln(2000) improvements, not 2000 points
    runs.push_back(&c);
  }
  for (std::size_t r = 0; r < series.size(); ++r)
    for (std::size_t k = 0; k < series[r].size(); ++k)
      ASSERT_EQ(curves[r].bestAtTrial(int(k + 1)), series[r][k]) << r << " " << k;
  // The band as it was computed from the full series, up to the end of the shortest running run
  // (repeat 1: 2,300 trials; repeats 0 and 2 finished, 3 longer).
  const Band band = bandByTrial(runs);
  ASSERT_EQ(band.size(), series[1].size());
  for (std::size_t k = 0; k < band.size(); ++k) {
    std::vector<double> values;
    for (std::size_t r = 0; r < series.size(); ++r)
      if (k < series[r].size())
        values.push_back(series[r][k]);
      else if (curves[r].finished)
        values.push_back(series[r].back());
    double mean = 0;
    for (double v : values) mean += v / double(values.size());
    ASSERT_EQ(band.n[k], int(values.size())) << k;
    ASSERT_NEAR(band.mean[k], mean, 1e-9) << k;
  }
}

TEST(CurveStats, ByTimeIsAStepFunctionOfEachRun) {
  const RunCurve a = timedCurve({{1.0, 10}, {2.0, 20}}, true);
  const RunCurve b = timedCurve({{1.5, 30}}, false);
  const Band band = bandByTime({&a, &b});
  // b is running and has nothing at 2 s yet: the band ends at its last trial, where a alone
  // (20) would have passed for the mean. It begins at b's first trial: at 1 s a alone would.
  ASSERT_EQ(band.x, (std::vector<double>{1.5}));
  EXPECT_EQ(band.n[0], 2);
  EXPECT_DOUBLE_EQ(band.mean[0], 20);  // a still 10, b 30
  const RunCurve c = timedCurve({{1.5, 30}}, true);
  EXPECT_EQ(bandByTime({&a, &c}).x, (std::vector<double>{1.5, 2.0}));  // c finished
}

// A run whose first trial came later, with a lower best, never pulls the mean of best-so-far
// curves down: the band begins once every run has begun, and never falls.
TEST(CurveStats, ByTimeNeverFalls) {
  const RunCurve early = timedCurve({{0.001, 80}, {0.01, 90}, {0.5, 95}}, true);
  const RunCurve late = timedCurve({{0.02, 10}, {0.2, 60}, {0.4, 70}}, true);
  const Band band = bandByTime({&early, &late});
  ASSERT_FALSE(band.x.empty());
  EXPECT_DOUBLE_EQ(band.x.front(), 0.02);
  for (std::size_t k = 0; k < band.size(); ++k) {
    EXPECT_EQ(band.n[k], 2) << k;
    if (k > 0) {
      EXPECT_GE(band.mean[k], band.mean[k - 1]) << k;
    }
  }
  // A run stopped (so still "running") after its first trial, before another's first: the band
  // is the one point where it ends, not empty (the mean curve would vanish from the chart).
  const RunCurve stopped = timedCurve({{9.8, 5}}, false);
  const RunCurve later = timedCurve({{10.2, 7}}, true);
  EXPECT_EQ(bandByTime({&stopped, &later}).x, (std::vector<double>{9.8}));
}

// An algorithm keeps its colour from race to race, whatever else races beside it or in which
// order, and the algorithms of one race never share a colour.
TEST(RaceColors, AnAlgorithmKeepsItsColourAcrossRaces) {
  const auto two = RaceChartView::colorsOf({"opevo", "autotvm"});
  const auto three = RaceChartView::colorsOf({"random", "opevo", "autotvm"});
  EXPECT_EQ(two[0], three[1]);
  EXPECT_EQ(two[1], three[2]);
  EXPECT_NE(three[0], three[2]);
  // A stored run's label, and names the palette does not know.
  const auto stored = RaceChartView::colorsOf({"import", "autotvm (imported)", "mine", "opevo"});
  EXPECT_EQ(stored[1], two[1]);
  EXPECT_EQ(stored[3], two[0]);
  QSet<QRgb> distinct;
  for (const QColor& c : stored) distinct.insert(c.rgb());
  EXPECT_EQ(distinct.size(), 4);
  QStringList all;
  for (const TunerInfo& t : tunerRegistry().all()) all << QString::fromStdString(t.name);
  distinct.clear();
  for (const QColor& c : RaceChartView::colorsOf(all)) distinct.insert(c.rgb());
  EXPECT_EQ(distinct.size(), all.size());
}

// The window's pause, resume and stop reach the engine of the race in progress, and are kept
// for an engine that does not exist yet.
TEST(RaceControl, PausesResumesAndStopsTheEngineOfTheRace) {
  auto dataset = std::make_shared<const ReplayDataset>(
      loadReplayDataset(std::string(OPEVO_DATASETS_DIR) + "/convolution_milo/A100.json.gz"));
  ReplayMeasurer measurer(dataset);
  EngineOptions paced;
  paced.paceMs = 5;
  Engine engine(dataset->space, measurer, paced);
  RunPlan plan;
  plan.algorithm = "random";
  plan.budget.trials = 4000;
  engine.addRun(plan);
  struct Count : EngineObserver {
    std::atomic<int> trials{0};
    void trialMeasured(const TrialEvent&, const EngineProgress&) override { ++trials; }
  } count;
  engine.addObserver(count);

  RaceControl control;
  control.pause();  // pressed before the engine exists: it starts paused
  InterleavedEngines engines({&engine});
  std::thread thread([&] {
    control.attach(&engines);
    engines.run();
    control.attach(nullptr);
  });
  QTest::qWait(150);
  EXPECT_EQ(count.trials.load(), 0);
  control.resume();
  ASSERT_TRUE(test::waitUntil([&] { return count.trials.load() >= 5; }));
  control.pause();
  QTest::qWait(50);  // the trial in hand ends
  const int held = count.trials.load();
  QTest::qWait(150);
  EXPECT_EQ(count.trials.load(), held);
  control.stop();  // a stop ends a paused race
  thread.join();
  EXPECT_EQ(engine.runs()[0].end, EndReason::Stopped);
  EXPECT_TRUE(control.stopped());
  control.reset();
  EXPECT_FALSE(control.stopped());
}

}  // namespace
}  // namespace opevo::ui
