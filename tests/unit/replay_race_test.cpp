#include <gtest/gtest.h>

#include <memory>

#include "engine/engine.h"
#include "engine/race.h"
#include "engine/race_summary.h"
#include "io/replay_dataset.h"
#include "replay/replay_measurer.h"

namespace opevo {
namespace {

// The product's claim on real measured data: OpEvo's mean best after 100 trials beats random
// search's over 20 fixed seeds (convolution on an A100, 4362 measured configurations).
TEST(ReplayRace, OpEvoBeatsRandomAfter100Trials) {
  auto dataset = std::make_shared<const ReplayDataset>(
      loadReplayDataset(std::string(OPEVO_DATASETS_DIR) + "/convolution_milo/A100.json.gz"));
  ReplayMeasurer measurer(dataset);
  RacePlan plan;
  plan.algorithms = {{"opevo", {}}, {"random", {}}};
  plan.repeats = 20;
  plan.budget.trials = 100;
  plan.seed = 1;
  Engine engine(dataset->space, measurer);
  addRace(engine, plan);
  TrialLog log;
  engine.addObserver(log);
  engine.run();
  const auto summary =
      summarize(log.trials(), {"opevo", "random"}, summaryBudgets(100), dataset->bestSpeed);
  double opevo = 0, random = 0;
  for (const SummaryRow& row : summary) {
    if (row.trials != 100) continue;
    (row.algorithm == "opevo" ? opevo : random) = row.meanBest;
  }
  EXPECT_GT(opevo, random);
  // Every trial answered from the file, none measured twice within a run.
  EXPECT_EQ(log.trials().size(), 2u * 20u * 100u);
}

// AutoTVM and Ansor both start from random draws of the repeat's seed: the race names the start
// they share (64 trials, AutoTVM's first batch) and no pair that differs from the first trial.
TEST(ReplayRace, NamesTheStartTwoModelTunersShare) {
  auto dataset = std::make_shared<const ReplayDataset>(
      loadReplayDataset(std::string(OPEVO_DATASETS_DIR) + "/convolution_milo/A100.json.gz"));
  ReplayMeasurer measurer(dataset);
  RacePlan plan;
  plan.algorithms = {{"autotvm", {}}, {"ansor", {}}, {"random", {}}};
  plan.repeats = 2;
  plan.budget.trials = 100;
  Engine engine(dataset->space, measurer);
  addRace(engine, plan);
  TrialLog log;
  engine.addObserver(log);
  engine.run();
  const auto shared = sharedStarts(log.trials(), {"autotvm", "ansor", "random"});
  ASSERT_EQ(shared.size(), 1u);
  EXPECT_EQ(shared[0].algorithms, (std::vector<std::string>{"autotvm", "ansor"}));
  EXPECT_GE(shared[0].trials, 8);
  EXPECT_LT(shared[0].trials, 100);  // their models part them within the budget
}

}  // namespace
}  // namespace opevo
