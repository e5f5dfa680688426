// A race across spaces: an engine per space, taking turns on one device (InterleavedEngines).

#include "engine/interleaved_engines.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>

#include "engine/race.h"
#include "io/replay_dataset.h"
#include "replay/replay_measurer.h"

namespace opevo {
namespace {

std::shared_ptr<const ReplayDataset> dataset(const std::string& file) {
  return std::make_shared<const ReplayDataset>(
      loadReplayDataset(std::string(OPEVO_DATASETS_DIR) + "/" + file));
}

// Trials in measurement order, with the engine they came from.
struct Log : EngineObserver {
  explicit Log(std::vector<std::pair<int, TrialRecord>>& all, int engine)
      : m_all(all), m_engine(engine) {}
  void trialMeasured(const TrialEvent& e, const EngineProgress&) override {
    m_all.emplace_back(m_engine, e.record);
    algorithms.insert(e.run->plan.algorithmIndex);
  }
  std::set<int> algorithms;

 private:
  std::vector<std::pair<int, TrialRecord>>& m_all;
  int m_engine;
};

// Batches of 8 for every run: the engines' turns are then exact.
RacePlan opevoAndRandom(int trials) {
  RacePlan plan;
  plan.algorithms = {{"opevo", {}}, {"random", {}}};
  plan.repeats = 2;
  plan.budget.trials = trials;
  plan.batch = 8;
  return plan;
}

// Two spaces, as two datasets replayed by a measurer each, with an engine each.
struct TwoSpaces {
  explicit TwoSpaces(const EngineOptions& firstOptions = {},
                     const EngineOptions& secondOptions = {})
      : first(conv->space, convMeasurer, firstOptions),
        second(gemm->space, gemmMeasurer, secondOptions) {}
  std::shared_ptr<const ReplayDataset> conv = dataset("convolution_milo/A100.json.gz");
  std::shared_ptr<const ReplayDataset> gemm = dataset("gemm/RTX_2080_Ti.json.gz");
  ReplayMeasurer convMeasurer{conv}, gemmMeasurer{gemm};
  Engine first, second;
};

// Two spaces (two datasets here, as two measurers), two algorithms, two repeats: every run
// advances with the others whatever its space, the order of measurement runs on across the
// engines, and the second space's algorithms are numbered after the first's.
TEST(InterleavedEngines, RunsOfEverySpaceAdvanceTogetherInOneOrder) {
  TwoSpaces spaces;
  Engine &first = spaces.first, &second = spaces.second;
  addRace(first, opevoAndRandom(40));
  addRace(second, opevoAndRandom(40), 2);
  std::vector<std::pair<int, TrialRecord>> all;
  Log firstLog(all, 0), secondLog(all, 1);
  first.addObserver(firstLog);
  second.addObserver(secondLog);
  InterleavedEngines engines({&first, &second});
  EXPECT_EQ(engines.progress().runs, 8);
  EXPECT_EQ(engines.progress().trialsPlanned, 8 * 40);
  engines.run();

  ASSERT_EQ(all.size(), 8u * 40u);
  EXPECT_EQ(firstLog.algorithms, (std::set<int>{0, 1}));
  EXPECT_EQ(secondLog.algorithms, (std::set<int>{2, 3}));
  // One order across the engines: 1..N with no gap or repeat.
  for (std::size_t i = 0; i < all.size(); ++i)
    EXPECT_EQ(all[i].second.order, static_cast<long long>(i + 1));
  // Taking turns, batch by batch: neither engine gets ahead of the other by more than one batch
  // (8 trials), counted after every trial; run one engine to its end and then the other, and
  // this fails at the ninth trial.
  int trials[2] = {0, 0};
  for (const auto& [engine, t] : all) {
    ++trials[engine];
    EXPECT_LE(std::abs(trials[0] - trials[1]), 8) << "at order " << t.order;
  }
  // The first engine's first batch, then the second's.
  for (std::size_t i = 0; i < 16; ++i) EXPECT_EQ(all[i].first, i < 8 ? 0 : 1) << i;
  for (const Engine* e : {&first, &second})
    for (const RunState& r : e->runs()) EXPECT_EQ(r.trials, 40);
  EXPECT_EQ(engines.progress().runsEnded, 8);
  EXPECT_EQ(engines.progress().trialsDone, 8 * 40);
  EXPECT_FALSE(engines.step());
  EXPECT_TRUE(engines.failure().empty());
}

// An observer that fails on one engine (a store refusing a run's end) ends the whole race: the
// failing engine's other runs and the other engine's alike, none run to its budget, and failure()
// says why. (An engine goes on with its other runs when a run's end fails to be observed.)
TEST(InterleavedEngines, AFailureOnOneEngineEndsEveryEnginesRuns) {
  TwoSpaces spaces;
  Engine &first = spaces.first, &second = spaces.second;
  addRace(first, opevoAndRandom(400));
  addRace(second, opevoAndRandom(400), 2);
  RunPlan shortRun;  // ends first, and its end is refused
  shortRun.algorithm = "random";
  shortRun.budget.trials = 8;
  shortRun.algorithmIndex = 4;
  second.addRun(shortRun);
  struct FullDisk : EngineObserver {
    void runEnded(const RunState&, const EngineProgress&) override {
      throw std::runtime_error("disk full");
    }
  } fullDisk;
  second.addObserver(fullDisk);
  InterleavedEngines engines({&first, &second});
  engines.run();
  EXPECT_NE(engines.failure().find("disk full"), std::string::npos) << engines.failure();
  for (const Engine* e : {&first, &second})
    for (const RunState& r : e->runs()) {
      if (r.plan.algorithmIndex == 4) continue;  // the short run: it ended on its 8 trials
      EXPECT_TRUE(r.end == EndReason::Stopped || r.end == EndReason::Failed) << int(r.end);
      EXPECT_LT(r.trials, 400);
    }
}

// A stop reaches every engine: each run ends as stopped, resumable, at its next trial.
TEST(InterleavedEngines, AStopEndsEveryEnginesRuns) {
  TwoSpaces spaces;
  Engine &first = spaces.first, &second = spaces.second;
  addRace(first, opevoAndRandom(400));
  addRace(second, opevoAndRandom(400), 2);
  InterleavedEngines engines({&first, &second});
  ASSERT_TRUE(engines.step());
  ASSERT_TRUE(engines.step());
  engines.stop();
  engines.run();
  for (const Engine* e : {&first, &second})
    for (const RunState& r : e->runs()) {
      EXPECT_EQ(r.end, EndReason::Stopped);
      EXPECT_LT(r.trials, 400);
    }
}

// The shuffle schedule draws the next run among every engine's runs furthest behind: no space is
// measured first at each trial count (in turn, the first engine always was), the runs still
// advance together, and one seed gives one order.
TEST(InterleavedEngines, TheShuffleScheduleDrawsAmongEveryEnginesRuns) {
  // The engine of each batch, in measurement order, for a seed.
  const auto batches = [](std::uint64_t seed) {
    EngineOptions options;
    options.schedule = Schedule::Shuffle;
    options.scheduleSeed = seed;
    TwoSpaces spaces(options, options);
    addRace(spaces.first, opevoAndRandom(24));
    addRace(spaces.second, opevoAndRandom(24), 2);
    std::vector<std::pair<int, TrialRecord>> all;
    Log firstLog(all, 0), secondLog(all, 1);
    spaces.first.addObserver(firstLog);
    spaces.second.addObserver(secondLog);
    InterleavedEngines engines({&spaces.first, &spaces.second}, Schedule::Shuffle, seed);
    engines.run();
    EXPECT_EQ(all.size(), 8u * 24u);
    for (std::size_t i = 0; i < all.size(); ++i)
      EXPECT_EQ(all[i].second.order, static_cast<long long>(i + 1));
    for (const Engine* e : {&spaces.first, &spaces.second})
      for (const RunState& r : e->runs()) EXPECT_EQ(r.trials, 24);
    std::vector<int> engineOfBatch;
    for (std::size_t i = 0; i < all.size(); i += 8) engineOfBatch.push_back(all[i].first);
    return engineOfBatch;
  };
  int rounds = 0, secondFirst = 0;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const std::vector<int> b = batches(seed);
    ASSERT_EQ(b.size(), 24u);
    // A round steps each of the 8 runs once (a batch of 8 each): four batches of each engine.
    for (std::size_t round = 0; round < b.size(); round += 8) {
      EXPECT_EQ(std::count(b.begin() + round, b.begin() + round + 8, 1), 4) << seed;
      ++rounds;
      secondFirst += b[round];
    }
  }
  // Each engine goes first in about half the rounds (6 of 12 here); in turn the second never did.
  EXPECT_GT(secondFirst, 2);
  EXPECT_LT(secondFirst, rounds - 2);
  EXPECT_EQ(batches(3), batches(3));
}

// A resumed race goes on from the latest order either engine holds.
TEST(InterleavedEngines, OrdersGoOnFromTheLatestEngine) {
  EngineOptions early, late;
  early.firstOrder = 5;
  late.firstOrder = 90;
  TwoSpaces spaces(early, late);
  Engine &first = spaces.first, &second = spaces.second;
  RacePlan plan = opevoAndRandom(3);
  plan.repeats = 1;
  addRace(first, plan);
  addRace(second, plan, 2);
  std::vector<std::pair<int, TrialRecord>> all;
  Log firstLog(all, 0), secondLog(all, 1);
  first.addObserver(firstLog);
  second.addObserver(secondLog);
  InterleavedEngines engines({&first, &second});
  engines.run();
  ASSERT_EQ(all.size(), 12u);
  EXPECT_EQ(all.front().second.order, 90);
  EXPECT_EQ(all.back().second.order, 101);
}

}  // namespace
}  // namespace opevo
