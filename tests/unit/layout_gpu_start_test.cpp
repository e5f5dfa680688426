// Where a CUDA/HIP run of a joint layout space starts (layout::StartDevice::Gpu): a blocking for
// the GPU's layout templates, the same on every host, where the CPU's start (sized for this
// machine's vector registers) gave MM1 32 blocks of 64 threads of 256 accumulators each.

#include <gtest/gtest.h>

#include "codegen/kernel_codegen.h"
#include "cuda/nvrtc_compiler.h"
#include "layout/conv2d_layout.h"
#include "layout/gpu_start.h"
#include "layout/matmul_layout.h"
#include "layout/tuning_mode.h"
#include "ops/presets.h"

namespace opevo::test {
namespace {

using codegen::Backend;
using layout::StartDevice;

// The paper's operators and the network layers the campaign tunes in joint mode.
std::vector<OperatorSpec> gpuOperators() {
  std::vector<OperatorSpec> ops;
  for (const char* name :
       {"MM1", "MM2", "MM3", "BMM1", "BMM2", "BMM3", "C1", "C2", "alexnet_conv1_b1",
        "resnet18_conv5_b1", "mobilenet_v2_dw2_b1", "mobilenet_v2_dw8_b1"})
    ops.push_back(preset(name));
  return ops;
}

codegen::GeneratedKernel startKernel(const OperatorSpec& op, StartDevice device,
                                     const std::string& entry = "") {
  const SearchSpace space = layout::layoutSpace(op, device);
  EXPECT_TRUE(space.startPoint()) << op.name;
  return codegen::generateKernel(op, space, *space.startPoint(), Backend::Cuda, {entry});
}

// The GPU start of a preset's joint space, as `opevo show` prints a configuration.
std::string gpuStart(const char* name) {
  const SearchSpace space = layout::layoutSpace(preset(name), StartDevice::Gpu);
  return space.startPoint() ? space.format(*space.startPoint()) : "(none)";
}

// Every preset with a joint space: few accumulators, one to eight warps a block, and a block for
// every SM of a large GPU where cutting the output tiles further would not leave a block
// smaller than a warp.
TEST(LayoutGpuStart, GivesEverySmABlockOfWarpsOfFewAccumulators) {
  int checked = 0;
  for (const std::string& name : presetNames()) {
    const OperatorSpec op = preset(name);
    if (op.kind == OpKind::Conv2D && op.groups != 1 && !layout::isDepthwise(op)) continue;
    const auto k = startKernel(op, StartDevice::Gpu);
    const std::int64_t threads = k.launch.block.volume(), blocks = k.launch.grid.volume();
    EXPECT_LE(k.accumulators, 16) << name << ": " << k.summary;
    EXPECT_LE(threads, layout::kGpuStartThreads) << name << ": " << k.summary;
    // AlexNet's fc8 at batch 1 has one row of 250 register tiles: 25, the largest divisor up to a
    // warp, is its widest block (the matrix-vector template is the one for it).
    EXPECT_GE(threads, name == "alexnet_fc8_b1" ? 25 : layout::kGpuWarp)
        << name << ": " << k.summary;
    // ResNet-18's 28x28, 14x14 and 7x7 layers at batch 1: 56 threads in 112 blocks, since the next
    // cut (a row of 7 register tiles, or half the channels) leaves fewer than a warp.
    const bool warpBound =
        name == "resnet18_conv3_b1" || name == "resnet18_conv4_b1" || name == "resnet18_conv5_b1";
    if (warpBound) {
      EXPECT_EQ(blocks, 112) << name << ": " << k.summary;
    } else if (op.kind == OpKind::Conv2D || op.n > 1) {  // not a dense layer's one row at batch 1
      EXPECT_GE(blocks, layout::kGpuStartBlocks) << name << ": " << k.summary;
    }
    ++checked;
  }
  EXPECT_GE(checked, 28);
}

// MM1: 4 x 4 a thread, 8 rows of 32 threads along the columns, 128 output tiles of 32 x 128;
// the CPU's start on this host is whatever its vector unit asks for, never this one.
TEST(LayoutGpuStart, MatMulPutsAWarpAlongTheColumns) {
  const OperatorSpec op = preset("MM1");
  EXPECT_EQ(gpuStart("MM1"),
            "layout.a_n=16,32; layout.a_k=1,1024; layout.b_k=1,1024; layout.b_m=8,128; "
            "layout.c_n=16,32; layout.c_m=8,128; tile_n=128,4; tile_m=256,4; tile_k=1,1024; "
            "tile_order=0,1; reg_order=0,1; unroll_k=4");
  const auto gpu = startKernel(op, StartDevice::Gpu);
  EXPECT_EQ(gpu.launch.block.volume(), 256);
  EXPECT_EQ(gpu.launch.grid.volume(), 128);
  EXPECT_NE(layout::layoutSpace(op).startPoint(),
            layout::layoutSpace(op, StartDevice::Gpu).startPoint());
}

// MobileNetV2's 96-channel 56 x 56 depthwise layer: all 96 channels by 4 x 2 outputs a block, a
// channel by 4 rows a thread. The H200 measured this configuration at 0.0073 ms in the joint run
// of 300 trials (resources/measurements/h200/2026-12-04, seed 401), its fastest at 0.0072 ms
// differing only in a loop order or a register tile, against 0.163 ms for the CPU's start there.
TEST(LayoutGpuStart, DepthwiseStartsAtTheH200sBest) {
  EXPECT_EQ(gpuStart("mobilenet_v2_dw2_b1"),
            "layout.out_c=1,96; layout.out_h=14,4; layout.out_w=28,2; tile_f=96,1; tile_y=14,4; "
            "tile_x=56,1; tile_order=0,1,2");
}

// C2: 4 channels by 3 columns a thread, 16 threads along 64 channels by whole 27-column rows.
TEST(LayoutGpuStart, ConvolutionPutsThreadsAlongTheChannels) {
  EXPECT_EQ(gpuStart("C2"),
            "layout.out_c=3,64; layout.out_h=27,1; layout.out_w=1,27; layout.in_c=4,16; "
            "layout.weight_o=3,64; layout.weight_i=4,16; tile_f=48,4; tile_y=27,1; tile_x=9,3; "
            "stage_c=1,64; reduce_order=0,1,2; tile_order=0,1,2; unroll_c=4");
  EXPECT_EQ(startKernel(preset("C2"), StartDevice::Gpu).launch.block.volume(), 144);
}

// What a CUDA or HIP run tunes (the Gpu target, as runDefinition makes it) starts at the GPU's
// blocking; a CPU run's (the common target) at the CPU's.
TEST(LayoutGpuStart, TheGpuTargetsJointSpaceStartsThere) {
  for (const OperatorSpec& op : gpuOperators()) {
    const SearchSpace gpu = layout::spaceFor(op, layout::TuningMode::Joint, SpaceTarget::Gpu);
    const SearchSpace cpu = layout::spaceFor(op, layout::TuningMode::Joint, SpaceTarget::Common);
    EXPECT_EQ(gpu.startPoint(), layout::layoutSpace(op, StartDevice::Gpu).startPoint()) << op.name;
    EXPECT_EQ(cpu.startPoint(), layout::layoutSpace(op).startPoint()) << op.name;
    ASSERT_EQ(gpu.dims(), cpu.dims()) << op.name;
    for (std::size_t i = 0; i < gpu.dims(); ++i)
      EXPECT_EQ(gpu.param(i).spec(), cpu.param(i).spec()) << op.name << ": the same points";
  }
}

// Compile-checked as a run would build them, with no spill: the start's sums stay in registers.
TEST(LayoutGpuStart, CompilesWithNvrtcWithoutSpilling) {
  const NvrtcCompiler& nvrtc = NvrtcCompiler::shared();
  if (!nvrtc.available()) GTEST_SKIP() << nvrtc.unavailableReason();
  std::string source;
  std::vector<codegen::GeneratedKernel> kernels;
  for (const OperatorSpec& op : gpuOperators()) {
    kernels.push_back(startKernel(op, StartDevice::Gpu, "start_" + std::to_string(kernels.size())));
    source += kernels.back().source + "\n";
  }
  const CompileResult r = nvrtc.compile(source, "sm_90");
  ASSERT_TRUE(r.ok) << r.log.substr(0, 4000);
  for (const auto& k : kernels) {
    ASSERT_TRUE(r.resources.count(k.entry)) << k.entry;
    const KernelResources& res = r.resources.at(k.entry);
    EXPECT_EQ(res.spillStoreBytes.value_or(0), 0) << k.entry << " (" << k.summary << ")";
  }
}

}  // namespace
}  // namespace opevo::test
