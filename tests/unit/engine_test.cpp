#include "engine/engine.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <memory>
#include <set>
#include <stdexcept>
#include <thread>

#include "common/error.h"
#include "engine/race.h"
#include "io/replay_dataset.h"
#include "replay/replay_measurer.h"

namespace opevo {
namespace {

// The engine on a replay of real measurements: convolution on an A100, 4362 configurations.
std::shared_ptr<const ReplayDataset> convolution() {
  static const auto dataset = std::make_shared<const ReplayDataset>(
      loadReplayDataset(std::string(OPEVO_DATASETS_DIR) + "/convolution_milo/A100.json.gz"));
  return dataset;
}

RacePlan twoByTwo(int trials) {
  RacePlan plan;
  plan.algorithms = {{"opevo", {}}, {"random", {}}};
  plan.repeats = 2;
  plan.budget.trials = trials;
  return plan;
}

// What the engine reports, in order.
struct Recorder : EngineObserver {
  std::vector<TrialRecord> trials;
  std::vector<std::pair<int, EndReason>> ended;
  std::vector<EngineProgress> progress;
  void trialMeasured(const TrialEvent& e, const EngineProgress& p) override {
    trials.push_back(e.record);
    progress.push_back(p);
  }
  void runEnded(const RunState& run, const EngineProgress&) override {
    ended.emplace_back(run.index, run.end);
  }
};

TEST(Engine, InterleavesARaceBatchByBatchInRoundRobin) {
  ReplayMeasurer measurer(convolution());
  Engine engine(convolution()->space, measurer);
  addRace(engine, twoByTwo(40));
  Recorder rec;
  engine.addObserver(rec);
  engine.run();
  ASSERT_EQ(rec.trials.size(), 4u * 40u);
  // Orders run 1..N with no gap, and the first batch of every run comes before any run's second.
  for (std::size_t i = 0; i < rec.trials.size(); ++i)
    EXPECT_EQ(rec.trials[i].order, static_cast<long long>(i + 1));
  std::set<std::int64_t> firstRound;
  const std::size_t batch = engine.tuner(0).preferredBatch();
  for (std::size_t i = 0; i < 4 * batch; ++i) firstRound.insert(rec.trials[i].run);
  EXPECT_EQ(firstRound.size(), 4u);
  // Run r is stepped before run r + 1 in every round: the first trial of each run is in run order.
  for (std::size_t i = 0; i < 4; ++i)
    EXPECT_EQ(rec.trials[i * batch].run, static_cast<std::int64_t>(i + 1));
  for (const RunState& r : engine.runs()) {
    EXPECT_EQ(r.trials, 40);
    EXPECT_EQ(r.end, EndReason::Trials);
  }
  EXPECT_EQ(rec.ended.size(), 4u);
  EXPECT_TRUE(engine.done());
  EXPECT_TRUE(engine.failure().empty());
}

// OpEvo proposes 8 at a time, AutoTVM 64: the runs behind in trials go first, so neither
// curve gets ahead of the other by more than one batch.
TEST(Engine, RunsWithUnequalBatchesAdvanceTogether) {
  ReplayMeasurer measurer(convolution());
  Engine engine(convolution()->space, measurer);
  RacePlan plan;
  plan.algorithms = {{"opevo", {}}, {"autotvm", {}}};
  plan.budget.trials = 192;
  addRace(engine, plan);
  struct Gap : EngineObserver {
    int counts[2] = {0, 0};
    int widest = 0;
    void trialMeasured(const TrialEvent& e, const EngineProgress&) override {
      ++counts[e.run->index];
      widest = std::max(widest, std::abs(counts[0] - counts[1]));
    }
  } gap;
  engine.addObserver(gap);
  engine.run();
  EXPECT_EQ(gap.counts[0], 192);
  EXPECT_EQ(gap.counts[1], 192);
  EXPECT_LE(gap.widest, 64);
}

TEST(Engine, InterleavingChangesNoRunsTrialsOnAReplay) {
  // A run's trials depend on its seed alone, not on what else the engine runs beside it.
  ReplayMeasurer measurer(convolution());
  Engine race(convolution()->space, measurer);
  addRace(race, twoByTwo(30));
  Recorder all;
  race.addObserver(all);
  race.run();

  Engine alone(convolution()->space, measurer);
  RunPlan plan;
  plan.algorithm = "random";
  plan.seed = 2;  // repeat 1
  plan.budget.trials = 30;
  alone.addRun(plan);
  Recorder one;
  alone.addObserver(one);
  alone.run();

  std::vector<std::string> fromRace;
  for (const TrialRecord& t : all.trials)
    if (t.algorithm == "random" && t.repeat == 1) fromRace.push_back(t.config);
  std::vector<std::string> fromAlone;
  for (const TrialRecord& t : one.trials) fromAlone.push_back(t.config);
  EXPECT_EQ(fromRace, fromAlone);
}

TEST(Engine, ShuffleStepsEveryRunOncePerRoundInASeededOrder) {
  ReplayMeasurer measurer(convolution());
  auto firstRuns = [&](std::uint64_t seed) {
    EngineOptions options;
    options.schedule = Schedule::Shuffle;
    options.scheduleSeed = seed;
    Engine engine(convolution()->space, measurer, options);
    RacePlan plan = twoByTwo(24);
    plan.batch = 4;
    addRace(engine, plan);
    Recorder rec;
    engine.addObserver(rec);
    engine.run();
    std::vector<std::int64_t> order;  // the run of each batch
    for (std::size_t i = 0; i < rec.trials.size(); i += 4) order.push_back(rec.trials[i].run);
    return order;
  };
  const auto a = firstRuns(7);
  EXPECT_EQ(a, firstRuns(7));
  ASSERT_EQ(a.size(), 24u);  // 4 runs x 6 batches of 4
  for (std::size_t round = 0; round < 6; ++round)
    EXPECT_EQ(
        std::set<std::int64_t>(a.begin() + long(round * 4), a.begin() + long(round * 4 + 4)).size(),
        4u);
  bool differs = false;
  for (std::uint64_t seed = 8; seed < 12 && !differs; ++seed) differs = firstRuns(seed) != a;
  EXPECT_TRUE(differs);
}

TEST(Engine, StepDrivesTheRunItIsGiven) {
  ReplayMeasurer measurer(convolution());
  Engine engine(convolution()->space, measurer);
  addRace(engine, twoByTwo(16));
  Recorder rec;
  engine.addObserver(rec);
  // A scheduler of its own: run 2 first, to its end.
  while (engine.step(2)) {
  }
  EXPECT_EQ(engine.runs()[2].end, EndReason::Trials);
  EXPECT_EQ(engine.runs()[0].trials, 0);
  for (const TrialRecord& t : rec.trials) EXPECT_EQ(t.run, 3);
  EXPECT_FALSE(engine.step(2));
  engine.run();
  EXPECT_TRUE(engine.done());
  EXPECT_EQ(rec.trials.size(), 64u);
}

TEST(Engine, AGivenBatchIsMeasuredWithinTheBudgetAndItsTunerNeverProposesItAgain) {
  // A network task measuring its twin's best configurations (net/twin_tasks.h).
  ReplayMeasurer measurer(convolution());
  const SearchSpace& space = convolution()->space;
  Engine engine(space, measurer);
  RunPlan plan;
  plan.algorithm = "opevo";
  plan.budget.trials = 12;
  engine.addRun(plan);
  Recorder rec;
  engine.addObserver(rec);
  const std::vector<Config>& file = convolution()->fileOrder;
  const std::vector<Config> given(file.begin(), file.begin() + 3);
  // Nothing given measures nothing and does not end the run as exhausted.
  EXPECT_TRUE(engine.step(0, {}));
  EXPECT_EQ(engine.runs()[0].trials, 0);
  EXPECT_FALSE(engine.runs()[0].ended());
  EXPECT_TRUE(engine.step(0, given));
  ASSERT_EQ(rec.trials.size(), 3u);
  for (std::size_t i = 0; i < given.size(); ++i) {
    EXPECT_EQ(rec.trials[i].config, space.format(given[i]));
    EXPECT_EQ(rec.trials[i].trial, static_cast<int>(i) + 1);
  }
  EXPECT_EQ(engine.tuner(0).history().size(), 3u);
  engine.setBatch(0, 4);
  while (engine.step(0)) {
  }
  ASSERT_EQ(rec.trials.size(), 12u);
  std::set<std::string> configs;
  for (const TrialRecord& t : rec.trials) EXPECT_TRUE(configs.insert(t.config).second) << t.config;
  EXPECT_THROW(engine.step(0, {Config(space.dims() + 1)}), std::logic_error);

  // As many as the budget takes.
  Engine small(space, measurer);
  plan.budget.trials = 2;
  small.addRun(plan);
  EXPECT_TRUE(small.step(0, given));
  EXPECT_EQ(small.runs()[0].trials, 2);
  EXPECT_EQ(small.runs()[0].end, EndReason::Trials);
}

TEST(Engine, EndsRunsForEachReason) {
  ReplayMeasurer measurer(convolution());
  const double optimum = convolution()->bestSpeed;
  EngineOptions paced;
  paced.paceMs = 10;
  Engine engine(convolution()->space, measurer, paced);
  RunPlan target;
  target.algorithm = "random";
  target.budget.targetSpeed = 0.5 * optimum;
  engine.addRun(target);
  RunPlan time;
  time.algorithm = "random";
  // A replay's time budget is device time by the file (replay_budget_test.cpp): the A100's
  // trials cost seconds each, so 5 s is spent within a few trials, inside the first batch.
  time.budget.seconds = 5;
  engine.addRun(time);
  engine.run();
  EXPECT_EQ(engine.runs()[0].end, EndReason::Target);
  EXPECT_GE(engine.runs()[0].best, 0.5 * optimum);
  EXPECT_EQ(engine.runs()[1].end, EndReason::Time);
  EXPECT_GE(engine.runs()[1].deviceSeconds, 5);
  EXPECT_LT(engine.runs()[1].trials, 8);  // cut inside its batch, not after it

  Engine all(convolution()->space, measurer);
  RunPlan exhaustive;
  exhaustive.algorithm = "exhaustive";
  exhaustive.budget.trials = 5000;
  all.addRun(exhaustive);
  all.run();
  EXPECT_EQ(all.runs()[0].end, EndReason::Exhausted);
  EXPECT_EQ(all.runs()[0].trials, static_cast<int>(convolution()->table.size()));
}

// Builds a whole batch before reporting any of it, as the CPU measurers do: 30 ms a kernel. A
// measurer of this machine, whose time budget counts tuning time (a replay's counts device time).
struct BuildsFirst : Measurer {
  ReplayMeasurer replay{convolution()};
  std::vector<std::size_t> batches;
  std::string label() const override { return "builds first"; }
  bool isReplay() const override { return false; }
  std::string speedUnit() const override { return replay.speedUnit(); }
  std::vector<Measurement> measure(const std::vector<Config>& configs) override {
    batches.push_back(configs.size());
    std::this_thread::sleep_for(std::chrono::milliseconds(30) * configs.size());
    return replay.measure(configs);
  }
};

// The batches of a 120 ms budget at 30 ms or more a trial (a loaded machine sleeps longer, never
// shorter): each batch after the first is what fits in the time left at the pace so far, so none
// holds more than 2 and all of them no more than the 4 trials the budget holds, however slow the
// machine. The tuner's own batch of 8 would take 0.24 s.
void expectBatchesFitTheBudget(const std::vector<std::size_t>& batches) {
  std::size_t sum = 0;
  for (std::size_t b : batches) {
    EXPECT_LE(b, 2u);
    sum += b;
  }
  EXPECT_LE(sum, 4u);
}

TEST(Engine, ATimeBudgetSizesBatchesToTheTimeLeft) {
  BuildsFirst measurer;
  Engine engine(convolution()->space, measurer);
  RunPlan plan;
  plan.algorithm = "random";  // proposes 8 at a time: 240 ms of builds against 120 ms
  plan.budget.seconds = 0.12;
  engine.addRun(plan);
  engine.run();
  const RunState& run = engine.runs()[0];
  EXPECT_EQ(run.end, EndReason::Time);
  ASSERT_FALSE(measurer.batches.empty());
  EXPECT_EQ(measurer.batches.front(), 2u);  // finds the pace first
  expectBatchesFitTheBudget(measurer.batches);
  EXPECT_LT(run.seconds, 2.0);  // loose: a loaded machine sleeps longer than asked
}

// The first trials answered from history (no time), then built a batch at a time, as BuildsFirst.
struct HistoryThenBuilds : BuildsFirst {
  int reusedLeft = 16;
  std::vector<Measurement> measure(const std::vector<Config>& configs) override {
    if (reusedLeft <= 0) return BuildsFirst::measure(configs);
    std::vector<Measurement> out = replay.measure(configs);
    for (Measurement& m : out) m.reused = true;
    reusedLeft -= static_cast<int>(configs.size());
    return out;
  }
};

TEST(Engine, TrialsFromHistoryDoNotSetThePace) {
  HistoryThenBuilds measurer;
  Engine engine(convolution()->space, measurer);
  RunPlan plan;
  plan.algorithm = "random";
  plan.budget.seconds = 0.12;
  engine.addRun(plan);
  engine.run();
  const RunState& run = engine.runs()[0];
  EXPECT_EQ(run.end, EndReason::Time);
  ASSERT_FALSE(measurer.batches.empty());
  // The first measured batch finds the pace: the reused trials took no time.
  EXPECT_EQ(measurer.batches.front(), 2u);
  expectBatchesFitTheBudget(measurer.batches);
  EXPECT_LT(run.seconds, 2.0);
}

TEST(Engine, EtaIsKnownWithTrialBudgetsAndShrinks) {
  ReplayMeasurer measurer(convolution());
  EngineOptions paced;
  paced.paceMs = 2;
  Engine engine(convolution()->space, measurer, paced);
  addRace(engine, twoByTwo(12));
  Recorder rec;
  engine.addObserver(rec);
  engine.run();
  ASSERT_EQ(rec.progress.size(), 48u);
  EXPECT_EQ(rec.progress.front().trialsPlanned, 48);
  EXPECT_GT(rec.progress.front().etaSeconds, 0);
  EXPECT_LT(rec.progress[40].etaSeconds, rec.progress[4].etaSeconds);
  EXPECT_NEAR(rec.progress.back().etaSeconds, 0, 1e-9);

  Engine targetOnly(convolution()->space, measurer);
  RunPlan plan;
  plan.algorithm = "random";
  plan.budget.targetSpeed = 1e12;
  plan.budget.trials = std::nullopt;
  targetOnly.addRun(plan);
  EXPECT_LT(targetOnly.progress().etaSeconds, 0);  // nothing bounds it: unknown
}

TEST(Engine, StopFromAnotherThreadEndsEveryRunAsStopped) {
  ReplayMeasurer measurer(convolution());
  EngineOptions paced;
  paced.paceMs = 5;
  Engine engine(convolution()->space, measurer, paced);
  addRace(engine, twoByTwo(400));
  Recorder rec;
  engine.addObserver(rec);
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    engine.stop();
  });
  const auto t0 = std::chrono::steady_clock::now();
  engine.run();
  stopper.join();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  EXPECT_GT(rec.trials.size(), 0u);
  EXPECT_LT(rec.trials.size(), 1600u);
  for (const RunState& r : engine.runs()) EXPECT_EQ(r.end, EndReason::Stopped);
  EXPECT_EQ(statusAfter(EndReason::Stopped), RunStatus::Interrupted);
}

// A stop that comes with a run's last trial (the window's "Stop and quit") leaves it finished:
// it was stored interrupted with 30 of 30 trials, and its resume measured nothing.
TEST(Engine, AStopAfterTheLastTrialLeavesTheRunFinished) {
  ReplayMeasurer measurer(convolution());
  for (const int stopAt : {8, 3}) {
    Engine engine(convolution()->space, measurer);
    RunPlan plan;
    plan.algorithm = "random";
    plan.budget.trials = 8;
    engine.addRun(plan);
    struct StopAt : EngineObserver {
      Engine& engine;
      int at;
      StopAt(Engine& e, int a) : engine(e), at(a) {}
      void trialMeasured(const TrialEvent& e, const EngineProgress&) override {
        if (e.record.trial == at) engine.stop();
      }
    } stopper(engine, stopAt);
    engine.addObserver(stopper);
    engine.run();
    const RunState& run = engine.runs()[0];
    EXPECT_EQ(run.trials, stopAt);
    EXPECT_EQ(run.end, stopAt == 8 ? EndReason::Trials : EndReason::Stopped) << stopAt;
  }
}

TEST(Engine, PauseHoldsTheEngineAndIsNotTuningTime) {
  ReplayMeasurer measurer(convolution());
  EngineOptions paced;
  paced.paceMs = 5;
  Engine engine(convolution()->space, measurer, paced);
  RunPlan plan;
  plan.algorithm = "random";
  plan.budget.trials = 40;
  engine.addRun(plan);
  // The driver thread reads the count while the engine (this thread) adds to it: an atomic, not a
  // Recorder's vector (TSan reported that read racing with push_back).
  struct Counter : EngineObserver {
    std::atomic<std::size_t> trials{0};
    void trialMeasured(const TrialEvent&, const EngineProgress&) override { ++trials; }
  } counter;
  engine.addObserver(counter);
  std::size_t atPause = 0, atResume = 0;
  std::thread driver([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    engine.pause();
    std::this_thread::sleep_for(std::chrono::milliseconds(30));  // the trial in hand ends
    atPause = counter.trials.load();
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    atResume = counter.trials.load();
    engine.resume();
  });
  const auto t0 = std::chrono::steady_clock::now();
  engine.run();
  driver.join();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(atPause, atResume);
  EXPECT_EQ(engine.runs()[0].trials, 40);
  EXPECT_GT(wall, 0.4);
  EXPECT_LT(engine.runs()[0].seconds, wall - 0.3);  // the pause is not counted
}

TEST(Engine, AnObserverErrorEndsTheEngineCleanlyAsFailed) {
  ReplayMeasurer measurer(convolution());
  Engine engine(convolution()->space, measurer);
  addRace(engine, twoByTwo(40));
  struct Full : EngineObserver {
    int seen = 0;
    void trialMeasured(const TrialEvent&, const EngineProgress&) override {
      if (++seen == 11) throw std::runtime_error("writing /tmp/x.db failed: the disk is full");
    }
  } full;
  Recorder after;
  engine.addObserver(full);
  engine.addObserver(after);
  engine.run();
  EXPECT_EQ(after.trials.size(), 10u);  // the failed trial reaches no later observer
  EXPECT_NE(engine.failure().find("the disk is full"), std::string::npos);
  EXPECT_NE(engine.failure().find("run 2 (random, repeat 1)"), std::string::npos);
  // The run that met the error failed; the others stopped with it, to be resumed.
  int failed = 0;
  for (const RunState& r : engine.runs()) {
    EXPECT_TRUE(r.end == EndReason::Failed || r.end == EndReason::Stopped);
    failed += r.end == EndReason::Failed;
  }
  EXPECT_EQ(failed, 1);
  EXPECT_EQ(statusAfter(EndReason::Failed), RunStatus::Failed);
  EXPECT_EQ(statusAfter(EndReason::Stopped), RunStatus::Interrupted);
}

TEST(Engine, RefusesBadRunsBeforeMeasuringAnything) {
  ReplayMeasurer measurer(convolution());
  Engine engine(convolution()->space, measurer);
  RunPlan plan;
  plan.algorithm = "no-such-tuner";
  plan.budget.trials = 10;
  EXPECT_THROW(engine.addRun(plan), InputError);
  plan.algorithm = "opevo";
  plan.settings = {{"q", "7"}};
  EXPECT_THROW(engine.addRun(plan), InputError);
  plan.settings.clear();
  plan.budget = {};
  EXPECT_THROW(engine.addRun(plan), InputError);
  RacePlan race;
  race.budget.trials = 5;
  EXPECT_THROW(addRace(engine, race), InputError);  // no algorithm
  // Repeat r's seed, seed + r, would wrap past 2^64 - 1 to the seeds of a default race.
  race.algorithms = {{"random", {}}};
  race.repeats = 3;
  race.seed = std::numeric_limits<std::uint64_t>::max() - 1;
  EXPECT_THROW(addRace(engine, race), InputError);
  EXPECT_TRUE(engine.runs().empty());
  EXPECT_FALSE(engine.step());
  EXPECT_NO_THROW(checkRepeatSeeds(std::numeric_limits<std::uint64_t>::max(), 1));
  EXPECT_NO_THROW(checkRepeatSeeds(std::numeric_limits<std::uint64_t>::max() - 2, 3));
}

TEST(Engine, RestoredRunsContinueTheirBudgetAndOrder) {
  ReplayMeasurer measurer(convolution());
  Engine first(convolution()->space, measurer);
  RunPlan plan;
  plan.algorithm = "opevo";
  plan.budget.trials = 48;
  first.addRun(plan);
  Recorder rec;
  first.addObserver(rec);
  for (int i = 0; i < 3; ++i) first.step(0);
  std::vector<std::pair<Config, Measurement>> stored;
  for (const TrialRecord& t : rec.trials)
    stored.emplace_back(convolution()->space.parse(t.config), t.measurement);

  EngineOptions options;
  options.firstOrder = first.nextOrder();
  Engine second(convolution()->space, measurer, options);
  second.addRun(plan);
  second.restore(0, stored, 1.5);
  Recorder more;
  second.addObserver(more);
  second.run();
  EXPECT_EQ(second.runs()[0].trials, 48);
  EXPECT_EQ(more.trials.size(), 48u - stored.size());
  EXPECT_EQ(more.trials.front().trial, static_cast<int>(stored.size()) + 1);
  EXPECT_EQ(more.trials.front().order, static_cast<long long>(stored.size()) + 1);
  EXPECT_GE(more.trials.front().seconds, 1.5);
  std::set<std::string> seen;
  for (const TrialRecord& t : rec.trials) seen.insert(t.config);
  for (const TrialRecord& t : more.trials) EXPECT_TRUE(seen.insert(t.config).second) << t.config;
}

}  // namespace
}  // namespace opevo

namespace opevo {
namespace {

// A budget read back from a damaged database: a clear error, never a JSON library exception.
TEST(Budget, AStoredBudgetOfTheWrongTypeIsAnInputError) {
  EXPECT_EQ(*Budget::fromJson(R"({"trials": 40})").trials, 40);
  for (const char* bad : {R"({"trials": "40"})", R"({"trials": 1e300})", R"({"trials": 0.5})",
                          R"({"seconds": [1]})", R"({"target": null})"})
    EXPECT_THROW(Budget::fromJson(bad), InputError) << bad;
}

}  // namespace
}  // namespace opevo
