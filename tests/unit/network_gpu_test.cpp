// A network as a CUDA program (net/network_program.h with Backend::Cuda): every layer kind's fixed
// kernel and every task's kernel chained as CudaNetworkRun launches them, checked without a GPU by
// emulating each step on CPU threads (gpu_emulation.h) against the CPU program of the same
// network, weights and input. And the CUDA programs of the preset networks compile with NVRTC.

#include <gtest/gtest.h>

#include <cmath>
#include <future>
#include <map>
#include <set>

#include "common/error.h"
#include "cpu/operator_buffers.h"
#include "cuda/nvrtc_compiler.h"
#include "gpu_emulation.h"
#include "hip/hiprtc_compiler.h"
#include "net/cpu_network.h"
#include "net/network_json.h"
#include "net/network_program.h"
#include "network_test_util.h"
#include "ops/winograd_space.h"

namespace opevo::test {
namespace {

using codegen::Backend;
using net::NetworkProgram;
using net::ProgramOperand;
using net::StepKind;

const std::string kAllOps = std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_all_ops.json";

// Few threads a block keep the emulation (a CPU thread per GPU thread) quick.
std::vector<Config> taskConfigs(const net::TaskGraph& g, Backend backend, std::uint64_t seed) {
  const codegen::DeviceLimits h100 = codegen::nominalLimits("sm_90");
  return randomTaskConfigs(g, backend, seed, &h100, 64);
}

constexpr std::size_t kCanaryFloats = 16;
constexpr float kCanary = -7.25f;

// Runs a CUDA program's steps in order on emulated threads, on host copies of its tensors.
std::vector<float> emulate(const NetworkProgram& p) {
  std::string source = emulationHeader();
  for (const net::ProgramStep& s : p.steps) {
    const net::ProgramKernel& k = p.kernels.at(s.entry);
    const std::string& module = p.modules[std::size_t(k.module)];
    source += s.kind == StepKind::Task
                  ? emulatedKernel({Backend::Cuda, s.entry, module, k.launch, 0, "", "", "", ""})
                  : emulatedFixedKernel(module, s.entry, k.launch);
  }
  LoadedObject so(source, {"-O1", "-std=c++20", "-pthread", "-shared", "-fPIC"});
  EXPECT_TRUE(so.ok()) << so.result().log;
  if (!so.ok()) return {};
  std::vector<std::vector<float>> storage;
  std::vector<float*> data;
  storage.reserve(p.tensors.size());
  for (const net::ProgramTensor& t : p.tensors) {
    if (t.aliasOf >= 0) {
      data.push_back(data[std::size_t(t.aliasOf)]);
      continue;
    }
    // NaN until written, as on the device: an element no kernel writes shows in the output.
    storage.push_back(t.input.empty() ? std::vector<float>(std::size_t(t.elements), std::nanf(""))
                                      : t.input);
    // Then a canary that must survive every step: a write past the tensor's end shows.
    storage.back().resize(storage.back().size() + kCanaryFloats, kCanary);
    data.push_back(storage.back().data());
  }
  auto canariesIntact = [&] {
    for (const std::vector<float>& t : storage)
      for (std::size_t i = t.size() - kCanaryFloats; i < t.size(); ++i)
        if (t[i] != kCanary) return false;
    return true;
  };
  auto pointer = [&](const ProgramOperand& o) -> const float* {
    if (o.kind == ProgramOperand::Kind::Tensor) return data[std::size_t(o.index)];
    if (o.kind == ProgramOperand::Kind::Param) return p.params[std::size_t(o.index)].data();
    return nullptr;
  };
  using FixedFn = void (*)(const float* const*, float*, const float* const*);
  for (const net::ProgramStep& s : p.steps) {
    float* out = data[std::size_t(s.out)];
    if (s.kind == StepKind::Task) {
      so.symbol<KernelFn>("emu_" + s.entry)(pointer(s.in[0]), pointer(s.in[1]), out,
                                            pointer(s.in[2]), pointer(s.in[3]));
      EXPECT_TRUE(canariesIntact()) << s.name << " (" << s.entry << ") wrote past a tensor's end";
      continue;
    }
    std::vector<const float*> in, params;
    for (const ProgramOperand& o : s.in) in.push_back(pointer(o));
    for (const ProgramOperand& o : s.params) params.push_back(pointer(o));
    so.symbol<FixedFn>("emu_" + s.entry)(in.data(), out, params.data());
    EXPECT_TRUE(canariesIntact()) << s.name << " (" << s.entry << ") wrote past a tensor's end";
  }
  const float* o = data[std::size_t(p.output)];
  return {o, o + p.tensors[std::size_t(p.output)].elements};
}

// Every layer kind once (tests/data/net_all_ops.json, whose elementwise layers tasks absorb, and
// net_fixed_elementwise.json, where they follow a pool and run as fixed kernels): the tuned CUDA
// chain and the chain of plain reference kernels, emulated, both match the CPU program's output.
TEST(NetworkGpuProgram, EmulatedChainOfEveryLayerKindMatchesTheCpuProgram) {
  const std::map<std::string, std::set<std::string>> fixedLayers = {
      {kAllOps, {"p1", "a1", "bn2", "g1", "sm", "tp", "ln"}},
      {std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_fixed_elementwise.json",
       {"p1", "r1", "g1", "s1", "a1", "b1", "p2"}},
      // ReLU6 fused into plain, depthwise and 1x1 convolutions, and as a fixed kernel.
      {std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_relu6.json",
       {"pool", "pool.scale", "pool.relu6", "gap"}}};
  for (const auto& [file, fixed] : fixedLayers) {
    const net::Network n = net::loadNetwork(file);
    const net::TaskGraph g = net::extractTasks(n);
    const auto loop = layout::TuningMode::Loop;
    net::CpuNetworkRun cpu(n, g, taskConfigs(g, Backend::Cpu, 3), loop, 5);
    const std::vector<float> want = cpu.forward();

    const std::vector<Config> gpu = taskConfigs(g, Backend::Cuda, 4);
    const NetworkProgram tuned = net::buildNetworkProgram(n, g, gpu, loop, 5, Backend::Cuda);
    const NetworkProgram plain =
        net::buildNetworkProgram(n, g, gpu, loop, 5, Backend::Cuda, net::TaskKernels::Reference);
    EXPECT_EQ(tuned.modules.size(), tuned.kernels.size()) << file;  // one module per kernel
    EXPECT_TRUE(tuned.source.empty());
    std::set<std::string> seen;
    for (const net::ProgramStep& s : tuned.steps)
      if (s.kind == StepKind::Fixed) seen.insert(s.name);
    EXPECT_EQ(seen, fixed) << file;
    EXPECT_NE(tuned.modules[std::size_t(tuned.kernels.at("task_0").module)].find("__global__"),
              std::string::npos);
    for (const NetworkProgram* p : {&tuned, &plain}) {
      const std::vector<float> got = emulate(*p);
      ASSERT_EQ(got.size(), want.size()) << file;
      EXPECT_LE(maxRelativeError(got, want), kVerifyTolerance)
          << file << ": " << (p == &tuned ? "tuned kernels" : "plain reference kernels");
    }
  }
}

// A network whose 3x3 convolutions (bias and relu, a residual add fused) tuned Winograd's
// template: the program builds their kernels from it, and the emulated chain matches the CPU
// program.
TEST(NetworkGpuProgram, WinogradTasksAreBuiltFromTheirTemplate) {
  // Batch 4: a and b have 36 tiles of 4 x 4 outputs, enough for the template (winogradPays).
  const net::Network n = net::loadNetwork(
      std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_conv_chain.json", {{"batch", 4}});
  const net::TaskGraph g = net::extractTasks(n);
  const auto loop = layout::TuningMode::Loop;
  net::CpuNetworkRun cpu(n, g, taskConfigs(g, Backend::Cpu, 3), loop, 5);
  const std::vector<float> want = cpu.forward();

  const codegen::DeviceLimits h100 = codegen::nominalLimits("sm_90");
  const std::vector<Config> configs =
      randomTaskConfigs(g, Backend::Cuda, 6, &h100, 64, {true, false});
  const NetworkProgram p = net::buildNetworkProgram(n, g, configs, loop, 5, Backend::Cuda,
                                                    net::TaskKernels::Tuned, {true, false});
  int winograd = 0;
  for (std::size_t i = 0; i < g.tasks.size(); ++i) {
    const std::string& module =
        p.modules[std::size_t(p.kernels.at("task_" + std::to_string(i)).module)];
    const bool takes = winogradPays(g.tasks[i].op);
    EXPECT_EQ(module.find("Winograd F(4x4, 3x3)") != std::string::npos, takes) << g.tasks[i].name;
    winograd += takes;
  }
  EXPECT_EQ(winograd, 2);  // a and b; c is a strided 1x1, d a dense layer
  const std::vector<float> got = emulate(p);
  ASSERT_EQ(got.size(), want.size());
  EXPECT_LE(maxRelativeError(got, want), kVerifyTolerance);
}

// The same network with its dense layer on the matrix-vector template: the program builds that
// task's kernel from it, the CPU program too, and the emulated chain matches the CPU program.
TEST(NetworkGpuProgram, MatVecTasksAreBuiltFromTheirTemplate) {
  const net::Network n = net::loadNetwork(
      std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_conv_chain.json", {{"batch", 1}});
  const net::TaskGraph g = net::extractTasks(n);
  const auto loop = layout::TuningMode::Loop;
  const net::TaskTemplates matvec{false, true};
  const std::vector<Config> cpuConfigs = randomTaskConfigs(g, Backend::Cpu, 3, nullptr, 0, matvec);
  net::CpuNetworkRun cpu(n, g, cpuConfigs, loop, 5, matvec);
  const std::vector<float> want = cpu.forward();
  net::CpuNetworkRun direct(n, g, taskConfigs(g, Backend::Cpu, 3), loop, 5);
  EXPECT_LE(maxRelativeError(direct.forward(), want), kVerifyTolerance);

  const codegen::DeviceLimits h100 = codegen::nominalLimits("sm_90");
  const std::vector<Config> configs = randomTaskConfigs(g, Backend::Cuda, 6, &h100, 64, matvec);
  const NetworkProgram p = net::buildNetworkProgram(n, g, configs, loop, 5, Backend::Cuda,
                                                    net::TaskKernels::Tuned, matvec);
  for (std::size_t i = 0; i < g.tasks.size(); ++i) {
    const std::string& module =
        p.modules[std::size_t(p.kernels.at("task_" + std::to_string(i)).module)];
    EXPECT_EQ(module.find("Template:      matrix-vector") != std::string::npos,
              g.tasks[i].name == "d")
        << g.tasks[i].name;
  }
  const std::vector<float> got = emulate(p);
  ASSERT_EQ(got.size(), want.size());
  EXPECT_LE(maxRelativeError(got, want), kVerifyTolerance);
}

TEST(NetworkGpuProgram, LayoutModesAreRefusedOnGpus) {
  const net::Network n = net::loadNetwork(kAllOps);
  const net::TaskGraph g = net::extractTasks(n);
  try {
    net::buildNetworkProgram(n, g, taskConfigs(g, Backend::Cuda, 4), layout::TuningMode::Joint, 1,
                             Backend::Cuda);
    FAIL() << "a joint-mode CUDA program was built";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("loops only"), std::string::npos) << e.what();
  }
}

// The CUDA and HIP programs of AlexNet, ResNet-18 and the two test networks (every fixed layer
// kind), each kernel its own module, compile with NVRTC for sm_90 and hiprtc for gfx90a.
TEST(NetworkGpuProgram, ProgramsOfEveryLayerKindCompileWithNvrtcAndHiprtc) {
  const NvrtcCompiler& nvrtc = NvrtcCompiler::shared();
  const HiprtcCompiler& hiprtc = HiprtcCompiler::shared();
  if (!nvrtc.available() && !hiprtc.available())
    GTEST_SKIP() << nvrtc.unavailableReason() << "; " << hiprtc.unavailableReason();
  const std::string data = std::string(OPEVO_SOURCE_DIR) + "/tests/data/";
  for (const std::string& name : {std::string("alexnet"), std::string("resnet18"), kAllOps,
                                  data + "net_fixed_elementwise.json", data + "net_relu6.json"}) {
    const net::Network n = net::loadNetwork(name);
    const net::TaskGraph g = net::extractTasks(n);
    const std::vector<Config> configs = randomTaskConfigs(g, Backend::Cuda, 11);
    for (const Backend backend : {Backend::Cuda, Backend::Hip}) {
      if (backend == Backend::Cuda ? !nvrtc.available() : !hiprtc.available()) continue;
      const NetworkProgram p =
          net::buildNetworkProgram(n, g, configs, layout::TuningMode::Loop, 1, backend);
      std::vector<std::future<CompileResult>> built;
      for (const std::string& m : p.modules)
        built.push_back(std::async(std::launch::async, [&, backend] {
          return backend == Backend::Cuda ? nvrtc.compile(m, "sm_90") : hiprtc.compile(m, "gfx90a");
        }));
      for (std::size_t i = 0; i < built.size(); ++i) {
        const CompileResult r = built[i].get();
        EXPECT_TRUE(r.ok) << name << " " << codegen::backendName(backend) << " module " << i
                          << ":\n"
                          << r.log;
      }
    }
  }
}

}  // namespace
}  // namespace opevo::test
