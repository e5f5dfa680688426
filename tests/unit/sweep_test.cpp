#include "engine/sweep.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "engine/engine.h"
#include "io/replay_dataset.h"
#include "replay/replay_sweep.h"

namespace opevo {
namespace {

SweepPlan grid() {
  SweepPlan plan;
  plan.algorithm = "opevo";
  plan.axes = {{"q", {"0.1", "0.5"}}, {"lambda", {"4", "8", "16"}}};
  plan.fixed = {{"rho", "8"}};
  plan.repeats = 2;
  plan.budget.trials = 3;
  return plan;
}

TEST(Sweep, CellsAreEveryCombinationFirstAxisSlowest) {
  const auto cells = sweepCells(grid());
  ASSERT_EQ(cells.size(), 6u);
  EXPECT_EQ(cells[0].at("q"), "0.1");
  EXPECT_EQ(cells[0].at("lambda"), "4");
  EXPECT_EQ(cells[2].at("lambda"), "16");
  EXPECT_EQ(cells[3].at("q"), "0.5");
  EXPECT_EQ(cells[3].at("lambda"), "4");
  for (const auto& c : cells) EXPECT_EQ(c.at("rho"), "8");
  const RacePlan race = sweepRace(grid());
  EXPECT_EQ(race.algorithms.size(), 6u);
  EXPECT_EQ(race.repeats, 2);
  for (const auto& a : race.algorithms) EXPECT_EQ(a.name, "opevo");
}

TEST(Sweep, RefusesWhatIsNotARowOrAGrid) {
  SweepPlan plan = grid();
  plan.axes.clear();
  // A setting given one value is fixed, not swept, and the refusal says so (it said "at least
  // one setting with values" after --set rho=8).
  try {
    sweepCells(plan);
    ADD_FAILURE() << "a sweep with nothing to sweep ran";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              "a sweep needs a setting with two or more values (--set q=0.1,0.3,0.5); one value "
              "(rho=8) fixes the setting in every cell");
  }
  plan = grid();
  plan.axes.push_back({"rho", {"4", "8"}});
  EXPECT_THROW(sweepCells(plan), InputError);  // three axes (and rho also fixed)
  plan = grid();
  plan.axes[1].setting = "q";
  EXPECT_THROW(sweepCells(plan), InputError);  // q twice
  plan = grid();
  plan.axes[0].values = {"0.1", "0.1"};
  EXPECT_THROW(sweepCells(plan), InputError);
}

// Run r (1-based) of the sweep's engine is cell (r - 1) mod cells; the summary of a cell holds
// only its own runs' trials.
TEST(Sweep, SummariesGroupTheTrialsOfEachCell) {
  const SweepPlan plan = grid();
  std::vector<TrialRecord> trials;
  for (int run = 1; run <= 12; ++run) {
    for (int k = 1; k <= 3; ++k) {
      TrialRecord t;
      t.run = run;
      t.algorithm = "opevo";
      t.repeat = (run - 1) / 6;
      t.trial = k;
      // Cell c reaches 10 * (c + 1) at its last trial, in both repeats.
      t.bestSoFar = k == 3 ? 10.0 * ((run - 1) % 6 + 1) : 1.0;
      trials.push_back(t);
    }
  }
  const auto cells = summarizeSweep(plan, trials, {1, 3}, 60.0);
  ASSERT_EQ(cells.size(), 6u);
  for (std::size_t c = 0; c < cells.size(); ++c) {
    ASSERT_EQ(cells[c].rows.size(), 2u);
    EXPECT_EQ(cells[c].rows[1].trials, 3);
    EXPECT_DOUBLE_EQ(cells[c].rows[1].meanBest, 10.0 * double(c + 1));
    EXPECT_DOUBLE_EQ(*cells[c].rows[1].meanFractionOfOptimum, double(c + 1) / 6.0);
  }
  EXPECT_EQ(cells[4].at, (std::vector<std::size_t>{1, 1}));
  EXPECT_EQ(cellLabel(plan, cells[4].at), "q=0.5 lambda=8");
}

TEST(Sweep, RefusesAnEmptyValueAndOneTheAlgorithmRefuses) {
  SweepPlan plan = grid();
  plan.axes[0].values = {"0.3", "", "0.7"};
  try {
    sweepCells(plan);
    FAIL() << "an empty value was dropped silently";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("empty"), std::string::npos) << e.what();
  }
  plan = grid();
  plan.axes[0].values = {"0.2", "1.5"};
  EXPECT_THROW(sweepCells(plan), InputError);  // before anything runs, not in the race
}

// Trials of one repeat as an engine racing it gives them: runs 1..cells, repeat 0, the cell's
// best after trial k being `best(cell, repeat, k)`.
std::vector<TrialRecord> repeatTrials(const SweepPlan& plan, int repeat, int trials,
                                      double (*best)(std::size_t, int, int)) {
  std::vector<TrialRecord> out;
  const std::size_t count = sweepCells(plan).size();
  for (std::size_t cell = 0; cell < count; ++cell)
    for (int k = 1; k <= trials; ++k) {
      TrialRecord t;
      t.run = static_cast<std::int64_t>(cell) + 1;
      t.algorithm = plan.algorithm;
      t.trial = k;
      t.bestSoFar = best(cell, repeat, k);
      out.push_back(t);
    }
  return out;
}

// Stopped in its third repeat, a sweep keeps the two every cell completed, numbered as one race
// of the whole plan would number them, and its map says it covers two.
TEST(Sweep, AStoppedSweepKeepsTheRepeatsEveryCellCompleted) {
  SweepPlan plan = grid();
  plan.repeats = 4;
  plan.seed = 7;
  std::vector<std::uint64_t> seeds;
  const SweepTrials done = raceSweepByRepeats(
      plan, [&](const SweepPlan& one, int repeat) -> std::optional<std::vector<TrialRecord>> {
        EXPECT_EQ(one.repeats, 1);
        seeds.push_back(one.seed);
        if (repeat == 2) return std::nullopt;
        return repeatTrials(one, repeat, 3,
                            [](std::size_t c, int r, int) { return 10.0 * double(c + 1) + r; });
      });
  EXPECT_TRUE(done.stopped);
  EXPECT_EQ(done.repeatsDone, 2);
  EXPECT_EQ(seeds, (std::vector<std::uint64_t>{7, 8, 9}));
  ASSERT_EQ(done.trials.size(), 2u * 6 * 3);
  EXPECT_EQ(done.trials.back().run, 12);
  EXPECT_EQ(done.trials.back().repeat, 1);

  const SweepResult result = sweepResult(plan, done.trials, done.repeatsDone, 3, {60.0, "x", 0});
  EXPECT_NE(result.map.title.find("after 3 trials, 2 repeats"), std::string::npos)
      << result.map.title;
  ASSERT_EQ(result.notes.size(), 1u);
  EXPECT_EQ(result.notes[0],
            "stopped after 2 of 4 repeats: the map covers 2 repeats of every cell");
  // Cell (q=0.5, lambda=16), the sixth: 60 and 61 in its two repeats.
  EXPECT_DOUBLE_EQ(*result.map.values[1][2], 60.5 / 60.0);
  EXPECT_EQ(result.map.title.rfind("opevo (rho=8): ", 0), 0u) << result.map.title;
}

// Runs that exhausted a 12-configuration space before the budget: the map holds their value at
// their last trial, and says the map is after 12 trials; it was all "-".
TEST(Sweep, ASpaceSmallerThanTheBudgetShowsTheLastTrialReached) {
  SweepPlan plan = grid();
  plan.axes.pop_back();
  plan.repeats = 1;
  plan.budget.trials = 20;
  std::vector<TrialRecord> trials =
      repeatTrials(plan, 0, 12, [](std::size_t c, int, int k) { return double(k) + double(c); });
  const SweepResult result = sweepResult(plan, trials, 1, 20, {std::nullopt, "GFLOP/s", 12});
  EXPECT_EQ(result.shownAt, 12);
  ASSERT_EQ(result.map.values.size(), 1u);
  ASSERT_TRUE(result.map.values[0][0].has_value());
  EXPECT_DOUBLE_EQ(*result.map.values[0][0], 12.0);
  EXPECT_DOUBLE_EQ(*result.map.values[0][1], 13.0);
  EXPECT_EQ(result.map.rows, (std::vector<std::string>{"after 12 trials"}));
  EXPECT_NE(result.map.title.find("after 12 trials, 1 repeat"), std::string::npos)
      << result.map.title;
  ASSERT_EQ(result.notes.size(), 1u);
  EXPECT_EQ(result.notes[0], "the space has 12 configurations: the map is after 12 trials");
  EXPECT_NE(sweepCsv(plan, result.cells).find("0.1,8,1,1,1,,,,12,12,"), std::string::npos);
}

// The saved SVG outlines the best cell, as the window does, and its legend says so.
TEST(Sweep, TheSvgOutlinesTheBestCellsAsTheWindowDoes) {
  const HeatMap one{"t", "q", "lambda", {"0.2"}, {"4", "8", "16"}, {{0.5, 0.9, 0.7}}};
  const std::string svg = heatMapSvg(one);
  EXPECT_EQ(svg.find("class=\"best\""), svg.rfind("class=\"best\""));
  EXPECT_NE(svg.find("class=\"best\""), std::string::npos);
  EXPECT_NE(svg.find("(light, outlined)"), std::string::npos) << svg;
  const HeatMap tied{"t", "q", "lambda", {"0.2"}, {"4", "8", "16"}, {{0.9, 0.9, 0.7}}};
  EXPECT_NE(heatMapSvg(tied).find("the 2 cells tied for it outlined"), std::string::npos);
}

// Stop pressed as a repeat's last trial is measured: every run has its trials (the engine ends
// them as Stopped all the same), so the repeat is kept; it was thrown away as stopped. A Stop
// before the end is still a stopped repeat.
TEST(Sweep, AStopAtARepeatsLastTrialKeepsTheRepeat) {
  const auto dataset = std::make_shared<const ReplayDataset>(
      loadReplayDataset(std::string(OPEVO_DATASETS_DIR) + "/gemm/RTX_2080_Ti.json.gz"));
  SweepPlan plan;
  plan.algorithm = "opevo";
  plan.axes = {{"q", {"0.2", "0.6"}}};
  plan.repeats = 1;
  plan.budget.trials = 10;
  // Asks the sweep to stop once `at` trials of the repeat are measured.
  struct StopAt final : EngineObserver {
    SweepControl& control;
    long long at;
    StopAt(SweepControl& c, long long a) : control(c), at(a) {}
    void trialMeasured(const TrialEvent&, const EngineProgress& p) override {
      if (p.trialsDone == at) control.stop = true;
    }
  };
  SweepControl late;
  StopAt last(late, 20);
  const ReplaySweep kept = runReplaySweep(dataset, plan, &last, &late);
  ASSERT_TRUE(late.stop);
  EXPECT_FALSE(kept.stopped);
  EXPECT_EQ(kept.trials.size(), 20u);
  EXPECT_FALSE(kept.measuredBy.empty());

  SweepControl early;
  StopAt midway(early, 5);
  const ReplaySweep cut = runReplaySweep(dataset, plan, &midway, &early);
  EXPECT_TRUE(cut.stopped);
  EXPECT_TRUE(cut.trials.empty());
}

}  // namespace
}  // namespace opevo
