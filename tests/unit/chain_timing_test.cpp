// CpuNetworkRun::taskLoopTimes: each task step of the chain timed alone in a loop, its operands
// evicted as tuning evicts them (bench_chain_timing compares it with the chain's step times).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "net/cpu_network.h"
#include "net/network_json.h"
#include "net/untuned_configs.h"

namespace opevo::net {
namespace {

TEST(ChainTiming, EveryTaskStepIsTimedInALoopInTheChainsOrderAndNothingChanges) {
  const Network n = loadNetwork(std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_link_needed.json");
  const TaskGraph g = extractTasks(n);
  CpuNetworkRun run(n, g, untunedConfigs(g, layout::TuningMode::Joint), layout::TuningMode::Joint,
                    3);
  const std::vector<float> before = run.forward();
  std::vector<std::string> chain;
  for (const StepTime& s : run.stepTimes(3))
    if (s.kind == StepKind::Task) chain.push_back(s.name);
  ASSERT_FALSE(chain.empty());
  for (const bool weights : {false, true})
    for (const bool activations : {false, true}) {
      SCOPED_TRACE(std::string(weights ? "weights cold" : "weights warm") + ", " +
                   (activations ? "activations cold" : "activations warm"));
      const std::vector<StepTime> loop = run.taskLoopTimes(3, weights, activations);
      ASSERT_EQ(loop.size(), chain.size());
      for (std::size_t i = 0; i < loop.size(); ++i) {
        EXPECT_EQ(loop[i].name, chain[i]);
        EXPECT_EQ(loop[i].kind, StepKind::Task);
        EXPECT_GT(loop[i].ms, 0);
      }
    }
  // The evictions write dirty lines back: the program computes what it did.
  EXPECT_EQ(run.forward(), before);
}

}  // namespace
}  // namespace opevo::net
