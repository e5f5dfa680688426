// The CUDA/HIP templates of the joint layout spaces (conv2d_layout_gpu_template.cpp,
// matmul_layout_gpu_template.cpp), checked without a GPU: random points of the spaces compile
// with NVRTC and hiprtc and give legal launches, and on small operators the kernels, run on CPU
// threads (gpu_emulation.h) over operands packed into their layouts, give the host reference once
// their output is unpacked. The worker's side (device_run.h: packing before the upload, unpacking
// before the check) runs here too, on host memory standing in for the device.

#include <gtest/gtest.h>

#include <cstring>
#include <future>

#include "codegen/device_limits.h"
#include "codegen_test_util.h"
#include "common/device_run.h"
#include "cuda/nvrtc_compiler.h"
#include "gpu_emulation.h"
#include "hip/hiprtc_compiler.h"
#include "host_api.h"
#include "layout/gpu_start.h"
#include "layout/operand_layouts.h"

namespace opevo::test {
namespace {

using codegen::Backend;
using codegen::generateKernel;

OperatorSpec withEpilogue(OperatorSpec op, std::vector<EpilogueStep> steps) {
  op.epilogue = std::move(steps);
  return op;
}

// Small operators for the emulation, each with what it exercises.
std::vector<OperatorSpec> smallConvs() {
  return {
      smallConv(1, 8, 16, 10, 3, 1, 1),  // 3x3, stride 1, padded
      smallConv(2, 6, 8, 13, 3, 2, 1),   // stride 2, odd image
      smallConv(1, 8, 8, 10, 1, 2, 0),   // 1x1 stride 2: windows widened to the stride
      withEpilogue(smallConv(2, 8, 12, 9, 3, 1, 1),
                   {{EpilogueKind::Bias, 1}, {EpilogueKind::Add, 1}, {EpilogueKind::Relu, 1}}),
      withEpilogue(smallDepthwiseConv(2, 16, 9, 3, 1, 1),
                   {{EpilogueKind::Bias, 1}, {EpilogueKind::Scale, 4}, {EpilogueKind::Relu6, 1}}),
      smallDepthwiseConv(1, 24, 11, 3, 2, 1),  // depthwise, stride 2, odd image
  };
}

std::vector<OperatorSpec> smallMatMuls() {
  OperatorSpec transB = smallMatMul(24, 40, 36);
  transB.transB = true;
  return {
      smallMatMul(24, 40, 36),
      smallBatchMatMul(3, 24, 40, 36, true, false),
      smallBatchMatMul(2, 20, 12, 18, true, true),
      withEpilogue(transB, {{EpilogueKind::Bias, 1},
                            {EpilogueKind::Gelu, 1},
                            {EpilogueKind::Add, 1},
                            {EpilogueKind::Scale, 0.5}}),
  };
}

// Real sizes, for the compilers and the launch limits (long tiles, many blocks).
std::vector<OperatorSpec> presetOperators() {
  return {preset("resnet18_conv2_b1"), preset("C2"), preset("MM1"), preset("BMM2")};
}

std::vector<OperatorSpec> allOperators() {
  std::vector<OperatorSpec> ops = smallConvs();
  for (auto* more : {smallMatMuls, presetOperators})
    for (OperatorSpec& op : more()) ops.push_back(std::move(op));
  return ops;
}

// Random points of op's joint space whose blocks have 2..maxThreads threads: the emulation runs
// one OS thread per GPU thread.
std::vector<Config> emulatableConfigs(const OperatorSpec& op, int count, std::uint64_t seed,
                                      std::int64_t maxThreads = 64) {
  const SearchSpace space = layout::layoutSpace(op);
  return randomConfigs(space, count, seed, [&](const Config& c) {
    const std::int64_t threads = generateKernel(op, space, c, Backend::Cuda).launch.block.volume();
    return threads >= 2 && threads <= maxThreads;
  });
}

// A kernel's operands packed into its layouts, and its output unpacked.
struct PackedOperands {
  PackedOperands(const layout::OperandLayouts& l, const TestOperands& x)
      : a(std::size_t(l.a.size())), b(std::size_t(l.b.size())), c(std::size_t(l.c.size())) {
    l.a.pack(x.a, a);
    l.b.pack(x.b, b);
    if (!x.residual.empty()) {
      residual.resize(c.size());
      l.c.pack(x.residual, residual);
    }
  }
  const float* residualData() const { return residual.empty() ? nullptr : residual.data(); }
  std::vector<float> a, b, residual, c;
};

// Runs each configuration's CUDA kernel, emulated, on packed operands (C poisoned with NaN, so an
// element never written fails) and compares its unpacked output with the host reference.
void expectEmulatedLayoutKernelsMatch(const OperatorSpec& op, const std::vector<Config>& configs) {
  ASSERT_FALSE(configs.empty()) << op.describe();
  const SearchSpace space = layout::layoutSpace(op);
  std::string source = emulationHeader();
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const auto k =
        generateKernel(op, space, configs[i], Backend::Cuda, {"tuned_" + std::to_string(i)});
    ASSERT_TRUE(k.usesLayouts());
    source += emulatedKernel(k);
  }
  LoadedObject so(source, {"-O1", "-std=c++20", "-pthread", "-shared", "-fPIC"});
  ASSERT_TRUE(so.ok()) << so.result().log;

  const TestOperands x = randomOperands(op, 41);
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const layout::OperandLayouts l = layout::operandLayouts(op, space, configs[i]);
    PackedOperands p(l, x);
    std::fill(p.c.begin(), p.c.end(), std::nanf(""));
    so.symbol<KernelFn>("emu_tuned_" + std::to_string(i))(p.a.data(), p.b.data(), p.c.data(),
                                                          x.biasData(), p.residualData());
    std::vector<float> plain(x.reference.size());
    l.c.unpack(p.c, plain);
    const std::int64_t bad = firstMismatch(plain, x.reference);
    EXPECT_EQ(bad, -1) << op.describe() << "\n" << space.format(configs[i]) << ": element " << bad;
  }
}

TEST(LayoutGpuCodegen, KernelsCarryTheConfigurationsLayouts) {
  for (const OperatorSpec& op : allOperators()) {
    const SearchSpace space = layout::layoutSpace(op);
    for (const Config& c : randomConfigs(space, 3, 5)) {
      const layout::OperandLayouts l = layout::operandLayouts(op, space, c);
      for (Backend backend : {Backend::Cuda, Backend::Hip}) {
        const auto k = generateKernel(op, space, c, backend);
        EXPECT_EQ(k.layoutA, l.a.describe());
        EXPECT_EQ(k.layoutB, l.b.describe());
        EXPECT_EQ(k.layoutC, l.c.describe());
        EXPECT_NE(k.source.find("__launch_bounds__"), std::string::npos);
      }
    }
  }
}

// The space is shared with the CPU and has no GPU constraints, so every point of it, start point
// included, must launch: threads, grid and (no) shared memory within every device's limits.
TEST(LayoutGpuCodegen, EveryConfigurationHasALegalLaunch) {
  const codegen::DeviceLimits limits = codegen::nominalLimits("sm_90");
  int checked = 0;
  for (const OperatorSpec& op : allOperators()) {
    const SearchSpace space = layout::layoutSpace(op);
    std::vector<Config> configs = randomConfigs(space, 150, 7);
    ASSERT_TRUE(space.startPoint());
    configs.push_back(*space.startPoint());
    configs.push_back(*layout::layoutSpace(op, layout::StartDevice::Gpu).startPoint());
    for (const Config& c : configs) {
      const auto k = generateKernel(op, space, c, Backend::Cuda, {"k", 3});
      const auto problems = codegen::checkLaunch(k.launch, nullptr, limits);
      EXPECT_TRUE(problems.empty()) << space.format(c) << ": " << problems.front();
      EXPECT_LE(k.launch.block.volume(), 1024);
      EXPECT_LE(k.launch.grid.z, 3);
      EXPECT_EQ(k.launch.sharedBytes, 0);
      ++checked;
    }
  }
  EXPECT_GT(checked, 1000);
}

// One source of `perOperator` random points of every operator's space, entries k0, k1, ...
std::string layoutKernelsSource(Backend backend, int perOperator,
                                std::vector<codegen::GeneratedKernel>* kernels) {
  std::string source;
  for (const OperatorSpec& op : allOperators()) {
    const SearchSpace space = layout::layoutSpace(op);
    for (const Config& c : randomConfigs(space, perOperator, 11)) {
      std::string entry = "k";
      entry += std::to_string(kernels->size());
      kernels->push_back(generateKernel(op, space, c, backend, {entry}));
      source += kernels->back().source + "\n";
    }
  }
  return source;
}

TEST(LayoutGpuCodegen, RandomConfigurationsCompileWithNvrtc) {
  const NvrtcCompiler& nvrtc = NvrtcCompiler::shared();
  if (!nvrtc.available()) GTEST_SKIP() << nvrtc.unavailableReason();
  std::vector<codegen::GeneratedKernel> kernels;
  const std::string source = layoutKernelsSource(Backend::Cuda, 4, &kernels);
  ASSERT_EQ(kernels.size(), 4 * allOperators().size());
  auto sm80 = std::async(std::launch::async, [&] { return nvrtc.compile(source, "sm_80"); });
  const CompileResult sm90 = nvrtc.compile(source, "sm_90");
  for (const CompileResult& r : {sm80.get(), sm90}) {
    ASSERT_TRUE(r.ok) << r.arch << ":\n" << r.log.substr(0, 4000);
    const codegen::DeviceLimits limits = codegen::nominalLimits(r.arch);
    for (const auto& k : kernels) {
      ASSERT_TRUE(r.resources.count(k.entry)) << r.arch << ": no ptxas report for " << k.entry;
      const KernelResources& res = r.resources.at(k.entry);
      EXPECT_GT(res.registers.value_or(0), 0);
      // __launch_bounds__ holds the registers to what the block size allows.
      const auto problems = codegen::checkLaunch(k.launch, &res, limits);
      EXPECT_TRUE(problems.empty()) << k.entry << " (" << k.summary << "): " << problems.front();
    }
  }
}

TEST(LayoutGpuCodegen, RandomConfigurationsCompileWithHiprtc) {
  const HiprtcCompiler& hiprtc = HiprtcCompiler::shared();
  if (!hiprtc.available()) GTEST_SKIP() << hiprtc.unavailableReason();
  std::vector<codegen::GeneratedKernel> kernels;
  const CompileResult r = hiprtc.compile(layoutKernelsSource(Backend::Hip, 3, &kernels), "gfx90a");
  ASSERT_TRUE(r.ok) << r.log.substr(0, 4000);
  EXPECT_EQ(r.kind, BinaryKind::AmdCodeObject);
  for (const auto& k : kernels) {
    ASSERT_TRUE(r.resources.count(k.entry)) << "no metadata for " << k.entry;
    EXPECT_GT(r.resources.at(k.entry).registers.value_or(0), 0);
    EXPECT_EQ(r.resources.at(k.entry).staticSharedBytes.value_or(0), 0);
  }
}

TEST(LayoutGpuCodegenEmulated, Conv2DMatchesReference) {
  std::uint64_t seed = 51;
  for (const OperatorSpec& op : smallConvs()) {
    std::vector<Config> configs = emulatableConfigs(op, 6, seed++);
    EXPECT_EQ(configs.size(), 6u);
    expectEmulatedLayoutKernelsMatch(op, configs);
  }
}

TEST(LayoutGpuCodegenEmulated, MatMulAndBatchMatMulMatchReference) {
  std::uint64_t seed = 61;
  for (const OperatorSpec& op : smallMatMuls()) {
    std::vector<Config> configs = emulatableConfigs(op, 6, seed++);
    EXPECT_EQ(configs.size(), 6u);
    expectEmulatedLayoutKernelsMatch(op, configs);
  }
}

TEST(LayoutGpuCodegenEmulated, StartPointsMatchReference) {
  for (const OperatorSpec& op : {smallConvs()[0], smallMatMuls()[1]}) {
    const SearchSpace space = layout::layoutSpace(op);
    expectEmulatedLayoutKernelsMatch(op, {*space.startPoint()});
  }
}

// The GPU's start points (layout::StartDevice::Gpu), on operators large enough that their blocks
// have several threads: a warp's threads along MatMul's columns and Conv2D's channels, a
// depthwise thread's rows.
TEST(LayoutGpuCodegenEmulated, GpuStartPointsMatchReference) {
  const std::vector<std::pair<OperatorSpec, std::int64_t>> cases = {
      {smallMatMul(256, 512, 8), 64},
      {smallBatchMatMul(4, 128, 128, 12, true, false), 32},
      {smallConv(4, 8, 64, 16, 3, 1, 1), 32},
      {withEpilogue(smallDepthwiseConv(1, 32, 32, 3, 1, 1),
                    {{EpilogueKind::Bias, 1}, {EpilogueKind::Relu6, 1}}),
       64},
  };
  for (const auto& [op, threads] : cases) {
    const SearchSpace space = layout::layoutSpace(op, layout::StartDevice::Gpu);
    ASSERT_TRUE(space.startPoint()) << op.describe();
    const auto k = generateKernel(op, space, *space.startPoint(), Backend::Cuda);
    EXPECT_EQ(k.launch.block.volume(), threads) << op.describe() << ": " << k.summary;
    EXPECT_GE(k.launch.grid.volume(), layout::kGpuStartBlocks) << op.describe();
    expectEmulatedLayoutKernelsMatch(op, {*space.startPoint()});
  }
}

// More register tiles than the register budget gives threads: each thread takes several.
TEST(LayoutGpuCodegenEmulated, ThreadsLoopOverMoreRegisterTilesThanThreads) {
  const OperatorSpec op = smallMatMul(272, 272, 8);
  const SearchSpace space = layout::layoutSpace(op);
  const Config c = space.parse(
      "layout.a_n=17,16; layout.a_k=1,8; layout.b_k=2,4; layout.b_m=16,17; layout.c_n=1,272; "
      "layout.c_m=1,272; tile_n=17,16; tile_m=17,16; tile_k=1,8; tile_order=1,0; reg_order=1,0; "
      "unroll_k=2");
  const auto k = generateKernel(op, space, c, Backend::Cuda);
  EXPECT_EQ(k.launch.block.volume(), 256) << k.summary;
  EXPECT_NE(k.summary.find("for 289 register tiles"), std::string::npos) << k.summary;
  expectEmulatedLayoutKernelsMatch(op, {c});
}

const float* floats(const DeviceBuffer<HostApi>& b) {
  return reinterpret_cast<const float*>(b.get());
}

// The worker's path (runDeviceKernel without the device): the request's layouts pack the
// operands before the upload and unpack C before the check against the plain reference.
TEST(LayoutGpuCodegenEmulated, WorkerPacksOperandsAndChecksTheUnpackedResult) {
  int permutedOutputs = 0;
  for (const OperatorSpec& op : {smallConvs()[3], smallMatMuls()[3]}) {
    const SearchSpace space = layout::layoutSpace(op);
    const Config c = emulatableConfigs(op, 1, 71).at(0);
    const auto k = generateKernel(op, space, c, Backend::Cuda, {"tuned"});
    LoadedObject so(emulationHeader() + emulatedKernel(k),
                    {"-O1", "-std=c++20", "-pthread", "-shared", "-fPIC"});
    ASSERT_TRUE(so.ok()) << so.result().log;
    const auto kernel = so.symbol<KernelFn>("emu_tuned");
    OperatorBuffers buffers(op);
    const layout::OperandLayouts layouts = layout::operandLayouts(op, space, c);
    HostApi api;
    DeviceOperands<HostApi> dev(api, buffers, &layouts);
    EXPECT_EQ(dev.a.bytes(), sizeof(float) * std::size_t(layouts.a.size()));
    EXPECT_EQ(dev.c.bytes(), sizeof(float) * std::size_t(layouts.c.size()));
    const auto run = [&] {
      kernel(floats(dev.a), floats(dev.b), reinterpret_cast<float*>(dev.c.get()), floats(dev.bias),
             floats(dev.residual));
    };
    const auto wrong = verifyOnDevice(api, dev, buffers, run);
    EXPECT_FALSE(wrong) << space.format(c) << ": " << *wrong;
    // Without the unpacking the check sees C in its layout, and fails wherever that layout is
    // not the plain one: the check is a real one.
    dev.cLayout.reset();
    const bool plainOutput = layouts.c.isIdentity();
    permutedOutputs += !plainOutput;
    EXPECT_EQ(verifyOnDevice(api, dev, buffers, run).has_value(), !plainOutput) << space.format(c);
  }
  EXPECT_GT(permutedOutputs, 0);
}

TEST(LayoutGpuCodegenEmulated, WorkerReusesThePackingOfTheSameLayouts) {
  const OperatorSpec op = smallConvs()[3];
  const SearchSpace space = layout::layoutSpace(op);
  const std::vector<Config> configs = randomConfigs(space, 2, 81);
  ASSERT_EQ(configs.size(), 2u);
  const layout::OperandLayouts first = layout::operandLayouts(op, space, configs[0]);
  const layout::OperandLayouts second = layout::operandLayouts(op, space, configs[1]);
  ASSERT_FALSE(first.a == second.a && first.b == second.b && first.c == second.c);
  OperatorBuffers buffers(op);
  const auto packed = hostOperandsFor(buffers, &first);
  EXPECT_EQ(hostOperandsFor(buffers, &first), packed);
  const auto other = hostOperandsFor(buffers, &second);
  EXPECT_NE(other, packed);
  EXPECT_EQ(other->a.size(), std::size_t(second.a.size()));
  EXPECT_EQ(other->cSize, std::size_t(second.c.size()));
  EXPECT_TRUE(other->cLayout && *other->cLayout == second.c);
  // Without layouts, the shared buffers themselves.
  EXPECT_EQ(hostOperandsFor(buffers, nullptr)->a.data(), buffers.a.data());
}

}  // namespace
}  // namespace opevo::test
