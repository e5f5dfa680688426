#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "backends/backend_factory.h"
#include "backends/run_context.h"
#include "backends/stored_run.h"
#include "common/error.h"
#include "engine/device_time.h"
#include "engine/engine.h"
#include "engine/run_status.h"
#include "engine/store_recorder.h"
#include "io/replay_dataset.h"
#include "io/run_import.h"
#include "replay/replay_measurer.h"
#include "store/store.h"

// A replay's time budget counts device time: what the file says its trials cost the device that
// measured it (engine/device_time.h), as Kernel Tuner's simulation mode charges its time limit;
// a run measured on this machine counts its tuning time. On the RTX 2080 Ti GEMM cache, whose
// trials cost about 1.5 s each by the file.
namespace opevo {
namespace {

namespace fs = std::filesystem;

std::shared_ptr<const ReplayDataset> gemm() {
  static const auto dataset = std::make_shared<const ReplayDataset>(
      loadReplayDataset(std::string(OPEVO_DATASETS_DIR) + "/gemm/RTX_2080_Ti.json.gz"));
  return dataset;
}

struct Trials : EngineObserver {
  std::vector<TrialRecord> records;
  void trialMeasured(const TrialEvent& e, const EngineProgress&) override {
    records.push_back(e.record);
  }
  std::vector<std::string> configs() const {
    std::vector<std::string> out;
    for (const TrialRecord& t : records) out.push_back(t.config);
    return out;
  }
  // Each trial's run's device time once it is counted, as compare's trials.csv writes it.
  std::vector<double> deviceSeconds() const {
    DeviceClock clock;
    std::vector<double> out;
    for (const TrialRecord& t : records) out.push_back(clock.add(t));
    return out;
  }
};

double deviceSeconds(const std::vector<TrialRow>& rows) {
  double ms = 0;
  for (const TrialRow& t : rows) ms += t.compileMs + t.measureMs;
  return ms / 1e3;
}

RunPlan timeBudget(const std::string& algorithm, double seconds) {
  RunPlan plan;
  plan.algorithm = algorithm;
  plan.seed = 3;
  plan.budget.seconds = seconds;
  // Only so that a budget that is never reached (this machine's time of a replay answered at
  // once) ends the test; the device time ends the run long before.
  plan.budget.trials = 3000;
  return plan;
}

TEST(ReplayBudget, ARunEndsOnTheTrialWhoseDeviceTimeReachesItsBudget) {
  ReplayMeasurer measurer(gemm());
  Engine engine(gemm()->space, measurer);
  EXPECT_EQ(engine.budgetClock(), BudgetClock::Device);
  engine.addRun(timeBudget("random", 150));
  Trials trials;
  engine.addObserver(trials);
  engine.run();
  const RunState& run = engine.runs()[0];
  EXPECT_EQ(run.end, EndReason::Time);
  const std::vector<double> device = trials.deviceSeconds();
  ASSERT_GE(device.size(), 2u);
  EXPECT_GE(device.back(), 150.0);
  EXPECT_LT(device[device.size() - 2], 150.0);  // the trial before had not reached it
  EXPECT_NEAR(run.deviceSeconds, device.back(), 1e-9);
  // The file's time, not this machine's: a replay answers 100 trials in far less than 150 s.
  EXPECT_LT(run.seconds, 150.0);
  EXPECT_EQ(run.clock, BudgetClock::Device);
  EXPECT_EQ(runStatusText(statusAfter(run.end), run.end, run.clock), "finished (device time)");
  // Told its trials, as `opevo runs` and History are: with some, the same words; with none (a
  // network's task its budget never reached), it did not spend a budget of its own.
  EXPECT_EQ(runStatusText(statusAfter(run.end), run.end, run.clock, run.trials),
            "finished (device time)");
  EXPECT_EQ(runStatusText(RunStatus::Finished, EndReason::Trials, BudgetClock::Tuning, 0),
            "finished, no trial");
  EXPECT_EQ(runStatusText(RunStatus::Interrupted, EndReason::Stopped, BudgetClock::Tuning, 0),
            "interrupted (stopped)");
}

// The same seed and budget measure the same trials at any pace (the window's 3 ms a trial, held
// by a pause midway, or at once), and they are the first trials of the same run without a time
// budget: the batches are the tuner's own, cut at the trial that reaches the budget, whatever
// this machine's speed.
TEST(ReplayBudget, TheRunIsTheSameAtAnyPaceAndIsCutWhereItsDeviceTimeIsSpent) {
  std::vector<std::vector<std::string>> runs;
  for (int pace : {0, 3}) {
    ReplayMeasurer measurer(gemm());
    EngineOptions options;
    options.paceMs = pace;
    Engine engine(gemm()->space, measurer, options);
    engine.addRun(timeBudget("opevo", 120));
    Trials trials;
    engine.addObserver(trials);
    std::thread pauser;
    if (pace > 0)
      pauser = std::thread([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(40));
        engine.pause();
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        engine.resume();
      });
    engine.run();
    if (pauser.joinable()) pauser.join();
    EXPECT_EQ(engine.runs()[0].end, EndReason::Time) << "pace " << pace;
    runs.push_back(trials.configs());
  }
  ASSERT_GT(runs[0].size(), 8u);  // more than OpEvo's first batch
  EXPECT_EQ(runs[0], runs[1]);

  ReplayMeasurer measurer(gemm());
  Engine untimed(gemm()->space, measurer);
  RunPlan plan = timeBudget("opevo", 120);
  plan.budget.seconds.reset();
  plan.budget.trials = static_cast<int>(runs[0].size());
  untimed.addRun(plan);
  Trials trials;
  untimed.addObserver(trials);
  untimed.run();
  EXPECT_EQ(trials.configs(), runs[0]);
}

// A resumed replay's device clock goes on from its stored trials (compile_ms + measure_ms of
// each): interrupted after 20 trials and resumed, the run ends on the trial at which all its
// trials together reach the budget, as the uninterrupted run would have.
// A random run of `seconds` of device time on the GEMM file, stored in `db` and stopped as a
// user stops it, after its 20th trial; its id.
std::int64_t storeARunStoppedAfter20Trials(const std::string& db, double seconds) {
  Store store(db);
  MeasurementSetup setup = replayMeasurement(gemm());
  Engine engine(*setup.space, *setup.measurer);
  engine.addRun(timeBudget("random", seconds));
  StoreRecorder recorder(store, engine, runContextOf(setup));
  engine.addObserver(recorder);
  recorder.createRuns();
  struct StopAt : EngineObserver {
    Engine& engine;
    explicit StopAt(Engine& e) : engine(e) {}
    void trialMeasured(const TrialEvent& e, const EngineProgress&) override {
      if (e.record.trial == 20) engine.stop();
    }
  } stop(engine);
  engine.addObserver(stop);
  engine.run();
  EXPECT_EQ(engine.runs()[0].end, EndReason::Stopped);
  return engine.runs()[0].storeId;
}

TEST(ReplayBudget, AResumedRunGoesOnFromItsStoredDeviceTime) {
  char pattern[] = "/tmp/opevo-replay-budget-XXXXXX";
  const fs::path dir = mkdtemp(pattern);
  const std::string db = (dir / "runs.db").string();
  constexpr double kBudget = 120;
  const std::int64_t id = storeARunStoppedAfter20Trials(db, kBudget);
  Store store(db);
  double storedMs = 0;
  for (const TrialRow& t : store.trials(id)) storedMs += t.compileMs + t.measureMs;
  ASSERT_EQ(store.trials(id).size(), 20u);
  ASSERT_GT(storedMs / 1e3, 1.0);
  ASSERT_LT(storedMs / 1e3, kBudget);

  ResumedRun resumed = resumeStoredRun(store, id);
  EngineOptions options;
  options.firstOrder = resumed.nextOrder;
  Engine engine(*resumed.setup.space, *resumed.setup.measurer, options);
  StoreRecorder recorder(store, engine, {});
  engine.addObserver(recorder);
  addResumedRun(engine, resumed);
  EXPECT_NEAR(engine.runs()[0].deviceSeconds, storedMs / 1e3, 1e-6);
  engine.run();
  EXPECT_EQ(engine.runs()[0].end, EndReason::Time);
  EXPECT_EQ(store.run(id)->endReason, EndReason::Time);

  std::vector<double> device;
  double ms = 0;
  for (const TrialRow& t : store.trials(id)) {
    ms += t.compileMs + t.measureMs;
    device.push_back(ms / 1e3);
  }
  ASSERT_GT(device.size(), 21u);
  EXPECT_GE(device.back(), kBudget);
  EXPECT_LT(device[device.size() - 2], kBudget);
  EXPECT_NEAR(engine.runs()[0].deviceSeconds, device.back(), 1e-6);
  fs::remove_all(dir);
}

// A time budget stores its clock, and a run goes on counting what it counted when it started. A
// replay stored before budgets said their clock counted tuning time: it is read so, and resumed
// so, not on the device clock of today's replays (which would end it at once here, its stored
// trials past its 10 s by the file).
TEST(ReplayBudget, AReplayStoredBeforeBudgetsSaidTheirClockGoesOnCountingTuningTime) {
  Budget device;
  device.seconds = 30;
  device.clock = BudgetClock::Device;
  EXPECT_EQ(device.toJson(), "{\"clock\":\"device\",\"seconds\":30.0}");
  EXPECT_EQ(Budget::fromJson(device.toJson()).clock, BudgetClock::Device);
  EXPECT_EQ(Budget::fromJson("{\"seconds\":30.0}").clock, BudgetClock::Tuning);
  EXPECT_FALSE(Budget::fromJson("{\"trials\":30}").clock.has_value());
  try {
    (void)Budget::fromJson("{\"seconds\":30.0,\"clock\":\"wall\"}");
    ADD_FAILURE() << "an unknown clock was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'clock' must be \"device\" or \"tuning\""),
              std::string::npos)
        << e.what();
  }

  char pattern[] = "/tmp/opevo-replay-budget-XXXXXX";
  const fs::path dir = mkdtemp(pattern);
  const std::string db = (dir / "runs.db").string();
  const std::int64_t id = storeARunStoppedAfter20Trials(db, 120);
  Store store(db);
  // A new run's budget says its clock.
  EXPECT_EQ(store.run(id)->budgetJson, "{\"clock\":\"device\",\"seconds\":120.0,\"trials\":3000}");
  EXPECT_EQ(budgetClockOf(*store.run(id)), BudgetClock::Device);
  // As a run stored before budgets said their clock: 10 s of tuning time, 40 trials.
  store.setRunBudget(id, "{\"seconds\":10.0,\"trials\":40}");
  ASSERT_GT(deviceSeconds(store.trials(id)), 10.0);
  EXPECT_EQ(budgetClockOf(*store.run(id)), BudgetClock::Tuning);

  ResumedRun resumed = resumeStoredRun(store, id);
  EXPECT_EQ(resumed.plan.budget.clock, BudgetClock::Tuning);
  EngineOptions options;
  options.firstOrder = resumed.nextOrder;
  Engine engine(*resumed.setup.space, *resumed.setup.measurer, options);
  StoreRecorder recorder(store, engine, {});
  engine.addObserver(recorder);
  addResumedRun(engine, resumed);
  EXPECT_EQ(engine.runs()[0].clock, BudgetClock::Tuning);
  engine.run();
  EXPECT_EQ(engine.runs()[0].end, EndReason::Trials);
  EXPECT_EQ(store.trials(id).size(), 40u);
  EXPECT_EQ(store.run(id)->budgetJson, "{\"seconds\":10.0,\"trials\":40}");

  // Had its tuning time ended it, its status would say that clock's word.
  RunRecord ended = *store.run(id);
  ended.endReason = EndReason::Time;
  EXPECT_EQ(runStatusText(ended), "finished (time)");
  ended.budgetJson = device.toJson();
  EXPECT_EQ(runStatusText(ended), "finished (device time)");

  // A new total given on resuming is on today's clock: the device time by the file.
  resumed.lock.reset();
  Budget more;
  more.seconds = 1e6;
  const ResumedRun goingOn = resumeStoredRun(store, id, {}, ResumeAs::Run, more);
  EXPECT_EQ(goingOn.plan.budget.clock, BudgetClock::Device);
  EXPECT_EQ(store.run(id)->budgetJson, "{\"clock\":\"device\",\"seconds\":1000000.0}");
  fs::remove_all(dir);
}

// A replay measured by a cluster, which hands each batch's results back one by one
// (measureEach): the measurers below say in what order.
struct ReplayOnACluster : Measurer {
  ReplayMeasurer replay{gemm()};
  std::string label() const override { return "replay on a cluster"; }
  bool isReplay() const override { return true; }
  std::string speedUnit() const override { return replay.speedUnit(); }
  std::vector<Measurement> measure(const std::vector<Config>& configs) override {
    return collectEach(configs);
  }
};

// Its agents hand each batch back as they finish, here last first.
struct AnsweredOutOfOrder : ReplayOnACluster {
  void measureEach(const std::vector<Config>& configs, const TrialCallback& done) override {
    const std::vector<Measurement> results = replay.measure(configs);
    for (std::size_t i = results.size(); i-- > 0;) done(i, results[i]);
  }
};

// A replay's run does not depend on the order its measurements come back in: the trial that
// reaches its budget by the file is the same one, and the run keeps the same trials, as when they
// come back in order (compare --seconds --cluster kept whichever came back first).
TEST(ReplayBudget, ARunCutByItsDeviceTimeIsTheSameWhateverOrderItsTrialsComeBackIn) {
  const auto run = [](Measurer& measurer) {
    Engine engine(gemm()->space, measurer);
    RunPlan plan = timeBudget("opevo", 45);
    plan.batch = 8;
    engine.addRun(plan);
    Trials trials;
    engine.addObserver(trials);
    engine.run();
    EXPECT_EQ(engine.runs()[0].end, EndReason::Time);
    return trials.configs();
  };
  ReplayMeasurer inOrder(gemm());
  AnsweredOutOfOrder reversed;
  const std::vector<std::string> expected = run(inOrder);
  ASSERT_GT(expected.size(), 8u);
  // Cut within a batch, so that the order decides which of its trials the run keeps.
  ASSERT_NE(expected.size() % 8, 0u);
  EXPECT_EQ(run(reversed), expected);
}

// A cluster's batch cut short (cancelled, or an agent's fault): the first trial never comes back.
struct FirstNeverComesBack : ReplayOnACluster {
  std::vector<std::string> delivered;
  bool first = true;
  void measureEach(const std::vector<Config>& configs, const TrialCallback& done) override {
    const std::vector<Measurement> results = replay.measure(configs);
    for (std::size_t i = first ? 1 : 0; i < results.size(); ++i) {
      delivered.push_back(gemm()->space.format(configs[i]));
      done(i, results[i]);
    }
    first = false;
  }
};

// What a measurer handed back is committed, even past a trial that never came back: taken in the
// batch's order, the results after the gap waited for it, and were dropped with the batch.
TEST(ReplayBudget, AResultHandedBackPastOneThatNeverCameIsTaken) {
  FirstNeverComesBack measurer;
  Engine engine(gemm()->space, measurer);
  RunPlan plan;
  plan.algorithm = "random";
  plan.seed = 3;
  plan.batch = 8;
  plan.budget.trials = 15;
  engine.addRun(plan);
  Trials trials;
  engine.addObserver(trials);
  engine.run();
  EXPECT_EQ(trials.configs(), measurer.delivered);
  EXPECT_EQ(trials.configs().size(), 15u);
}

// A measurer of this machine (here one answering the file's configurations, its results
// carrying the file's costs of about 1.5 s each, at 20 ms a trial): its time budget is its tuning
// time, not the compile and measurement times its trials carry, which would end it at once.
struct MeasuredHere : Measurer {
  ReplayMeasurer replay{gemm()};
  std::string label() const override { return "measured here"; }
  bool isReplay() const override { return false; }
  std::string speedUnit() const override { return replay.speedUnit(); }
  std::vector<Measurement> measure(const std::vector<Config>& configs) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(20) * configs.size());
    return replay.measure(configs);
  }
};

TEST(ReplayBudget, ARunMeasuredHereCountsItsTuningTime) {
  MeasuredHere measurer;
  Engine engine(gemm()->space, measurer);
  EXPECT_EQ(engine.budgetClock(), BudgetClock::Tuning);
  RunPlan plan;
  plan.algorithm = "random";
  plan.budget.seconds = 0.3;
  engine.addRun(plan);
  engine.run();
  const RunState& run = engine.runs()[0];
  EXPECT_EQ(run.end, EndReason::Time);
  EXPECT_GE(run.seconds, 0.3);
  EXPECT_GE(run.trials, 2);
  EXPECT_GT(run.deviceSeconds, 0.3);  // what its trials carry: not what ended it
  EXPECT_EQ(runStatusText(statusAfter(run.end), run.end, run.clock), "finished (time)");
}

TEST(ReplayBudget, OneRuleSaysWhichClockATimeBudgetCounts) {
  EXPECT_EQ(budgetClock(true), BudgetClock::Device);
  EXPECT_EQ(budgetClock(false), BudgetClock::Tuning);
  EXPECT_EQ(endReasonText(EndReason::Time, BudgetClock::Device), "device time");
  EXPECT_EQ(endReasonText(EndReason::Time, BudgetClock::Tuning), "time");
  EXPECT_EQ(endReasonText(EndReason::Trials, BudgetClock::Device), "trials");
  // Stored as before: "time" whatever the clock.
  EXPECT_EQ(endReasonName(EndReason::Time), "time");
}

}  // namespace
}  // namespace opevo
