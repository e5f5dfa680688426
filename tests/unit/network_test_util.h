#pragma once

// What the tests of networks as GPU programs share (tests/unit/network_gpu_test.cpp emulated,
// tests/gpu/network_cuda_run_test.cpp on a device).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "codegen/device_limits.h"
#include "codegen_test_util.h"
#include "net/network_tuning.h"
#include "net/tasks.h"
#include "ops/operator_json.h"
#include "ops/presets.h"

namespace opevo::test {

// The index of the task named `name` in g (a failure where there is none).
inline std::size_t taskNamed(const net::TaskGraph& g, const std::string& name) {
  for (std::size_t i = 0; i < g.tasks.size(); ++i)
    if (g.tasks[i].name == name) return i;
  ADD_FAILURE() << "no task " << name;
  return 0;
}

// One seeded random configuration per task of its loop-mode space on `backend` (the GPU
// templates' space on CUDA and HIP). On a GPU, given limits, only configurations whose launch
// fits them (the space does not bound shared memory: a tuner's trial that breaks a device limit
// fails, so tuned ones fit), and given maxThreads > 0, with at most that many threads a block (the
// emulation runs a CPU thread per GPU thread).
inline std::vector<Config> randomTaskConfigs(const net::TaskGraph& g, codegen::Backend backend,
                                             std::uint64_t seed,
                                             const codegen::DeviceLimits* limits = nullptr,
                                             std::int64_t maxThreads = 0,
                                             net::TaskTemplates templates = {}) {
  std::vector<Config> configs;
  for (const net::Task& t : g.tasks) {
    OperatorDefinition def = net::taskDefinition(t, layout::TuningMode::Loop, templates);
    const bool gpu = backend != codegen::Backend::Cpu;
    if (gpu) def = withSpaceTarget(std::move(def), gpuTarget(def.target));
    const std::vector<Config> c = randomConfigs(def.space, 1, seed, [&](const Config& c) {
      if (!gpu) return true;
      if (maxThreads > 0 && threadsPerBlock(def.op, def.space, c) > maxThreads) return false;
      if (!limits) return true;
      const auto launch = codegen::generateKernel(def.op, def.space, c, backend).launch;
      return codegen::checkLaunch(launch, nullptr, *limits).empty();
    });
    EXPECT_EQ(c.size(), 1u) << t.name;
    configs.push_back(c.empty() ? Config{} : c.front());
  }
  return configs;
}

}  // namespace opevo::test
