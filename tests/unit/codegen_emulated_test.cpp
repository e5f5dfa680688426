// The CUDA/HIP templates' indexing, cooperative loads and barriers, checked without a GPU by
// running the generated kernels on CPU threads (gpu_emulation.h).

#include <gtest/gtest.h>

#include <algorithm>

#include "codegen/winograd_transforms.h"
#include "codegen_test_util.h"
#include "common/device_run.h"
#include "common/error.h"
#include "cpu/operator_buffers.h"
#include "gpu_emulation.h"
#include "host_api.h"
#include "ops/winograd_space.h"

namespace opevo::test {
namespace {

using codegen::Backend;

void expectEmulatedKernelsMatch(const OperatorSpec& op, const std::vector<Config>& configs,
                                std::int64_t maxGridZ = 65535,
                                SpaceTarget target = SpaceTarget::Common, int resident = 1) {
  const SearchSpace space = defaultSpace(op, target);
  std::string source = emulationHeader();
  std::vector<std::string> entries;
  std::vector<bool> transformed;  // GeneratedKernel::packedWeights
  for (std::size_t i = 0; i < configs.size(); ++i) {
    entries.push_back(std::string("tuned_") + std::to_string(i));
    const auto k =
        codegen::generateKernel(op, space, configs[i], Backend::Cuda, {entries.back(), maxGridZ});
    ASSERT_LE(k.launch.sharedBytes / 4, kEmulatedSharedFloats);
    source += emulatedKernel(k, resident);
    transformed.push_back(k.packedWeights);
  }
  transformed.push_back(false);
  entries.push_back("opevo_reference");
  source += emulatedKernel(codegen::generateReferenceKernel(op, Backend::Cuda));
  LoadedObject so(source, {"-O1", "-std=c++20", "-pthread", "-shared", "-fPIC"});
  ASSERT_TRUE(so.ok()) << so.result().log;

  const TestOperands x = randomOperands(op, 21);
  const std::vector<float>& want = x.reference;
  // The weights as a kernel that reads them transformed takes them, as the harness gives them.
  const std::vector<float> u =
      std::find(transformed.begin(), transformed.end(), true) != transformed.end()
          ? codegen::winogradWeights(op, x.b)
          : std::vector<float>();
  // Twice: what a launch leaves behind (split-K's turns) must not change the next one.
  for (int launch = 0; launch < 2; ++launch)
    for (std::size_t i = 0; i < entries.size(); ++i) {
      std::vector<float> c(want.size(), std::nanf(""));
      so.symbol<KernelFn>("emu_" + entries[i])(x.a.data(), (transformed[i] ? u : x.b).data(),
                                               c.data(), x.biasData(), x.residualData());
      const std::int64_t bad = firstMismatch(c, want);
      EXPECT_EQ(bad, -1) << entries[i] << " launch " << launch << " "
                         << (i < configs.size() ? space.format(configs[i]) : "reference")
                         << ": element " << bad;
    }
}

// Few threads per block keep the emulation (one OS thread per GPU thread) quick.
std::vector<Config> smallBlockConfigs(const OperatorSpec& op, int count, std::uint64_t seed,
                                      SpaceTarget target = SpaceTarget::Common) {
  const SearchSpace space = defaultSpace(op, target);
  const int split = space.indexOf("split_k");
  return randomConfigs(space, count, seed, [&](const Config& c) {
    const std::int64_t threads = threadsPerBlock(op, space, c);
    return threads >= 2 && threads <= 64 && (split < 0 || c[split][0] > 0);
  });
}

TEST(CodegenEmulatedGpu, MatMulMatchesReference) {
  const OperatorSpec op = smallMatMul(64, 96, 80);
  std::vector<Config> configs = smallBlockConfigs(op, 4, 31);
  configs.push_back(defaultSpace(op).parse("tile_n=2,2,4,4; tile_m=2,3,4,4; tile_k=2,5,8"));
  expectEmulatedKernelsMatch(op, configs);
}

// Split K: the splits of a tile add their partial sums into C in turn, the last one applying the
// epilogue; launched twice, so the turns must be back at zero after a launch. Blocks run several
// at a time (kResident), so a split really waits for the one before it. Double buffering with
// and without it, slabs that threads divide evenly and not.
TEST(CodegenEmulatedGpu, SplitKAndDoubleBufferingMatchReference) {
  const OperatorSpec op = smallMatMul(32, 48, 96);
  const SearchSpace space = defaultSpace(op, SpaceTarget::Gpu);
  std::vector<Config> configs = smallBlockConfigs(op, 3, 38, SpaceTarget::Gpu);
  configs.push_back(space.parse("tile_n=2,2,2,4; tile_m=2,2,3,4; tile_k=4,3,8; split_k=4"));
  const auto k = codegen::generateKernel(op, space, configs.back(), Backend::Cuda);
  EXPECT_EQ(k.launch.grid.z, 4);
  EXPECT_NE(k.source.find("__device__ unsigned int opevo_kernel_turn[4]"), std::string::npos);
  // Threads 4 x 4: the A slab (3 x 16) is 3 floats each, the B slab (3 x 24) 4.5, rounded up.
  configs.push_back(
      space.parse("tile_n=2,1,4,4; tile_m=2,2,4,3; tile_k=8,3,4; split_k=2; stages=2"));
  configs.push_back(
      space.parse("tile_n=2,1,4,4; tile_m=2,1,3,8; tile_k=16,1,6; split_k=1; stages=2"));
  constexpr int kResident = 6;
  expectEmulatedKernelsMatch(op, configs, 65535, SpaceTarget::Gpu, kResident);

  OperatorSpec fused = op;
  fused.transB = true;
  fused.epilogue = {{EpilogueKind::Bias, 1}, {EpilogueKind::Gelu, 1}, {EpilogueKind::Add, 1}};
  expectEmulatedKernelsMatch(
      fused,
      {space.parse("tile_n=4,1,2,4; tile_m=2,2,2,6; tile_k=8,2,6; split_k=8"),
       space.parse("tile_n=4,1,2,4; tile_m=2,2,2,6; tile_k=8,2,6; split_k=2; stages=2")},
      65535, SpaceTarget::Gpu, kResident);
  OperatorSpec bmm = smallBatchMatMul(6, 16, 24, 32, false, true);
  bmm.epilogue = {{EpilogueKind::Scale, 0.125}};
  const SearchSpace bmmSpace = defaultSpace(bmm, SpaceTarget::Gpu);
  const Config c = bmmSpace.parse(
      "tile_b=3,2; tile_n=2,1,2,4; tile_m=2,2,3,2; tile_k=4,2,4; split_k=2; stages=2");
  EXPECT_EQ(codegen::generateKernel(bmm, bmmSpace, c, Backend::Cuda).launch.grid.z, 6);
  expectEmulatedKernelsMatch(bmm, {c}, 65535, SpaceTarget::Gpu, kResident);
}

TEST(CodegenEmulatedGpu, BatchMatMulTransposedMatchesReference) {
  const OperatorSpec op = smallBatchMatMul(6, 32, 48, 40, true, false);
  std::vector<Config> configs = smallBlockConfigs(op, 3, 32);
  configs.push_back(
      defaultSpace(op).parse("tile_b=3,2; tile_n=2,2,2,4; tile_m=2,2,3,4; tile_k=2,4,5"));
  expectEmulatedKernelsMatch(op, configs);
  const OperatorSpec both = smallBatchMatMul(6, 32, 48, 40, false, true);
  expectEmulatedKernelsMatch(both, smallBlockConfigs(both, 3, 33));
}

// Slab copies of four floats along K and along the extent, scalar ones where K or the extent
// breaks 16-byte alignment, into padded shared rows, single and double-buffered.
TEST(CodegenEmulatedGpu, VectorAndScalarSlabCopiesMatchReference) {
  const OperatorSpec odd = smallMatMul(64, 64, 30);  // A scalar (K = 30), B four floats a copy
  const SearchSpace gpu = defaultSpace(odd, SpaceTarget::Gpu);
  expectEmulatedKernelsMatch(
      odd,
      {gpu.parse("tile_n=4,2,2,4; tile_m=4,2,2,4; tile_k=5,3,2"),
       gpu.parse("tile_n=4,2,2,4; tile_m=4,2,2,4; tile_k=5,3,2; split_k=1; stages=2")},
      65535, SpaceTarget::Gpu);
  // Both transposed: A four floats along N, B along K; double-buffered too.
  const OperatorSpec both = smallBatchMatMul(2, 32, 48, 32, true, true);
  const SearchSpace bmm = defaultSpace(both, SpaceTarget::Gpu);
  expectEmulatedKernelsMatch(
      both,
      {bmm.parse("tile_b=2,1; tile_n=2,2,2,4; tile_m=2,2,3,4; tile_k=4,2,4"),
       bmm.parse("tile_b=2,1; tile_n=2,2,2,4; tile_m=2,2,3,4; tile_k=4,2,4; split_k=2; stages=2")},
      65535, SpaceTarget::Gpu);
  for (const Config& c : {bmm.parse(
           "tile_b=2,1; tile_n=2,2,2,4; tile_m=2,2,3,4; tile_k=4,2,4; split_k=2; stages=2")}) {
    const std::string source = codegen::generateKernel(both, bmm, c, Backend::Cuda).source;
    EXPECT_NE(
        source.find("A_UNITS = B_TH * K_STEP * BLOCK_N / 4, B_UNITS = B_TH * K_STEP * BLOCK_M / 4"),
        std::string::npos);
    EXPECT_NE(source.find("float4 aNext["), std::string::npos);
  }
}

// Slabs of odd sizes (rows of 1 or 2 floats, K_STEP 3, B_TH 3) followed by a slab copied with
// float4 stores: each slab starts on whole float4s, or B's slab (and the second stage) would
// start misaligned, which the emulation refuses as a GPU would.
TEST(CodegenEmulatedGpu, SlabsAfterOddSlabsStayAligned) {
  const OperatorSpec op = smallMatMul(8, 32, 12);
  const SearchSpace space = defaultSpace(op, SpaceTarget::Gpu);
  expectEmulatedKernelsMatch(
      op,
      {space.parse("tile_n=4,1,2,1; tile_m=2,1,4,4; tile_k=4,3,1; split_k=1; stages=1"),
       space.parse("tile_n=8,1,1,1; tile_m=2,1,4,4; tile_k=4,3,1; split_k=1; stages=2"),
       space.parse("tile_n=4,1,2,1; tile_m=2,1,4,4; tile_k=4,3,1; split_k=2; stages=2")},
      65535, SpaceTarget::Gpu, 2);
  const OperatorSpec bmm = smallBatchMatMul(3, 8, 16, 12, true, false);
  const SearchSpace bmmSpace = defaultSpace(bmm, SpaceTarget::Gpu);
  expectEmulatedKernelsMatch(
      bmm,
      {bmmSpace.parse(
           "tile_b=1,3; tile_n=4,1,2,1; tile_m=2,1,2,4; tile_k=4,3,1; split_k=1; stages=2"),
       bmmSpace.parse(
           "tile_b=1,3; tile_n=2,1,1,4; tile_m=4,1,1,4; tile_k=4,1,3; split_k=1; stages=2")},
      65535, SpaceTarget::Gpu);
}

TEST(CodegenEmulatedGpu, Conv2DStridePaddingMatchesReference) {
  const OperatorSpec op = smallConv(2, 8, 12, 13, 3, 2, 1);
  std::vector<Config> configs = smallBlockConfigs(op, 4, 34);
  configs.push_back(defaultSpace(op).parse(
      "tile_f=1,2,3,2; tile_y=1,1,7,1; tile_x=7,1,1,1; tile_rc=2,4; tile_ry=3,1; tile_rx=1,3; "
      "auto_unroll_max_step=0; unroll_explicit=1"));
  expectEmulatedKernelsMatch(op, configs);
}

// Split K on the direct convolution: the blocks of one output tile share its input channels
// (tile_rc's outer steps) and add their partial sums into C in turn, the last one applying the
// epilogue; several blocks resident at once, launched twice (the turns go back to zero), with a
// stride, padding, two images, and groups whose input channels start past zero.
TEST(CodegenEmulatedGpu, Conv2DSplitKMatchesReference) {
  const OperatorSpec op = smallConv(2, 16, 12, 13, 3, 2, 1);
  const SearchSpace space = defaultSpace(op, SpaceTarget::Gpu);
  const Config c = space.parse(
      "tile_f=2,1,3,2; tile_y=1,1,7,1; tile_x=7,1,1,1; tile_rc=8,2; tile_ry=1,3; tile_rx=3,1; "
      "auto_unroll_max_step=512; unroll_explicit=1; split_k=4");
  const auto k = codegen::generateKernel(op, space, c, Backend::Cuda);
  EXPECT_EQ(k.launch.grid.z, 2 * 2 * 4);  // images x channel blocks x splits
  EXPECT_NE(k.source.find("__device__ unsigned int opevo_kernel_turn[28]"), std::string::npos);
  constexpr int kResident = 6;
  std::vector<Config> configs = {
      c, space.parse("tile_f=1,2,3,2; tile_y=1,1,7,1; tile_x=7,1,1,1; tile_rc=2,8; tile_ry=3,1; "
                     "tile_rx=1,3; auto_unroll_max_step=0; unroll_explicit=1; split_k=2")};
  expectEmulatedKernelsMatch(op, configs, 65535, SpaceTarget::Gpu, kResident);

  // Two output tiles in eight splits, six blocks resident: splits of one tile run side by side,
  // and every split but the first waits for its turn.
  const OperatorSpec one = smallConv(1, 16, 8, 6, 3, 1, 1);
  const SearchSpace oneSpace = defaultSpace(one, SpaceTarget::Gpu);
  const Config waits = oneSpace.parse(
      "tile_f=2,1,2,2; tile_y=1,1,6,1; tile_x=1,1,3,2; tile_rc=8,2; tile_ry=1,3; tile_rx=3,1; "
      "auto_unroll_max_step=512; unroll_explicit=1; split_k=8");
  EXPECT_EQ(codegen::generateKernel(one, oneSpace, waits, Backend::Cuda).launch.grid.volume(), 16);
  expectEmulatedKernelsMatch(one, {waits}, 65535, SpaceTarget::Gpu, kResident);
  // More splits than one launch holds along z is an error, not a grid-stride loop (the splits'
  // turns need them all launched); the CPU template has no splits.
  EXPECT_THROW(codegen::generateKernel(one, oneSpace, waits, Backend::Cuda, {"k", 15}), InputError);
  EXPECT_THROW(codegen::generateKernel(one, oneSpace, waits, Backend::Cpu), InputError);

  OperatorSpec grouped = smallConv(2, 16, 8, 9, 3, 1, 1);
  grouped.groups = 2;
  grouped.epilogue = {{EpilogueKind::Bias, 1}, {EpilogueKind::Add, 1}, {EpilogueKind::Relu, 1}};
  const SearchSpace groupedSpace = defaultSpace(grouped, SpaceTarget::Gpu);
  expectEmulatedKernelsMatch(
      grouped,
      {groupedSpace.parse("tile_f=2,1,2,2; tile_y=1,1,9,1; tile_x=9,1,1,1; tile_rc=8,1; "
                          "tile_ry=1,3; tile_rx=3,1; auto_unroll_max_step=512; "
                          "unroll_explicit=1; split_k=8")},
      65535, SpaceTarget::Gpu, kResident);
}

// Weights staged tap-major and read four channels at a time where a thread's register tile has a
// multiple of four channels and its loops are unrolled; scalar reads otherwise. The emulation
// faults on a misaligned float4.
TEST(CodegenEmulatedGpu, Conv2DWeightsReadAsFloat4MatchReference) {
  const OperatorSpec op = smallConv(2, 8, 12, 13, 3, 2, 1);
  const SearchSpace space = defaultSpace(op);
  const std::vector<Config> vector = {
      space.parse("tile_f=1,1,3,4; tile_y=1,1,7,1; tile_x=7,1,1,1; tile_rc=2,4; tile_ry=1,3; "
                  "tile_rx=1,3; auto_unroll_max_step=512; unroll_explicit=1"),
      space.parse("tile_f=1,3,1,4; tile_y=7,1,1,1; tile_x=1,1,7,1; tile_rc=4,2; tile_ry=3,1; "
                  "tile_rx=1,3; auto_unroll_max_step=1500; unroll_explicit=1")};
  // Loops kept rolled (limit 0), or left to the compiler: scalar reads.
  const std::vector<Config> scalar = {
      space.parse("tile_f=1,1,3,4; tile_y=1,1,7,1; tile_x=7,1,1,1; tile_rc=2,4; tile_ry=1,3; "
                  "tile_rx=1,3; auto_unroll_max_step=0; unroll_explicit=1"),
      space.parse("tile_f=1,3,1,4; tile_y=7,1,1,1; tile_x=1,1,7,1; tile_rc=4,2; tile_ry=3,1; "
                  "tile_rx=1,3; auto_unroll_max_step=1500; unroll_explicit=0")};
  const std::string float4Read = "reinterpret_cast<const float4*>(&wTile[";
  std::vector<Config> all;
  for (const auto& [configs, vectorRead] : {std::pair{vector, true}, std::pair{scalar, false}})
    for (const Config& c : configs) {
      const std::string source = codegen::generateKernel(op, space, c, Backend::Cuda).source;
      EXPECT_EQ(source.find(float4Read) != std::string::npos, vectorRead) << space.format(c);
      all.push_back(c);
    }
  expectEmulatedKernelsMatch(op, all);
}

// The Winograd template at each transform size it chooses (F(2x2, 3x3), F(4x4, 3x3), F(2x2, 5x5),
// F(4x4, 5x5)), outputs that whole tiles do not cover (the last tiles stick out), sums kept by the
// thread (E_TH 1) or gathered in shared memory, products read as float4 and as floats, stages
// that threads divide evenly and not, and a fused epilogue.
TEST(CodegenEmulatedGpu, WinogradMatchesReference) {
  const OperatorSpec three = smallConv(2, 6, 8, 11, 3, 1, 1);  // 11 x 11 outputs: 3 x 3 tiles
  ASSERT_EQ(winogradAlpha(three), 6);
  const SearchSpace space3 = defaultSpace(three, SpaceTarget::Winograd);
  std::vector<Config> configs = smallBlockConfigs(three, 3, 41, SpaceTarget::Winograd);
  configs.push_back(space3.parse("tile_f=2,2,2; tile_t=3,2,3; tile_e=1,36; tile_rc=2,3"));
  configs.push_back(space3.parse("tile_f=1,2,4; tile_t=1,6,3; tile_e=4,9; tile_rc=3,2"));
  configs.push_back(space3.parse("tile_f=2,1,4; tile_t=9,1,2; tile_e=9,4; tile_rc=1,6"));
  expectEmulatedKernelsMatch(three, configs, 65535, SpaceTarget::Winograd);

  // 5 x 5 outputs: 3 x 3 tiles of 2 (72 channels: too many for one tile of 8 points).
  const OperatorSpec small = smallConv(1, 72, 4, 5, 3, 1, 1);
  ASSERT_EQ(winogradAlpha(small), 4);
  std::vector<Config> smalls = smallBlockConfigs(small, 2, 43, SpaceTarget::Winograd);
  smalls.push_back(defaultSpace(small, SpaceTarget::Winograd)
                       .parse("tile_f=2,2,1; tile_t=3,3,1; tile_e=2,8; tile_rc=9,8"));
  expectEmulatedKernelsMatch(small, smalls, 65535, SpaceTarget::Winograd);

  OperatorSpec five = smallConv(3, 4, 12, 7, 5, 1, 2);  // 7 x 7 outputs: 2 x 2 tiles of 4 x 4
  ASSERT_EQ(winogradAlpha(five), 8);
  five.epilogue = {{EpilogueKind::Bias, 1}, {EpilogueKind::Relu, 1}, {EpilogueKind::Add, 1}};
  const SearchSpace space5 = defaultSpace(five, SpaceTarget::Winograd);
  std::vector<Config> fives = smallBlockConfigs(five, 3, 42, SpaceTarget::Winograd);
  fives.push_back(space5.parse("tile_f=3,1,4; tile_t=3,2,2; tile_e=8,8; tile_rc=2,2"));
  fives.push_back(space5.parse("tile_f=6,2,1; tile_t=3,4,1; tile_e=1,64; tile_rc=4,1"));
  expectEmulatedKernelsMatch(five, fives, 65535, SpaceTarget::Winograd);

  const OperatorSpec fiveSix = smallConv(2, 4, 6, 5, 5, 1, 2);  // 5 x 5 outputs: 3 x 3 tiles of 2
  ASSERT_EQ(winogradAlpha(fiveSix), 6);
  std::vector<Config> fiveSixes = smallBlockConfigs(fiveSix, 2, 44, SpaceTarget::Winograd);
  fiveSixes.push_back(defaultSpace(fiveSix, SpaceTarget::Winograd)
                          .parse("tile_f=2,3,1; tile_t=3,3,2; tile_e=2,18; tile_rc=2,2"));
  expectEmulatedKernelsMatch(fiveSix, fiveSixes, 65535, SpaceTarget::Winograd);
}

// The worker's side (device_run.h, host memory standing in for the device): a Winograd kernel's
// request transforms B before the upload, once for every trial of the operator, and the result
// passes the check against the plain reference; the untransformed weights fail it.
TEST(CodegenEmulatedGpu, TheWorkerTransformsAWinogradKernelsWeights) {
  const OperatorSpec op = smallConv(2, 6, 8, 12, 3, 1, 1);
  const SearchSpace space = defaultSpace(op, SpaceTarget::Winograd);
  const Config c = smallBlockConfigs(op, 1, 45, SpaceTarget::Winograd).at(0);
  const auto k = codegen::generateKernel(op, space, c, Backend::Cuda, {"tuned"});
  ASSERT_TRUE(k.packedWeights);
  LoadedObject so(emulationHeader() + emulatedKernel(k),
                  {"-O1", "-std=c++20", "-pthread", "-shared", "-fPIC"});
  ASSERT_TRUE(so.ok()) << so.result().log;
  const auto kernel = so.symbol<KernelFn>("emu_tuned");
  OperatorBuffers buffers(op);
  const auto transformed = hostOperandsFor(buffers, nullptr, true);
  EXPECT_EQ(hostOperandsFor(buffers, nullptr, true), transformed) << "transformed again";
  EXPECT_EQ(std::vector<float>(transformed->b.begin(), transformed->b.end()),
            codegen::winogradWeights(op, buffers.b));
  // The untransformed case: the plain weights followed by zeros, as many floats as the kernel
  // reads, so that the wrong weights are all it gets.
  OperatorBuffers plain(op);
  plain.b.resize(codegen::winogradWeights(op, plain.b).size(), 0.0f);
  for (const bool transform : {true, false}) {
    HostApi api;
    OperatorBuffers& given = transform ? buffers : plain;
    DeviceOperands<HostApi> dev(api, given, nullptr, transform);
    const auto floats = [](const DeviceBuffer<HostApi>& b) {
      return reinterpret_cast<const float*>(b.get());
    };
    const auto run = [&] {
      kernel(floats(dev.a), floats(dev.b), reinterpret_cast<float*>(dev.c.get()), floats(dev.bias),
             floats(dev.residual));
    };
    EXPECT_EQ(verifyOnDevice(api, dev, given, run).has_value(), !transform);
  }
}

TEST(CodegenEmulatedGpu, FusedEpiloguesAndGroupsMatchReference) {
  OperatorSpec mm = smallMatMul(32, 48, 40);
  mm.transB = true;
  mm.epilogue = {{EpilogueKind::Bias, 1}, {EpilogueKind::Gelu, 1}, {EpilogueKind::Add, 1}};
  expectEmulatedKernelsMatch(mm, smallBlockConfigs(mm, 3, 35));
  OperatorSpec bmm = smallBatchMatMul(4, 16, 24, 8, false, true);
  bmm.epilogue = {{EpilogueKind::Scale, 0.125}};
  expectEmulatedKernelsMatch(bmm, smallBlockConfigs(bmm, 2, 36));
  OperatorSpec conv = smallConv(2, 12, 8, 11, 3, 1, 1);
  conv.groups = 4;
  conv.epilogue = {{EpilogueKind::Bias, 1}, {EpilogueKind::Add, 1}, {EpilogueKind::Relu, 1}};
  std::vector<Config> configs = smallBlockConfigs(conv, 3, 37);
  configs.push_back(defaultSpace(conv).parse(
      "tile_f=4,1,2,1; tile_y=1,1,11,1; tile_x=11,1,1,1; tile_rc=3,1; tile_ry=1,3; tile_rx=3,1; "
      "auto_unroll_max_step=512; unroll_explicit=1"));
  expectEmulatedKernelsMatch(conv, configs);
}

// The GPU references of a fused operator: the library computes the plain operator, then the
// epilogue kernel finishes it in place. Here the plain result comes from the host.
TEST(CodegenEmulatedGpu, EpilogueKernelFinishesThePlainResult) {
  OperatorSpec mm = smallMatMul(24, 40, 16);
  mm.epilogue = {{EpilogueKind::Bias, 1},
                 {EpilogueKind::Gelu, 1},
                 {EpilogueKind::Scale, 0.5},
                 {EpilogueKind::Add, 1}};
  OperatorSpec conv = smallConv(2, 6, 10, 9, 3, 2, 1);
  conv.epilogue = {{EpilogueKind::Bias, 1}, {EpilogueKind::Add, 1}, {EpilogueKind::Relu, 1}};
  for (const OperatorSpec& op : {mm, conv}) {
    SCOPED_TRACE(op.describe());
    const auto k = codegen::generateEpilogueKernel(op, Backend::Cuda);
    LoadedObject so(emulationHeader() + emulatedKernel(k),
                    {"-O1", "-std=c++20", "-pthread", "-shared", "-fPIC"});
    ASSERT_TRUE(so.ok()) << so.result().log;
    const TestOperands x = randomOperands(op, 23);
    OperatorSpec plain = op;
    plain.epilogue.clear();
    std::vector<float> c = hostReference(plain, x.a, x.b);
    so.symbol<KernelFn>("emu_" + k.entry)(x.a.data(), x.b.data(), c.data(), x.biasData(),
                                          x.residualData());
    EXPECT_EQ(firstMismatch(c, x.reference), -1);
  }
  OperatorSpec none = smallMatMul(8, 8, 8);
  EXPECT_THROW(codegen::generateEpilogueKernel(none, Backend::Cuda), InputError);
  EXPECT_THROW(codegen::generateEpilogueKernel(mm, Backend::Cpu), InputError);
}

// The device's verification of large outputs (gpu/common/device_compare.h): each thread's largest
// relative error over the elements it strides over, of which the host takes the largest, must be
// the host's maxRelativeError, and a NaN anywhere (an element the kernel left unwritten) the worst.
TEST(CodegenEmulatedGpu, TheComparisonKernelFindsTheHostsLargestError) {
  const auto k = codegen::generateComparisonKernel(Backend::Cuda);
  LoadedObject so(
      emulationHeader() + emulatedLaunch(k.source, k.entry, k.launch, 1,
                                         "const float* C, const float* Ref, unsigned long long n, "
                                         "double* Worst",
                                         "C, Ref, n, Worst"),
      {"-O1", "-std=c++20", "-pthread", "-shared", "-fPIC"});
  ASSERT_TRUE(so.ok()) << so.result().log;
  using CompareFn = void (*)(const float*, const float*, unsigned long long, double*);
  const auto compare = so.symbol<CompareFn>("emu_" + k.entry);
  const std::size_t threads = std::size_t(k.launch.grid.x * k.launch.block.x);
  const auto largest = [&](const std::vector<float>& c, const std::vector<float>& ref,
                           std::size_t n) {
    std::vector<double> worst(threads, -1.0);
    compare(c.data(), ref.data(), n, worst.data());
    double w = 0;
    for (double v : worst) {
      EXPECT_GE(v, 0.0) << "every thread writes its result, those past n too";
      w = std::max(w, v);
    }
    return w;
  };
  // More elements than threads, not a multiple of them: some threads take three, most two.
  const std::size_t n = 2 * threads + 12345;
  Rng rng(7);
  std::vector<float> ref(n), c(n);
  for (std::size_t i = 0; i < n; ++i) {
    ref[i] = float(rng.uniform() * 200 - 100);
    c[i] = ref[i] * float(1 + (rng.uniform() - 0.5) * 1e-5);
  }
  EXPECT_DOUBLE_EQ(largest(c, ref, n), maxRelativeError(c, ref));
  c[n - 1] = ref[n - 1] + 5;  // the last thread's last element
  EXPECT_DOUBLE_EQ(largest(c, ref, n), maxRelativeError(c, ref));
  EXPECT_GT(largest(c, ref, n), kVerifyTolerance);
  c[n / 2] = std::nanf("");
  EXPECT_EQ(largest(c, ref, n), INFINITY);
  EXPECT_EQ(maxRelativeError(c, ref), INFINITY);
  // Fewer elements than threads: the idle ones report no error.
  EXPECT_DOUBLE_EQ(largest(c, ref, 1000), maxRelativeError({c.begin(), c.begin() + 1000},
                                                           {ref.begin(), ref.begin() + 1000}));
}

TEST(CodegenEmulatedGpu, Conv2DBlocksStrideOverACappedGridZ) {
  // As C2 does on a real device (512 x 192 > 65535), with a cap small enough to emulate.
  const OperatorSpec op = smallConv(2, 8, 12, 13, 3, 2, 1);
  const SearchSpace space = defaultSpace(op);
  const Config c = space.parse(
      "tile_f=6,1,2,1; tile_y=1,1,7,1; tile_x=1,1,1,7; tile_rc=4,2; tile_ry=1,3; tile_rx=3,1; "
      "auto_unroll_max_step=512; unroll_explicit=1");
  EXPECT_EQ(codegen::generateKernel(op, space, c, Backend::Cuda, {"k", 5}).launch.grid.z, 5);
  expectEmulatedKernelsMatch(op, {c}, 5);
}

}  // namespace
}  // namespace opevo::test
