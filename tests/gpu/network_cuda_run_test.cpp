// Networks run end to end on the CUDA device (net/cuda_network.h): every layer kind's fixed kernel
// and random task configurations chained, against the CPU program of the same network, and the
// preset networks verified against their plain reference kernels as `opevo net tune --backend
// cuda` runs them, and a tuned run concluded as that command and the Networks page do. Skipped
// where there is no CUDA device.

#include <gtest/gtest.h>

#include <filesystem>

#include "cpu/operator_buffers.h"
#include "cuda/cuda_driver.h"
#include "cuda/nvrtc_compiler.h"
#include "net/cpu_network.h"
#include "net/cuda_network.h"
#include "net/end_to_end.h"
#include "net/network_json.h"
#include "net/network_session.h"
#include "network_test_util.h"
#include "store/store.h"

namespace opevo::test {
namespace {

using codegen::Backend;

bool skipWithoutDevice(std::string* why) {
  if (!NvrtcCompiler::shared().available())
    *why = NvrtcCompiler::shared().unavailableReason();
  else if (!cuda::CudaDriver::shared().ready())
    *why = cuda::CudaDriver::shared().reason();
  return !why->empty();
}

// A network file of tests/data: in the source tree the program was built from, or, carried to the
// GPU machine (scripts/gpu-campaign tests runs it from the repository's root there), under the
// working directory.
std::string dataFile(const std::string& name) {
  const std::string built = std::string(OPEVO_SOURCE_DIR) + "/tests/data/" + name;
  return std::filesystem::exists(built) ? built : "tests/data/" + name;
}

// Configurations whose launch fits this device; with `templates`, those templates' for the
// tasks they take.
std::vector<Config> taskConfigs(const net::TaskGraph& g, Backend backend, std::uint64_t seed,
                                net::TaskTemplates templates = {}) {
  const codegen::DeviceLimits device =
      codegen::nominalLimits(cuda::CudaDriver::shared().device().arch());
  return randomTaskConfigs(g, backend, seed, &device, 0, templates);
}

TEST(NetworkCudaRun, EveryLayerKindMatchesTheCpuProgram) {
  std::string why;
  if (skipWithoutDevice(&why)) GTEST_SKIP() << why;
  for (const char* file : {"net_all_ops.json", "net_fixed_elementwise.json"}) {
    const net::Network n = net::loadNetwork(dataFile(file));
    const net::TaskGraph g = net::extractTasks(n);
    const auto loop = layout::TuningMode::Loop;
    net::CpuNetworkRun cpu(n, g, taskConfigs(g, Backend::Cpu, 3), loop, 5);
    const std::vector<float> want = cpu.forward();
    net::CudaNetworkRun run(
        net::buildNetworkProgram(n, g, taskConfigs(g, Backend::Cuda, 4), loop, 5, Backend::Cuda));
    EXPECT_LE(maxRelativeError(run.forward(), want), kVerifyTolerance) << file;
    // A second pass gives the same (split-K's turns are back at zero after a launch).
    EXPECT_LE(maxRelativeError(run.forward(), want), kVerifyTolerance) << file;
    const std::vector<double> times = run.time(1, 3);
    ASSERT_EQ(times.size(), 3u);
    for (double t : times) EXPECT_GT(t, 0) << file;
  }
}

TEST(NetworkCudaRun, PresetNetworksAreVerifiedAgainstTheirPlainKernels) {
  std::string why;
  if (skipWithoutDevice(&why)) GTEST_SKIP() << why;
  for (const char* name : {"alexnet", "resnet18"}) {
    const net::Network n = net::loadNetwork(name);
    const net::TaskGraph g = net::extractTasks(n);
    const net::EndToEnd e =
        net::runEndToEndCuda(n, g, taskConfigs(g, Backend::Cuda, 7), {1, 1, 5, false});
    EXPECT_TRUE(e.verified) << name << ": max relative error " << e.error;
    EXPECT_GT(e.ms, 0) << name;
    EXPECT_GT(e.taskMs, 0) << name;
    EXPECT_NE(e.device.find("sm_"), std::string::npos) << e.device;
    EXPECT_FALSE(e.steps.empty());
  }
}

// ResNet-18 with its 3x3 convolutions on Winograd's template, end to end on the device against
// its plain reference kernels, as `opevo net tune --backend cuda --template winograd` runs it.
TEST(NetworkCudaRun, ResNet18WithWinogradTasksIsVerifiedAgainstItsPlainKernels) {
  std::string why;
  if (skipWithoutDevice(&why)) GTEST_SKIP() << why;
  const net::Network n = net::loadNetwork("resnet18");
  const net::TaskGraph g = net::extractTasks(n);
  const net::EndToEnd e = net::runEndToEndCuda(
      n, g, taskConfigs(g, Backend::Cuda, 8, {true, false}), {1, 1, 5, false}, {true, false});
  EXPECT_TRUE(e.verified) << "max relative error " << e.error;
  EXPECT_GT(e.ms, 0);
}

// AlexNet at batch 1 with its fc layers on the matrix-vector template, as `opevo net tune
// --backend cuda --template matvec` runs it: verified end to end against its plain kernels.
TEST(NetworkCudaRun, AlexNetWithMatVecDenseLayersIsVerifiedAgainstItsPlainKernels) {
  std::string why;
  if (skipWithoutDevice(&why)) GTEST_SKIP() << why;
  const net::Network n = net::loadNetwork("alexnet");
  const net::TaskGraph g = net::extractTasks(n);
  const net::TaskTemplates matvec{false, true};
  int taken = 0;
  for (const net::Task& t : g.tasks)
    taken += net::taskDefinition(t, layout::TuningMode::Loop, matvec).target == SpaceTarget::MatVec;
  EXPECT_EQ(taken, 3);  // fc6, fc7, fc8
  const net::EndToEnd e = net::runEndToEndCuda(n, g, taskConfigs(g, Backend::Cuda, 9, matvec),
                                               {1, 1, 5, false}, matvec);
  EXPECT_TRUE(e.verified) << "max relative error " << e.error;
  EXPECT_GT(e.ms, 0);
}

// What `opevo net tune --backend cuda` and the Networks page do after the tuning: each task's
// library timed, the network run end to end on the device, the result stored.
TEST(NetworkCudaRun, ATunedRunIsConcludedOnTheDevice) {
  std::string why;
  if (skipWithoutDevice(&why)) GTEST_SKIP() << why;
  TempDir dir("opevo-net-cuda");
  Store store(dir.path() + "/opevo.db");
  net::NetworkSource src;
  src.source = dataFile("net_fixed_elementwise.json");
  src.text = net::networkText(src.source);
  src.backend = "cuda";
  src.plan.trials = 8;
  src.plan.unit = 4;
  src.plan.mode = layout::TuningMode::Loop;
  BackendOptions options;
  options.cuda.workerPath = OPEVO_WORKER;
  options.cuda.timing.minTotalMs = 5;
  net::NetworkSession session(store, std::move(src), options);
  while (session.step()) {
  }
  std::vector<net::ConcludeStep> steps;
  net::ConcludeOptions conclude;
  conclude.endToEnd = {1, 1, 5, false};
  conclude.onStep = [&](net::ConcludeStep s) { steps.push_back(s); };
  const net::Conclusion c = session.conclude(conclude);
  EXPECT_EQ(steps, (std::vector<net::ConcludeStep>{net::ConcludeStep::TaskReferences,
                                                   net::ConcludeStep::EndToEndOnDevice}));
  ASSERT_TRUE(c.endToEnd) << c.endToEndError;
  EXPECT_TRUE(c.endToEnd->verified) << "max relative error " << c.endToEnd->error;
  EXPECT_GT(c.result.value("end_to_end_ms", 0.0), 0);
  EXPECT_TRUE(c.result.contains("library_network_ms")) << c.result["tasks"].dump();
  EXPECT_NE(c.result.value("device", std::string()).find("sm_"), std::string::npos);
  const std::optional<NetworkRecord> stored = store.network(session.id());
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->status, RunStatus::Finished);
  EXPECT_EQ(nlohmann::json::parse(stored->resultJson)["end_to_end_ms"], c.result["end_to_end_ms"]);
}

}  // namespace
}  // namespace opevo::test
