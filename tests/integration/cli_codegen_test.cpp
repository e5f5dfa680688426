#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "run_process.h"

namespace opevo::test {
namespace {

ProcessResult opevo(const std::vector<std::string>& args) {
  return runProcess(OPEVO_CLI, args);
}

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(CliCodegen, PrintsCudaSourceOfAConfiguration) {
  const std::string config = "tile_n=8,2,8,4; tile_m=16,2,8,4; tile_k=128,2,4";
  const auto r = opevo({"codegen", "--op", "MM1", "--config", config});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "opevo_kernel(const float* OPEVO_RESTRICT A"));
  EXPECT_TRUE(has(r.out, config));
  EXPECT_TRUE(has(r.out, "grid (16, 8, 1), block (8, 8, 1)"));
  EXPECT_TRUE(has(r.out, "prelude: CUDA"));
}

TEST(CliCodegen, GpuSpaceSplitsKAndDoubleBuffers) {
  const auto r = opevo({"codegen", "--op", "MM1", "--config",
                        "tile_n=4,2,8,8; tile_m=8,2,8,8; tile_k=64,4,4; split_k=4; stages=2"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "grid (8, 4, 4), block (8, 8, 1)")) << r.out.substr(0, 2000);
  EXPECT_TRUE(has(r.out, "__device__ unsigned int opevo_kernel_turn[32];"));
  // Double-buffered, fetching four floats a copy (MM1's K is a multiple of 4), into padded rows.
  EXPECT_TRUE(has(r.out, "float4 aNext["));
  EXPECT_TRUE(has(r.out, "constexpr int LDA = 132, LDB = 128;")) << r.out.substr(0, 3000);
  // The CPU template's space has neither parameter.
  const auto cpu = opevo({"codegen", "--op", "MM1", "--backend", "cpu", "--config",
                          "tile_n=4,2,8,8; tile_m=8,2,8,8; tile_k=64,4,4; split_k=4"});
  EXPECT_EQ(cpu.status, 2);
  EXPECT_TRUE(has(cpu.err, "split_k")) << cpu.err;
  const auto space = opevo({"space", "MM1", "--target", "gpu"});
  ASSERT_EQ(space.status, 0) << space.err;
  EXPECT_TRUE(has(space.out, "constraint: split_k divides tile_k's outer factor"));
  EXPECT_TRUE(has(space.out, "stages ")) << space.out;
  EXPECT_TRUE(has(space.out, "discrete:1,2,4,8,16")) << space.out;
  EXPECT_FALSE(has(opevo({"space", "MM1"}).out, "split_k"));
}

// The Winograd template from the command line: its space, its kernel, and the runs that cannot
// take it refused with the reason before anything is measured.
TEST(CliCodegen, WinogradTemplateAndWhatRefusesIt) {
  const auto space = opevo({"space", "C2", "--target", "winograd"});
  ASSERT_EQ(space.status, 0) << space.err;
  EXPECT_TRUE(has(space.out, "factor:25088:3")) << space.out;  // 512 images x 7 x 7 tiles
  EXPECT_TRUE(has(space.out, "constraint: at most 256 accumulators per thread")) << space.out;
  const auto k = opevo({"codegen", "--op", "C2", "--template", "winograd", "--config",
                        "tile_f=6,16,2; tile_t=784,16,2; tile_e=1,64; tile_rc=16,4"});
  ASSERT_EQ(k.status, 0) << k.err;
  EXPECT_TRUE(has(k.out, "Winograd F(4x4, 5x5)")) << k.out.substr(0, 2000);
  EXPECT_TRUE(has(k.out, "grid (784, 6, 1), block (256, 1, 1)")) << k.out.substr(0, 2000);

  // An operator file that names the template gets its kernels without --template.
  const std::string file = ::testing::TempDir() + "opevo-winograd-conv.json";
  std::ofstream(file) << R"({"name": "w3", "kind": "conv2d", "target": "winograd", "shape":
      {"batch": 1, "in_channels": 8, "height": 14, "width": 14, "out_channels": 16,
       "kernel_h": 3, "kernel_w": 3, "stride": 1, "pad": 1}})";
  const auto fromFile = opevo({"codegen", "--op", file, "--random"});
  ASSERT_EQ(fromFile.status, 0) << fromFile.err;
  EXPECT_TRUE(has(fromFile.out, "Winograd F(4x4, 3x3)")) << fromFile.out.substr(0, 1500);
  const auto direct = opevo({"codegen", "--op", file, "--random", "--template", "direct"});
  ASSERT_EQ(direct.status, 0) << direct.err;
  EXPECT_FALSE(has(direct.out, "Winograd")) << direct.out.substr(0, 1500);
  std::remove(file.c_str());

  const auto c1 = opevo({"space", "C1", "--target", "winograd"});
  EXPECT_EQ(c1.status, 2);
  EXPECT_TRUE(has(c1.err, "stride 4")) << c1.err;
  // Refused before the database is opened: nothing is written.
  const std::string db = ::testing::TempDir() + "opevo-winograd-refused.db";
  std::remove(db.c_str());
  const auto joint = opevo({"tune", "--op", "C2", "--template", "winograd", "--mode", "joint",
                            "--backend", "cpu", "--trials", "2", "--db", db});
  EXPECT_EQ(joint.status, 2);
  EXPECT_TRUE(has(joint.err, "drop --mode joint")) << joint.err;
  EXPECT_FALSE(std::ifstream(db).good()) << db << " was written by a refused tune";
}

// The matrix-vector template from the command line: its space, its kernel, a CPU run, and the
// operators and modes it cannot take refused with the reason before anything is measured.
TEST(CliCodegen, MatVecTemplateAndWhatRefusesIt) {
  const auto space = opevo({"space", "alexnet_fc6_b1", "--target", "matvec-gpu"});
  ASSERT_EQ(space.status, 0) << space.err;
  EXPECT_TRUE(has(space.out, "discrete:1,2,4,8,16,32")) << space.out;  // lanes
  EXPECT_TRUE(has(space.out, "constraint: whole warps")) << space.out;
  // The common space, which CPU runs tune, has neither lanes nor k_split.
  const auto common = opevo({"space", "alexnet_fc6_b1", "--target", "matvec"});
  ASSERT_EQ(common.status, 0) << common.err;
  EXPECT_FALSE(has(common.out, "lanes")) << common.out;
  EXPECT_TRUE(has(common.out, "unroll ")) << common.out;
  const auto k = opevo({"codegen", "--op", "alexnet_fc8_b1", "--template", "matvec", "--config",
                        "tile_m=250,4,1; lanes=32; k_split=1; vector=4; unroll=2"});
  ASSERT_EQ(k.status, 0) << k.err;
  EXPECT_TRUE(has(k.out, "grid (250, 1, 1), block (128, 1, 1)")) << k.out.substr(0, 2000);
  EXPECT_TRUE(has(k.out, "__shfl_down_sync")) << k.out.substr(0, 4000);
  const auto mm1 = opevo({"space", "MM1", "--target", "matvec"});
  EXPECT_EQ(mm1.status, 2);
  EXPECT_TRUE(has(mm1.err, "stored k x m")) << mm1.err;

  const std::string db = ::testing::TempDir() + "opevo-matvec.db";
  std::remove(db.c_str());
  const auto joint = opevo({"tune", "--op", "alexnet_fc8_b1", "--template", "matvec", "--mode",
                            "joint", "--backend", "cpu", "--trials", "2", "--db", db});
  EXPECT_EQ(joint.status, 2);
  EXPECT_TRUE(has(joint.err, "drop --mode joint")) << joint.err;
  EXPECT_FALSE(std::ifstream(db).good()) << db << " was written by a refused tune";
  const auto tune = opevo({"tune", "--op", "alexnet_fc8_b1", "--template", "matvec", "--backend",
                           "cpu", "--trials", "4", "--db", db});
  ASSERT_EQ(tune.status, 0) << tune.err << tune.out;
  EXPECT_TRUE(has(tune.out, "unroll=")) << tune.out;
  EXPECT_FALSE(has(tune.out, "lanes=")) << tune.out;
  // A batch-1 dense layer against the matrix-vector routine, not sgemm.
  EXPECT_TRUE(has(tune.out, "OpenBLAS sgemv")) << tune.out;
  std::remove(db.c_str());
}

TEST(CliCodegen, RandomIsSeededAndHipSharesTheKernel) {
  const auto a = opevo({"codegen", "--op", "C2", "--random", "--seed", "4"});
  const auto b = opevo({"codegen", "--op", "C2", "--random", "--seed", "4", "--backend", "hip"});
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(b.status, 0) << b.err;
  const std::string mark = "// ---- end of prelude ----";
  EXPECT_EQ(a.out.substr(a.out.find(mark)), b.out.substr(b.out.find(mark)));
  EXPECT_NE(a.out, opevo({"codegen", "--op", "C2", "--random", "--seed", "5"}).out);
}

TEST(CliCodegen, CpuCompileReportsTheSharedObject) {
  const auto r = opevo({"codegen", "--op", "BMM3", "--backend", "cpu", "--random", "--compile"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "extern \"C\" void opevo_cpu_kernel("));
  EXPECT_TRUE(has(r.out, "// result:    shared object of "));
}

TEST(CliCodegen, CudaCompileReportsRegistersWhenNvrtcIsPresent) {
  const auto r = opevo({"codegen", "--op", "MM2", "--random", "--compile", "--arch", "sm_80"});
  if (r.status == 1 && has(r.err, "NVRTC not found")) GTEST_SKIP() << r.err;
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "compiled for sm_80 with NVRTC"));
  EXPECT_TRUE(has(r.out, "// registers: "));
  EXPECT_TRUE(has(r.out, "bytes dynamic (launch)"));
}

// MM1's space allows blocks whose shared memory sm_75 (64 KiB) cannot give: --random draws again
// until the kernel can launch there, and says how many draws it passed over.
TEST(CliCodegen, RandomDrawsOnlyWhatTheArchitectureCanLaunch) {
  int redrawn = 0;
  for (const char* seed : {"1", "2", "3", "4", "5", "6"}) {
    const auto r = opevo(
        {"codegen", "--op", "MM1", "--random", "--seed", seed, "--compile", "--arch", "sm_75"});
    if (r.status == 1 && has(r.err, "NVRTC not found")) GTEST_SKIP() << r.err;
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_FALSE(has(r.out, "shared memory per block")) << seed << ": " << r.out;
    redrawn += has(r.err, "cannot launch on sm_75");
  }
  EXPECT_GT(redrawn, 0);
}

TEST(CliCodegen, ReferenceKernelNeedsNoConfiguration) {
  const auto r = opevo({"codegen", "--op", "C1", "--reference", "--backend", "cpu"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "opevo_reference("));
}

struct BadCase {
  std::vector<std::string> args;
  std::string mentions;
};

// --help said --config takes a configuration "as `opevo space` formats it"; `opevo space` prints
// a table of choices. The string comes from tune's "best:" line and `opevo show`.
TEST(CliCodegen, HelpSaysWhereTheConfigurationStringComesFrom) {
  const auto r = opevo({"codegen", "--help"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(has(r.out, "as `opevo space` formats it")) << r.out;
  EXPECT_TRUE(has(r.out, "\"best:\"")) << r.out;
  EXPECT_TRUE(has(r.out, "`opevo show RUN`")) << r.out;
}

TEST(CliCodegen, BadInputExitsTwoWithOneLine) {
  const std::vector<BadCase> cases = {
      {{"--op", "MM9", "--random"}, "'MM9' is neither a preset"},
      {{"--op", "MM1", "--backend", "opencl", "--random"}, "unknown backend"},
      {{"--op", "MM1", "--config", "tile_n=1,1,1,512"}, "tile_m"},
      {{"--op", "MM1", "--config", "tile_n=3,1,1,1; tile_m=1024,1,1,1; tile_k=1024,1,1"}, "tile_n"},
      {{"--op", "MM1", "--backend", "cpu", "--config",
        "tile_n=2,8,16,2; tile_m=1,8,64,2; tile_k=1,16,64; tile_k=1024,1,1"},
       "'tile_k' twice"},
      {{"--op", "MM1"}, "--random"},
      {{"--op", "MM1", "--random", "--arch", "sm_90"}, "--compile"},
      {{"--op", "MM1", "--random", "--compile", "--arch", "sm_3"}, "sm_NN"},
      {{"--op", "MM1", "--backend", "hip", "--random", "--compile", "--arch", "gfx1100"}, "gfx90a"},
      {{"--op", "C1", "--reference", "--random"}, "no configuration"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = {"codegen"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const auto r = opevo(args);
    EXPECT_EQ(r.status, 2) << c.mentions << ": " << r.err;
    EXPECT_TRUE(has(r.err, c.mentions)) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(r.out.empty()) << c.mentions;
  }
}

TEST(CliCodegen, BrokenConstraintIsExplained) {
  const auto r = opevo({"codegen", "--op", "MM1", "--config",
                        "tile_n=1,1,512,1; tile_m=1,1,1024,1; tile_k=1024,1,1"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "at most 1024 threads per block")) << r.err;
  EXPECT_TRUE(has(r.err, "524288 threads")) << r.err;
  // A CPU kernel has no blocks, and a constraint on something else is not about them.
  const auto cpu = opevo({"codegen", "--op", "alexnet_fc8_b1", "--backend", "cpu", "--template",
                          "matvec", "--config", "tile_m=1,1,1000; vector=4; unroll=8"});
  EXPECT_EQ(cpu.status, 2);
  EXPECT_TRUE(has(cpu.err, "at most 64 accumulators per thread")) << cpu.err;
  EXPECT_FALSE(has(cpu.err, "per block")) << cpu.err;
}

}  // namespace
}  // namespace opevo::test
