#include <gtest/gtest.h>

#include "backends/cluster_backend.h"

// What a cluster master asks its agents to measure with travels as JSON; every GPU backend on
// the agent times as the master's command line said (the CPU's choices reach them too).
namespace opevo {
namespace {

TEST(ClusterMeasuringOptions, TheMastersTimingChoicesReachEveryBackendOfTheAgent) {
  BackendOptions master;
  master.cpu.compileThreads = 6;
  master.cpu.timing.minTotalMs = 25;
  master.cpu.cutoffFactor = 4;
  master.cpu.timeoutSeconds = 30;
  master.cpu.timing.coldWeights = true;  // a network's task: its agent times it cold too
  master.cpu.timing.coldActivations = true;
  const BackendOptions agent = measuringOptionsFromJson(measuringOptionsJson(master));
  EXPECT_EQ(agent.cpu.cutoffFactor, 4);
  EXPECT_TRUE(agent.cpu.timing.coldWeights);
  EXPECT_TRUE(agent.cpu.timing.coldActivations);
  for (const GpuMeasurerOptions* gpu : {&agent.cuda, &agent.hip}) {
    EXPECT_EQ(gpu->compileThreads, 6);
    EXPECT_EQ(gpu->timing.minTotalMs, 25);
    EXPECT_EQ(gpu->cutoffFactor, 4);
    EXPECT_EQ(gpu->timeoutSeconds, 30);
  }
  // An agent asked nothing keeps each backend's defaults.
  const BackendOptions plain = measuringOptionsFromJson(nlohmann::json::object());
  EXPECT_EQ(plain.cuda.cutoffFactor, GpuMeasurerOptions().cutoffFactor);
  EXPECT_EQ(plain.cuda.timeoutSeconds, GpuMeasurerOptions().timeoutSeconds);
  EXPECT_FALSE(plain.cpu.timing.coldWeights);
  EXPECT_FALSE(plain.cpu.timing.coldActivations);
}

}  // namespace
}  // namespace opevo
