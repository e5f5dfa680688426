#include <gtest/gtest.h>

#include <memory>

#include "engine/compare.h"
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
  CompareOptions options;
  options.algorithms = {"opevo", "random"};
  options.repeats = 20;
  options.trials = 100;
  options.seed = 1;
  const CompareResult result = runCompare(dataset->space, measurer, options, dataset->bestSpeed);
  double opevo = 0, random = 0;
  for (const SummaryRow& row : result.summary) {
    if (row.trials != 100) continue;
    (row.algorithm == "opevo" ? opevo : random) = row.meanBest;
  }
  EXPECT_GT(opevo, random);
  // Every trial answered from the file, none measured twice within a run.
  EXPECT_EQ(result.trials.size(), 2u * 20u * 100u);
}

}  // namespace
}  // namespace opevo
