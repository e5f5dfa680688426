#include "engine/sweep.h"

#include <gtest/gtest.h>

#include "common/error.h"

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
  EXPECT_THROW(sweepCells(plan), InputError);
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

}  // namespace
}  // namespace opevo
