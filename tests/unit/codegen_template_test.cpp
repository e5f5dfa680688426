// The generator's own logic: launch configurations, tiling checks, unroll pragmas, preludes, and
// reading compiler reports. No compiler is run here.

#include <gtest/gtest.h>

#include "codegen/code_writer.h"
#include "codegen/device_limits.h"
#include "codegen/kernel_codegen.h"
#include "codegen/omp_parallel.h"
#include "codegen/templates.h"
#include "codegen_test_util.h"
#include "common/error.h"
#include "cuda/ptxas_info.h"
#include "hip/amdgpu_metadata.h"
#include "ops/presets.h"

namespace opevo::codegen {
namespace {

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// The line before the first line containing needle, without indentation.
std::string lineBefore(const std::string& s, const std::string& needle) {
  const std::size_t at = s.rfind('\n', s.find(needle));
  const std::size_t start = s.rfind('\n', at - 1) + 1;
  const std::string line = s.substr(start, at - start);
  return line.substr(line.find_first_not_of(' '));
}

TEST(CodegenTemplate, MatMulLaunchFollowsTheFactors) {
  const OperatorSpec op = preset("MM1");
  const SearchSpace space = defaultSpace(op);
  const Config c = space.parse("tile_n=8,2,8,4; tile_m=16,2,8,4; tile_k=128,2,4");
  const GeneratedKernel k = generateKernel(op, space, c, Backend::Cuda);
  EXPECT_EQ(k.entry, "opevo_kernel");
  EXPECT_EQ(k.launch.grid.x, 16);  // m blocks
  EXPECT_EQ(k.launch.grid.y, 8);   // n blocks
  EXPECT_EQ(k.launch.grid.z, 1);
  EXPECT_EQ(k.launch.block.x, 8);
  EXPECT_EQ(k.launch.block.y, 8);
  EXPECT_EQ(k.launch.block.z, 1);
  // A's rows (K fastest in global memory) padded to 68 floats against bank conflicts, B's not.
  EXPECT_EQ(k.launch.sharedBytes, 4 * (2 * 4) * (68 + 64));
  EXPECT_TRUE(contains(k.source, "constexpr int LDA = 68, LDB = 64;"));
  EXPECT_EQ(k.accumulators, 64);
  EXPECT_TRUE(contains(k.source, "extern __shared__ __attribute__((aligned(16))) float smem[];"));
  EXPECT_TRUE(contains(k.source, "OPEVO_KERNEL(64) opevo_kernel(const float* OPEVO_RESTRICT A"));
  EXPECT_TRUE(contains(k.source, space.format(c)));  // the configuration is in the header
}

// Slab copies: four floats at a time where global memory keeps them 16-byte aligned (K a multiple
// of 4 when K runs fastest, the copied extent and its dimension otherwise), one otherwise.
TEST(CodegenTemplate, MatMulSlabCopiesAreVectorWhereAligned) {
  const Config c =
      defaultSpace(preset("MM1")).parse("tile_n=8,2,8,4; tile_m=16,2,8,4; tile_k=128,2,4");
  const GeneratedKernel k =
      generateKernel(preset("MM1"), defaultSpace(preset("MM1")), c, Backend::Cuda);
  EXPECT_TRUE(contains(k.source, "const float4 v = *reinterpret_cast<const float4*>(&A["));
  EXPECT_TRUE(contains(k.source, "*reinterpret_cast<float4*>(&Bs["));  // B: along M, into one row
  EXPECT_TRUE(contains(k.source, "A_UNITS = B_TH * K_STEP * BLOCK_N / 4"));
  const OperatorSpec odd =
      test::smallMatMul(64, 64, 30);  // K = 30: A's rows are not 16-byte aligned
  const SearchSpace space = defaultSpace(odd);
  const GeneratedKernel s = generateKernel(
      odd, space, space.parse("tile_n=4,2,2,4; tile_m=4,2,2,4; tile_k=5,3,2"), Backend::Cuda);
  EXPECT_TRUE(contains(s.source,
                       "A_UNITS = B_TH * K_STEP * BLOCK_N, B_UNITS = B_TH * K_STEP * BLOCK_M / 4"));
  EXPECT_FALSE(contains(s.source, "reinterpret_cast<const float4*>(&A["));
}

// The padding of a slab's shared rows: loaded K fastest into rows of a multiple of 32 floats,
// the K_STEP elements of one column share a bank; padded, the first warp's stores take one
// wavefront each.
TEST(CodegenTemplate, SlabRowsArePaddedAgainstBankConflicts) {
  using detail::SlabShape;
  const SlabShape scalar{64, 8, 1, 64, true, false};
  EXPECT_EQ(detail::slabStoreWavefronts(scalar, 64), 8);
  EXPECT_EQ(detail::paddedSlabRow(scalar), 68);
  EXPECT_EQ(detail::slabStoreWavefronts(scalar, 68), 1);
  const SlabShape vector{64, 8, 1, 64, true, true};  // four stores a copy, one row each
  EXPECT_EQ(detail::slabStoreWavefronts(vector, 64), 4 * 2);
  EXPECT_EQ(detail::slabStoreWavefronts(vector, detail::paddedSlabRow(vector)), 4);
  // Extent fastest: a warp's stores already cover the banks, and nothing is padded.
  const SlabShape along{128, 8, 1, 256, false, true};
  EXPECT_EQ(detail::paddedSlabRow(along), 128);
  EXPECT_EQ(detail::slabStoreWavefronts(along, 128), 4);  // a quarter warp each
  // Rows whose extent is a multiple of 4 keep it (float4 reads); others may take any padding.
  EXPECT_EQ(detail::paddedSlabRow({64, 16, 1, 64, true, false}) % 4, 0);
  EXPECT_EQ(detail::slabStoreWavefronts({30, 16, 1, 64, true, false},
                                        detail::paddedSlabRow({30, 16, 1, 64, true, false})),
            1);
}

TEST(CodegenTemplate, BatchMatMulPutsTheBatchOnZ) {
  const OperatorSpec op = preset("BMM2");
  const SearchSpace space = defaultSpace(op);
  const Config c = space.parse("tile_b=480,2; tile_n=4,2,4,4; tile_m=2,2,4,4; tile_k=8,4,4");
  const GeneratedKernel k = generateKernel(op, space, c, Backend::Cuda);
  EXPECT_EQ(k.launch.grid.z, 480);
  EXPECT_EQ(k.launch.block.z, 2);
  EXPECT_EQ(k.launch.sharedBytes, 4 * 2 * 16 * (32 + 32));
  EXPECT_TRUE(contains(k.source, "A is stored K x N (transposed)"));
}

TEST(CodegenTemplate, ConvFusesBatchWithChannelBlocksWithinGridLimits) {
  const OperatorSpec op = preset("C2");  // 512 images, 192 out channels
  const SearchSpace space = defaultSpace(op);
  const Config c = space.parse(
      "tile_f=192,1,1,1; tile_y=27,1,1,1; tile_x=1,1,27,1; tile_rc=64,1; tile_ry=5,1; "
      "tile_rx=1,5; auto_unroll_max_step=512; unroll_explicit=1");
  const GeneratedKernel k = generateKernel(op, space, c, Backend::Cuda);
  EXPECT_EQ(k.launch.grid.x, 1);
  EXPECT_EQ(k.launch.grid.y, 27);
  EXPECT_EQ(k.launch.grid.z, 65535);  // 512 * 192 blocks stride over the fused axis
  EXPECT_EQ(k.launch.block.x, 27);
  // Patch: 1 channel x 1 row x (26 + 5) columns, rounded up to whole float4s; weights: 5 taps of
  // 1 channel (rows of one float: the copy's five stores fall on five banks).
  EXPECT_EQ(k.launch.sharedBytes, 4 * (32 + 5));
  EXPECT_TRUE(checkLaunch(k.launch, nullptr, nominalLimits("sm_90")).empty());
}

TEST(CodegenTemplate, UnrollParametersDrivePragmas) {
  const OperatorSpec op = preset("C2");
  const SearchSpace space = defaultSpace(op);
  const std::string tiles =
      "tile_f=4,2,8,3; tile_y=27,1,1,1; tile_x=1,1,27,1; tile_rc=16,4; tile_ry=5,1; tile_rx=1,5; ";
  auto source = [&](const std::string& unroll) {
    return generateKernel(op, space, space.parse(tiles + unroll), Backend::Cuda).source;
  };
  const std::string none = source("auto_unroll_max_step=0; unroll_explicit=1");
  const std::string explicitUnroll = source("auto_unroll_max_step=1500; unroll_explicit=1");
  const std::string compilerUnroll = source("auto_unroll_max_step=1500; unroll_explicit=0");
  EXPECT_FALSE(contains(none, "#pragma unroll\n"));
  EXPECT_TRUE(contains(explicitUnroll, "#pragma unroll\n"));
  EXPECT_FALSE(contains(compilerUnroll, "#pragma unroll\n"));
  // The compute nest has 4 x 5 x 2 x 3 = 120 steps: rolled only without an unroll budget.
  EXPECT_EQ(lineBefore(none, "for (int rci"), "#pragma unroll 1");
  EXPECT_EQ(lineBefore(explicitUnroll, "for (int rci"), "#pragma unroll");
  EXPECT_NE(lineBefore(compilerUnroll, "for (int rci").rfind("#pragma", 0), 0u);
}

TEST(CodegenTemplate, UnrollPragmaRules) {
  const UnrollPolicy cuda{UnrollPolicy::Style::Cuda, 512, true};
  EXPECT_EQ(unrollPragma(8, 512, cuda), "#pragma unroll");
  EXPECT_EQ(unrollPragma(8, 513, cuda), "#pragma unroll 1");
  EXPECT_EQ(unrollPragma(1, 1000, cuda), "");  // nothing to unroll
  const UnrollPolicy left{UnrollPolicy::Style::Cuda, 512, false};
  EXPECT_EQ(unrollPragma(8, 64, left), "");
  EXPECT_EQ(unrollPragma(8, 1024, left), "#pragma unroll 1");
  const UnrollPolicy gcc{UnrollPolicy::Style::Gcc, 100, true};
  EXPECT_EQ(unrollPragma(4, 100, gcc), "#pragma GCC unroll 4");
  EXPECT_EQ(unrollPragma(UnrollPolicy{}.maxSteps + 4, 1, UnrollPolicy{}), "");
  CodeWriter w;
  w.openNest({{"a", 2, ""}, {"b", 300, "B_IN"}}, cuda);
  w.closeNest(2);
  EXPECT_EQ(w.str(),
            "#pragma unroll 1\nfor (int a = 0; a < 2; ++a) {\n  #pragma unroll\n"
            "  for (int b = 0; b < B_IN; ++b) {\n  }\n}\n");
}

TEST(CodegenTemplate, CudaAndHipShareTheKernelText) {
  for (const char* name : {"MM2", "BMM3", "C1"}) {
    const OperatorSpec op = preset(name);
    const SearchSpace space = defaultSpace(op);
    Rng rng(5);
    const Config c = *space.randomValid(rng);
    const std::string cuda = generateKernel(op, space, c, Backend::Cuda).source;
    const std::string hip = generateKernel(op, space, c, Backend::Hip).source;
    const std::string mark = "// ---- end of prelude ----\n";
    ASSERT_TRUE(contains(cuda, mark) && contains(hip, mark));
    EXPECT_EQ(cuda.substr(cuda.find(mark)), hip.substr(hip.find(mark))) << name;
    EXPECT_TRUE(contains(hip, "__HIPCC_RTC__"));
    EXPECT_FALSE(contains(cuda, "hip_runtime.h"));
  }
}

TEST(CodegenTemplate, RejectsConfigurationsThatDoNotFitTheTemplate) {
  const OperatorSpec mm = preset("MM1");
  const OperatorSpec conv = preset("C1");
  const SearchSpace convSpace = defaultSpace(conv);
  Rng rng(1);
  const Config convConfig = *convSpace.randomValid(rng);
  // A Conv2D configuration for a MatMul: the space has no tile_n.
  EXPECT_THROW(generateKernel(mm, convSpace, convConfig, Backend::Cuda), InputError);
  SearchSpace tooShort = defaultSpace(preset("MM2"));  // tile_m factors 4096, not 1024
  const Config other = *tooShort.randomValid(rng);
  try {
    generateKernel(mm, tooShort, other, Backend::Cpu);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_TRUE(contains(e.what(), "tile_m")) << e.what();
  }
  EXPECT_THROW(parseBackend("opencl"), InputError);
  EXPECT_EQ(parseBackend("hip"), Backend::Hip);
}

TEST(CodegenTemplate, ReferenceKernelsCoverEveryOutput) {
  const OperatorSpec op = preset("C1");
  const GeneratedKernel k = generateReferenceKernel(op, Backend::Cuda);
  EXPECT_EQ(k.entry, "opevo_reference");
  EXPECT_EQ(k.launch.block.x, 256);
  EXPECT_GE(k.launch.grid.x * 256, operandSizes(op).c);
  EXPECT_LT((k.launch.grid.x - 1) * 256, operandSizes(op).c);
  EXPECT_TRUE(contains(generateReferenceKernel(op, Backend::Cpu).source, "omp parallel for"));
}

// A CPU kernel too small to pay for waking a sleeping OpenMP team runs on the calling thread
// (codegen/omp_parallel.h): a 16x16x16 matmul (8 KFLOP) keeps its loop on one thread, MM1 does
// not.
TEST(CodegenTemplate, SmallCpuKernelsStayOnOneThread) {
  OperatorSpec small = preset("MM1");
  small.n = small.m = small.k = 16;
  const OperatorSpec large = preset("MM1");
  for (const auto& [op, serial] : {std::pair{small, true}, std::pair{large, false}}) {
    const SearchSpace space = defaultSpace(op);
    Rng rng(3);
    const std::string source =
        generateKernel(op, space, *space.randomValid(rng), Backend::Cpu).source;
    ASSERT_TRUE(contains(source, "#pragma omp parallel for collapse(3) schedule(static)"));
    EXPECT_EQ(contains(source, "schedule(static) if(0)"), serial) << op.n;
  }
  EXPECT_EQ(ompParallel(" for", kSerialFlops - 1, Work::Flops), "#pragma omp parallel for if(0)");
  EXPECT_EQ(ompParallel(" for", kSerialFlops, Work::Flops), "#pragma omp parallel for");
  EXPECT_EQ(ompParallel("", kSerialElements - 1, Work::Elements), "#pragma omp parallel if(0)");
  EXPECT_EQ(ompParallel("", kSerialElements, Work::Elements), "#pragma omp parallel");
}

TEST(CodegenTemplate, LaunchChecksAgainstNominalLimits) {
  LaunchConfig l;
  l.block = {32, 32, 1};
  l.sharedBytes = 100 * 1024;
  EXPECT_TRUE(checkLaunch(l, nullptr, nominalLimits("sm_90")).empty());
  EXPECT_EQ(checkLaunch(l, nullptr, nominalLimits("sm_86")).size(), 1u);
  EXPECT_EQ(checkLaunch(l, nullptr, nominalLimits("gfx90a")).size(), 1u);
  KernelResources r;
  r.registers = 128;  // x 1024 threads > 65536
  EXPECT_EQ(checkLaunch(l, &r, nominalLimits("sm_90")).size(), 1u);
  l.grid.z = 70000;
  EXPECT_EQ(checkLaunch(l, nullptr, nominalLimits("sm_90")).size(), 1u);
  // 864 threads fit a block, but not 96 of them along z on CUDA (C2 on the H200: "cuLaunchKernel:
  // invalid argument"); AMD allows them.
  LaunchConfig deep;
  deep.block = {1, 9, 96};
  EXPECT_EQ(
      checkLaunch(deep, nullptr, nominalLimits("sm_90")),
      std::vector<std::string>{"block (1, 9, 96) exceeds sm_90's block limits (1024, 1024, 64)"});
  EXPECT_TRUE(checkLaunch(deep, nullptr, nominalLimits("gfx90a")).empty());
}

TEST(CodegenCompilerReports, ParsesPtxasVerboseLog) {
  const std::string log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'k0' for 'sm_90'\n"
      "ptxas info    : Function properties for k0\n"
      "ptxas         .     16 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\n"
      "ptxas info    : Used 72 registers, used 1 barriers, 1024 bytes smem\n"
      "ptxas info    : Compiling entry function 'k1' for 'sm_90'\n"
      "ptxas info    : Function properties for k1\n"
      "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 40 registers, used 1 barriers, 368 bytes cmem[0]\n";
  const auto r = parsePtxasInfo(log);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r.at("k0").registers, 72);
  EXPECT_EQ(r.at("k0").staticSharedBytes, 1024);
  EXPECT_EQ(r.at("k0").localBytes, 16);
  EXPECT_EQ(r.at("k0").spillStoreBytes, 8);
  EXPECT_EQ(r.at("k1").registers, 40);
  EXPECT_EQ(r.at("k1").staticSharedBytes, 0);
}

TEST(CodegenCompilerReports, AmdgpuMetadataReaderSurvivesGarbage) {
  EXPECT_TRUE(readAmdgpuResources("").empty());
  EXPECT_TRUE(readAmdgpuResources("not an elf file at all").empty());
  std::string elf(64, '\0');
  elf.replace(0, 5,
              "\x7f"
              "ELF\x02");
  elf[40] = '\xff';  // section headers far beyond the end
  EXPECT_TRUE(readAmdgpuResources(elf).empty());
}

}  // namespace
}  // namespace opevo::codegen
