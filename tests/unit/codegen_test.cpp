// Generated kernels compile (NVRTC, hiprtc) and compute the right thing (CPU template).

#include <gtest/gtest.h>

#include <cmath>
#include <future>

#include "codegen/templates.h"
#include "codegen/winograd_transforms.h"
#include "codegen_test_util.h"
#include "common/error.h"
#include "cuda/nvrtc_compiler.h"
#include "hip/hiprtc_compiler.h"
#include "net/network_json.h"
#include "net/tasks.h"
#include "ops/winograd_space.h"

namespace opevo::test {
namespace {

using codegen::Backend;
using codegen::generateKernel;

// Builds every configuration's CPU kernel and the CPU reference kernel into one shared object
// (one compiler run), runs them on random data, and compares each with the host reference.
void expectCpuKernelsMatch(const OperatorSpec& op, const std::vector<Config>& configs,
                           SpaceTarget target = SpaceTarget::Common) {
  const SearchSpace space = defaultSpace(op, target);
  std::string source;
  std::vector<bool> packedWeights;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const codegen::GeneratedKernel k =
        generateKernel(op, space, configs[i], Backend::Cpu, {"tuned_" + std::to_string(i)});
    source += k.source;
    packedWeights.push_back(k.packedWeights);
  }
  source += codegen::generateReferenceKernel(op, Backend::Cpu).source;
  LoadedObject so(source, {"-O3", "-march=native", "-fopenmp", "-shared", "-fPIC"});
  ASSERT_TRUE(so.ok()) << so.result().log;

  const TestOperands x = randomOperands(op, 11);
  const std::vector<float>& want = x.reference;
  auto run = [&](const std::string& entry, bool packed) {
    std::vector<float> c(want.size(), std::nanf(""));
    std::vector<float> b = x.b;
    if (packed) {
      // As the harness does: the weights transformed once, by the library (checked against the
      // host's transform, which a network's program holds instead).
      b.assign(std::size_t(so.symbol<long long (*)(int)>(entry + "_packed_size")(1)), 0.0f);
      so.symbol<void (*)(const float*, float*)>(entry + "_pack_b")(x.b.data(), b.data());
      EXPECT_EQ(firstMismatch(b, codegen::winogradWeights(op, x.b)), -1) << entry << "_pack_b";
    }
    so.symbol<KernelFn>(entry)(x.a.data(), b.data(), c.data(), x.biasData(), x.residualData());
    return c;
  };
  EXPECT_EQ(firstMismatch(run("opevo_reference", false), want), -1) << "the reference kernel";
  for (std::size_t i = 0; i < configs.size(); ++i) {
    const std::vector<float> got = run("tuned_" + std::to_string(i), packedWeights[i]);
    const std::int64_t bad = firstMismatch(got, want);
    EXPECT_EQ(bad, -1) << space.format(configs[i]) << ": element " << bad << " is "
                       << (bad >= 0 ? got[bad] : 0) << ", expected " << (bad >= 0 ? want[bad] : 0);
  }
}

TEST(CodegenCpu, MatMulMatchesReference) {
  const OperatorSpec op = smallMatMul(64, 96, 80);
  const SearchSpace space = defaultSpace(op);
  std::vector<Config> configs = randomConfigs(space, 4, 1);
  // Every factor position used, and an inner tile too big for registers (accumulates in C).
  configs.push_back(space.parse("tile_n=2,2,4,4; tile_m=2,3,4,4; tile_k=2,5,8"));
  configs.push_back(space.parse("tile_n=1,1,1,64; tile_m=1,1,1,96; tile_k=80,1,1"));
  expectCpuKernelsMatch(op, configs);
}

TEST(CodegenCpu, BatchMatMulTransposedMatchesReference) {
  const OperatorSpec transA = smallBatchMatMul(6, 32, 48, 40, true, false);
  std::vector<Config> configs = randomConfigs(defaultSpace(transA), 4, 2);
  configs.push_back(
      defaultSpace(transA).parse("tile_b=3,2; tile_n=2,2,2,4; tile_m=2,2,3,4; tile_k=2,4,5"));
  expectCpuKernelsMatch(transA, configs);
  const OperatorSpec both = smallBatchMatMul(6, 32, 48, 40, true, true);
  expectCpuKernelsMatch(both, randomConfigs(defaultSpace(both), 3, 3));
}

TEST(CodegenCpu, Conv2DStridePaddingMatchesReference) {
  const OperatorSpec op = smallConv(2, 8, 12, 13, 3, 2, 1);
  const SearchSpace space = defaultSpace(op);
  std::vector<Config> configs = randomConfigs(space, 4, 4);
  configs.push_back(space.parse(
      "tile_f=1,2,3,2; tile_y=1,1,7,1; tile_x=7,1,1,1; tile_rc=2,4; tile_ry=3,1; tile_rx=1,3; "
      "auto_unroll_max_step=1500; unroll_explicit=1"));
  expectCpuKernelsMatch(op, configs);
}

TEST(CodegenCpu, FusedEpiloguesMatchReference) {
  OperatorSpec mm = smallMatMul(32, 48, 40);
  mm.transB = true;  // as a dense layer's stored weight
  mm.epilogue = {{EpilogueKind::Bias, 1}, {EpilogueKind::Gelu, 1}, {EpilogueKind::Add, 1}};
  std::vector<Config> configs = randomConfigs(defaultSpace(mm), 3, 5);
  // An inner tile too big for registers: the epilogue then reads C back.
  configs.push_back(defaultSpace(mm).parse("tile_n=1,1,1,32; tile_m=1,1,1,48; tile_k=40,1,1"));
  expectCpuKernelsMatch(mm, configs);
  OperatorSpec bmm = smallBatchMatMul(4, 16, 24, 8, false, true);
  bmm.epilogue = {{EpilogueKind::Scale, 8}, {EpilogueKind::Relu6, 1}};  // clamps at 0 and 6
  expectCpuKernelsMatch(bmm, randomConfigs(defaultSpace(bmm), 3, 6));
  OperatorSpec conv = smallConv(2, 8, 12, 13, 3, 2, 1);
  conv.epilogue = {{EpilogueKind::Bias, 1}, {EpilogueKind::Add, 1}, {EpilogueKind::Relu, 1}};
  expectCpuKernelsMatch(conv, randomConfigs(defaultSpace(conv), 4, 7));
}

// A CPU function `name`(in, out, n) applying one epilogue step to each of n values.
std::string elementwiseEpilogue(EpilogueKind kind, const std::string& name) {
  OperatorSpec op = smallMatMul(1, 1, 1);
  op.epilogue = {{kind, 1}};
  codegen::CodeWriter w;
  w.open("extern \"C\" void " + name + "(const float* in, float* out, int n)");
  w.open("for (int i = 0; i < n; ++i)");
  w.line("float v = in[i];");
  codegen::detail::writeEpilogue(w, op, codegen::Backend::Cpu, "v", "0", "i");
  w.line("out[i] = v;");
  w.close();
  w.close();
  return w.str();
}

// The CPU epilogue's GELU computes erf without glibc (so that it vectorizes): within 1e-6 of the
// exact GELU, relative to 1 + |value|, from -12 to 12 and at the cap's edges, far inside the 1e-3
// a kernel must meet.
TEST(CodegenCpu, GeluIsAccurateEverywhere) {
  const std::string source = elementwiseEpilogue(EpilogueKind::Gelu, "gelu");
  const LoadedObject object(source, CpuCompilerOptions().flags);
  ASSERT_TRUE(object.ok()) << object.result().log << source;
  const auto gelu = object.symbol<void (*)(const float*, float*, int)>("gelu");
  std::vector<float> in;
  for (int i = -120000; i <= 120000; ++i) in.push_back(static_cast<float>(i) * 1e-4f);
  for (float edge : {5.6568542f, 5.6568546f, -5.6568542f, 1e-30f, -1e-30f, 0.0f, 30.0f, -30.0f})
    in.push_back(edge);
  std::vector<float> out(in.size());
  gelu(in.data(), out.data(), static_cast<int>(in.size()));
  double worst = 0;
  float at = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const double x = in[i];
    const double exact = 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
    const double e = std::fabs(out[i] - exact) / (1.0 + std::fabs(exact));
    if (!(e <= worst)) {
      worst = e;
      at = in[i];
    }
  }
  EXPECT_LT(worst, 1e-6) << "at x = " << at;
}

// The CPU epilogue's relu is a select, which GCC vectorizes (fmaxf it leaves scalar without
// -ffinite-math-only, and with it the register tile's whole store loop): fmaxf's results, NaN
// included.
TEST(CodegenCpu, ReluIsASelectWithFmaxfsResults) {
  const std::string source = elementwiseEpilogue(EpilogueKind::Relu, "relu");
  EXPECT_EQ(source.find("fmax"), std::string::npos) << source;
  const LoadedObject object(source, CpuCompilerOptions().flags);
  ASSERT_TRUE(object.ok()) << object.result().log << source;
  const auto relu = object.symbol<void (*)(const float*, float*, int)>("relu");
  const std::vector<float> in{-2.5f, -0.0f, 0.0f, 1e-38f, 3.0f, NAN, -INFINITY, INFINITY};
  std::vector<float> out(in.size());
  relu(in.data(), out.data(), static_cast<int>(in.size()));
  for (std::size_t i = 0; i < in.size(); ++i)
    EXPECT_EQ(out[i], std::fmax(in[i], 0.0f)) << "relu(" << in[i] << ")";
}

TEST(CodegenCpu, GroupedConv2DMatchesReference) {
  OperatorSpec op = smallConv(2, 12, 8, 11, 3, 1, 1);
  op.groups = 4;  // 3 input and 2 output channels per group
  op.epilogue = {{EpilogueKind::Bias, 1}};
  const SearchSpace space = defaultSpace(op);
  EXPECT_EQ(space.param(static_cast<std::size_t>(space.indexOf("tile_rc"))).spec(), "factor:3:2");
  std::vector<Config> configs = randomConfigs(space, 4, 8);
  configs.push_back(space.parse(
      "tile_f=4,1,1,2; tile_y=1,1,11,1; tile_x=11,1,1,1; tile_rc=1,3; tile_ry=3,1; tile_rx=1,3; "
      "auto_unroll_max_step=0; unroll_explicit=0"));
  for (const Config& c : configs) EXPECT_TRUE(space.satisfies(c)) << space.format(c);
  // A block of 4 channels would span two groups: the space refuses it.
  EXPECT_FALSE(space.satisfies(space.parse(
      "tile_f=2,1,2,2; tile_y=1,1,11,1; tile_x=11,1,1,1; tile_rc=1,3; tile_ry=3,1; tile_rx=1,3; "
      "auto_unroll_max_step=0; unroll_explicit=0")));
  expectCpuKernelsMatch(op, configs);
}

// Proves that each configuration's kernel takes the interior path: with the path's product
// (`product`, found once in the source) zeroed, each computes something else.
void expectInteriorPathTaken(const OperatorSpec& op, const std::vector<Config>& configs,
                             const std::string& product) {
  const SearchSpace space = defaultSpace(op);
  std::string zeroed = product;
  zeroed.replace(zeroed.find("wv *"), 4, "0.0f *");
  std::string source;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    std::string k =
        generateKernel(op, space, configs[i], Backend::Cpu, {"zeroed_" + std::to_string(i)}).source;
    const std::size_t at = k.find(product);
    ASSERT_NE(at, std::string::npos) << space.format(configs[i]);
    EXPECT_EQ(k.find(product, at + 1), std::string::npos) << space.format(configs[i]);
    k.replace(at, product.size(), zeroed);
    source += k;
  }
  LoadedObject so(source, {"-O3", "-march=native", "-fopenmp", "-shared", "-fPIC"});
  ASSERT_TRUE(so.ok()) << so.result().log;
  const TestOperands x = randomOperands(op, 11);
  for (std::size_t i = 0; i < configs.size(); ++i) {
    std::vector<float> c(x.reference.size(), std::nanf(""));
    so.symbol<KernelFn>("zeroed_" + std::to_string(i))(x.a.data(), x.b.data(), c.data(),
                                                       x.biasData(), x.residualData());
    EXPECT_NE(firstMismatch(c, x.reference), -1) << space.format(configs[i]);
  }
}

// A padded convolution's configurations whose tiles test their windows (`inside`): each matches
// the reference and takes the interior path (`product`).
void expectPaddedInteriorPath(const OperatorSpec& op, const std::vector<Config>& configs,
                              const std::string& product) {
  const SearchSpace space = defaultSpace(op);
  for (const Config& c : configs)
    EXPECT_NE(generateKernel(op, space, c, Backend::Cpu).source.find("const bool inside"),
              std::string::npos)
        << space.format(c);
  expectCpuKernelsMatch(op, configs);
  expectInteriorPathTaken(op, configs, product);
}

constexpr const char* kInteriorProduct = "acc[fi][yi][xi] += wv * at[xi * S];";
constexpr const char* kStridedInteriorProduct = "acc[fi][yi][xi] += wv * tap[xi];";

// The interior path (a register tile row of 2 to 16 outputs): tiles whose window lies inside the
// input skip the padding tests in an `omp simd` row, the rest keep the tested loop.
// Images of 24: rows and columns of tiles at the border and inside; reductions split into
// stages of kernel rows and columns, so that one tile is interior in some stages alone; padding
// of 2 with 5x5 taps; grouped and depthwise channels; a fused epilogue.
TEST(CodegenCpu, InteriorTilesSkipThePaddingTestsAndMatchTheReference) {
  OperatorSpec conv = smallConv(2, 6, 8, 24, 3, 1, 1);
  conv.epilogue = {{EpilogueKind::Bias, 1}, {EpilogueKind::Relu, 1}};
  const SearchSpace space = defaultSpace(conv);
  const std::vector<Config> configs = {
      space.parse("tile_f=2,1,2,2; tile_y=3,2,2,2; tile_x=3,1,1,8; tile_rc=2,3; tile_ry=3,1; "
                  "tile_rx=3,1; auto_unroll_max_step=512; unroll_explicit=1"),
      space.parse("tile_f=1,2,2,2; tile_y=6,1,1,4; tile_x=2,1,3,4; tile_rc=1,6; tile_ry=1,3; "
                  "tile_rx=1,3; auto_unroll_max_step=0; unroll_explicit=0"),
      space.parse("tile_f=4,1,1,2; tile_y=4,1,3,2; tile_x=1,1,2,12; tile_rc=6,1; tile_ry=3,1; "
                  "tile_rx=3,1; auto_unroll_max_step=1500; unroll_explicit=1")};
  expectPaddedInteriorPath(conv, configs, kInteriorProduct);

  OperatorSpec five = smallConv(1, 4, 4, 24, 5, 1, 2);
  five.groups = 2;
  const SearchSpace fiveSpace = defaultSpace(five);
  expectCpuKernelsMatch(
      five, {fiveSpace.parse("tile_f=2,1,1,2; tile_y=6,1,2,2; tile_x=4,1,1,6; tile_rc=1,2; "
                             "tile_ry=5,1; tile_rx=1,5; auto_unroll_max_step=512; "
                             "unroll_explicit=0")});
  const OperatorSpec depthwise = smallDepthwiseConv(1, 16, 24, 3, 1, 1);
  const SearchSpace dwSpace = defaultSpace(depthwise);
  std::vector<Config> dwConfigs = randomConfigs(dwSpace, 3, 12);
  dwConfigs.push_back(
      dwSpace.parse("tile_f=4,1,2,2; tile_y=6,1,1,4; tile_x=3,1,1,8; "
                    "tile_rc=1,1; tile_ry=1,3; tile_rx=3,1; "
                    "auto_unroll_max_step=1500; unroll_explicit=1"));
  expectCpuKernelsMatch(depthwise, dwConfigs);

  // Unpadded, every window lies inside: the interior path alone, no test.
  const OperatorSpec unpadded = smallConv(1, 4, 4, 24, 3, 1, 0);
  const SearchSpace unpaddedSpace = defaultSpace(unpadded);
  const Config whole = unpaddedSpace.parse(
      "tile_f=2,1,1,2; tile_y=2,1,1,11; tile_x=1,1,2,11; tile_rc=2,2; tile_ry=1,3; tile_rx=3,1; "
      "auto_unroll_max_step=512; unroll_explicit=1");
  const std::string unpaddedSource =
      generateKernel(unpadded, unpaddedSpace, whole, Backend::Cpu).source;
  EXPECT_NE(unpaddedSource.find("#pragma omp simd"), std::string::npos);
  EXPECT_EQ(unpaddedSource.find("const bool inside"), std::string::npos);
  EXPECT_EQ(unpaddedSource.find("zero padding"), std::string::npos);
  expectCpuKernelsMatch(unpadded, {whole});

  // A row of 24 outputs leaves the registers, a row of one is no vector, and a register tile of
  // more than 4096 accumulators sums in C: each keeps the tested loop alone, at stride 1 and 2.
  const auto interiorPath = [](const OperatorSpec& op, const char* config) {
    const SearchSpace s = defaultSpace(op);
    return generateKernel(op, s, s.parse(config), Backend::Cpu).source.find("#pragma omp simd") !=
           std::string::npos;
  };
  EXPECT_FALSE(interiorPath(conv,
                            "tile_f=2,1,2,2; tile_y=12,1,1,2; tile_x=1,1,1,24; tile_rc=1,6; "
                            "tile_ry=1,3; tile_rx=1,3; auto_unroll_max_step=0; unroll_explicit=0"));
  EXPECT_FALSE(interiorPath(conv,
                            "tile_f=2,1,2,2; tile_y=12,1,1,2; tile_x=24,1,1,1; tile_rc=1,6; "
                            "tile_ry=1,3; tile_rx=1,3; auto_unroll_max_step=0; unroll_explicit=0"));
  EXPECT_FALSE(interiorPath(smallConv(1, 4, 64, 48, 3, 1, 1),
                            "tile_f=1,1,1,64; tile_y=6,1,1,8; tile_x=4,1,1,12; tile_rc=1,4; "
                            "tile_ry=1,3; tile_rx=1,3; auto_unroll_max_step=0; unroll_explicit=0"));
  const OperatorSpec stride2 = smallConv(1, 4, 4, 24, 3, 2, 1);
  EXPECT_FALSE(interiorPath(stride2,
                            "tile_f=1,1,2,2; tile_y=3,1,1,4; tile_x=12,1,1,1; tile_rc=1,4; "
                            "tile_ry=1,3; tile_rx=1,3; auto_unroll_max_step=0; unroll_explicit=0"));
  // Rows of 12 and 4 of the same convolutions take the path, so that the lines above can fail.
  EXPECT_TRUE(interiorPath(conv,
                           "tile_f=2,1,2,2; tile_y=12,1,1,2; tile_x=2,1,1,12; tile_rc=1,6; "
                           "tile_ry=1,3; tile_rx=1,3; auto_unroll_max_step=0; unroll_explicit=0"));
  EXPECT_TRUE(interiorPath(stride2,
                           "tile_f=1,1,2,2; tile_y=3,1,1,4; tile_x=3,1,1,4; tile_rc=1,4; "
                           "tile_ry=1,3; tile_rx=1,3; auto_unroll_max_step=0; unroll_explicit=0"));
}

// At stride S > 1 the interior path splits the window's rows into S phases, so that each tap
// reads a contiguous row of one phase (docs/codegen.md). Taps staged one kernel column at a time
// (one phase read) and whole (every phase, of unequal lengths: 5 taps at stride 3), stride 2 and
// 3, padded and unpadded, 1x1 taps, grouped and depthwise channels, a fused epilogue; every
// explicit configuration is proven to take the path.
TEST(CodegenCpu, StridedInteriorTilesReadPhasesAndMatchTheReference) {
  OperatorSpec conv = smallConv(2, 6, 8, 24, 3, 2, 1);
  conv.epilogue = {{EpilogueKind::Bias, 1}, {EpilogueKind::Relu, 1}};
  const SearchSpace space = defaultSpace(conv);
  const std::vector<Config> configs = {
      space.parse("tile_f=2,1,2,2; tile_y=3,1,1,4; tile_x=3,1,1,4; tile_rc=2,3; tile_ry=3,1; "
                  "tile_rx=3,1; auto_unroll_max_step=512; unroll_explicit=1"),
      space.parse("tile_f=1,2,2,2; tile_y=2,1,2,3; tile_x=2,1,1,6; tile_rc=1,6; tile_ry=1,3; "
                  "tile_rx=1,3; auto_unroll_max_step=0; unroll_explicit=0"),
      space.parse("tile_f=4,1,1,2; tile_y=4,1,1,3; tile_x=6,1,1,2; tile_rc=6,1; tile_ry=3,1; "
                  "tile_rx=1,3; auto_unroll_max_step=1500; unroll_explicit=1")};
  expectPaddedInteriorPath(conv, configs, kStridedInteriorProduct);

  OperatorSpec five = smallConv(1, 4, 4, 24, 5, 3, 2);
  five.groups = 2;
  const SearchSpace fiveSpace = defaultSpace(five);
  const std::vector<Config> fiveConfigs = {
      fiveSpace.parse("tile_f=2,1,1,2; tile_y=2,1,2,2; tile_x=2,1,1,4; tile_rc=1,2; "
                      "tile_ry=5,1; tile_rx=1,5; auto_unroll_max_step=512; unroll_explicit=0"),
      fiveSpace.parse("tile_f=2,1,1,2; tile_y=4,1,1,2; tile_x=1,2,1,4; tile_rc=2,1; "
                      "tile_ry=1,5; tile_rx=5,1; auto_unroll_max_step=1500; unroll_explicit=1")};
  expectPaddedInteriorPath(five, fiveConfigs, kStridedInteriorProduct);

  const OperatorSpec depthwise = smallDepthwiseConv(1, 16, 24, 3, 2, 1);
  const SearchSpace dwSpace = defaultSpace(depthwise);
  const std::vector<Config> dwConfigs = {
      dwSpace.parse("tile_f=4,1,2,2; tile_y=3,1,1,4; tile_x=2,1,1,6; tile_rc=1,1; tile_ry=1,3; "
                    "tile_rx=1,3; auto_unroll_max_step=1500; unroll_explicit=1"),
      dwSpace.parse("tile_f=8,1,1,2; tile_y=2,1,3,2; tile_x=1,2,2,3; tile_rc=1,1; tile_ry=3,1; "
                    "tile_rx=3,1; auto_unroll_max_step=0; unroll_explicit=0")};
  std::vector<Config> dwAll = randomConfigs(dwSpace, 3, 13);
  dwAll.insert(dwAll.end(), dwConfigs.begin(), dwConfigs.end());
  expectCpuKernelsMatch(depthwise, dwAll);
  expectInteriorPathTaken(depthwise, dwConfigs, kStridedInteriorProduct);

  // Padded where the last tiles' windows reach the bottom and right padding in some stages
  // alone (the inside test's far terms, (Y_IN - 1) * S and (X_IN - 1) * S, decide them).
  for (const auto& [op, config] :
       {std::pair{smallConv(1, 4, 4, 23, 3, 2, 1),
                  "tile_f=2,1,1,2; tile_y=3,1,1,4; tile_x=3,1,1,4; tile_rc=2,2; tile_ry=3,1; "
                  "tile_rx=3,1; auto_unroll_max_step=512; unroll_explicit=1"},
        std::pair{smallConv(1, 4, 4, 22, 5, 3, 2),
                  "tile_f=2,1,1,2; tile_y=2,1,1,4; tile_x=2,1,1,4; tile_rc=2,2; tile_ry=5,1; "
                  "tile_rx=5,1; auto_unroll_max_step=0; unroll_explicit=0"}}) {
    expectPaddedInteriorPath(op, {defaultSpace(op).parse(config)}, kStridedInteriorProduct);
  }

  // Unpadded, the interior path alone; its last tile's window ends on the input's last column.
  for (const auto& [op, config] :
       {std::pair{smallConv(1, 4, 4, 25, 3, 2, 0),
                  "tile_f=2,1,1,2; tile_y=2,1,2,3; tile_x=1,1,2,6; tile_rc=2,2; tile_ry=1,3; "
                  "tile_rx=1,3; auto_unroll_max_step=512; unroll_explicit=1"},
        std::pair{smallConv(1, 8, 8, 24, 1, 2, 0),
                  "tile_f=2,1,2,2; tile_y=3,1,1,4; tile_x=3,1,1,4; tile_rc=2,4; tile_ry=1,1; "
                  "tile_rx=1,1; auto_unroll_max_step=512; unroll_explicit=1"}}) {
    const SearchSpace s = defaultSpace(op);
    const Config c = s.parse(config);
    const std::string source = generateKernel(op, s, c, Backend::Cpu).source;
    EXPECT_EQ(source.find("const bool inside"), std::string::npos) << config;
    EXPECT_EQ(source.find("zero padding"), std::string::npos) << config;
    expectCpuKernelsMatch(op, {c});
    expectInteriorPathTaken(op, {c}, kStridedInteriorProduct);
  }

  // The phases live on each thread's stack: a tile of 128 rows (128 x 2 phases x 17 floats, over
  // the accumulators' bound of 4096) keeps the tested loop, one of 64 rows takes the phases.
  const OperatorSpec tall = smallConv(1, 2, 2, 256, 3, 2, 1);
  const SearchSpace tallSpace = defaultSpace(tall);
  for (const auto& [config, phases] :
       {std::pair{"tile_f=1,1,1,2; tile_y=1,1,1,128; tile_x=8,1,1,16; tile_rc=2,1; "
                  "tile_ry=3,1; tile_rx=1,3; auto_unroll_max_step=0; unroll_explicit=0",
                  false},
        std::pair{"tile_f=1,1,1,2; tile_y=2,1,1,64; tile_x=8,1,1,16; tile_rc=2,1; "
                  "tile_ry=3,1; tile_rx=1,3; auto_unroll_max_step=0; unroll_explicit=0",
                  true}}) {
    const Config c = tallSpace.parse(config);
    const std::string source = generateKernel(tall, tallSpace, c, Backend::Cpu).source;
    EXPECT_EQ(source.find("float ph[") != std::string::npos, phases) << config;
    EXPECT_EQ(source.find("const bool inside") != std::string::npos, phases) << config;
    expectCpuKernelsMatch(tall, {c});
  }
}

// Winograd's CPU kernels on the transform sizes winogradAlpha gives (F(4x4, 3x3), F(2x2, 3x3),
// F(4x4, 5x5) with 8 points, F(2x2, 5x5)), with outputs the tiles do not divide, images' tiles
// sharing a block, stages of channels, lanes left over, and the fused epilogue.
TEST(CodegenCpu, WinogradMatchesReference) {
  OperatorSpec three = smallConv(2, 12, 10, 13, 3, 1, 1);
  three.epilogue = {{EpilogueKind::Bias, 1}, {EpilogueKind::Add, 1}, {EpilogueKind::Relu, 1}};
  const SearchSpace space3 = defaultSpace(three, SpaceTarget::Winograd);
  std::vector<Config> configs = randomConfigs(space3, 4, 51);
  configs.push_back(untunedConfig(space3));
  expectCpuKernelsMatch(three, configs, SpaceTarget::Winograd);
  const OperatorSpec small = smallConv(1, 5, 7, 6, 3, 1, 1);
  expectCpuKernelsMatch(small, randomConfigs(defaultSpace(small, SpaceTarget::Winograd), 3, 52),
                        SpaceTarget::Winograd);
  const OperatorSpec five = smallConv(2, 6, 8, 11, 5, 1, 2);
  expectCpuKernelsMatch(five, randomConfigs(defaultSpace(five, SpaceTarget::Winograd), 4, 53),
                        SpaceTarget::Winograd);
  const OperatorSpec fiveWide = smallConv(1, 72, 4, 7, 5, 1, 2);
  expectCpuKernelsMatch(fiveWide,
                        randomConfigs(defaultSpace(fiveWide, SpaceTarget::Winograd), 2, 54),
                        SpaceTarget::Winograd);
}

TEST(CodegenCpu, SplitKIsTheGpuTemplatesAlone) {
  const OperatorSpec op = smallMatMul(16, 16, 32);
  const SearchSpace space = defaultSpace(op, SpaceTarget::Gpu);
  const Config split = space.parse("tile_n=4,1,2,2; tile_m=4,1,2,2; tile_k=4,2,4; split_k=2");
  EXPECT_EQ(generateKernel(op, space, split, Backend::Cuda).launch.grid.z, 2);
  EXPECT_THROW(generateKernel(op, space, split, Backend::Cpu), InputError);
  // split_k 1 is the CPU template's kernel of the common space.
  const Config one = space.parse("tile_n=4,1,2,2; tile_m=4,1,2,2; tile_k=4,2,4; split_k=1");
  const SearchSpace common = defaultSpace(op);
  const Config same = common.parse("tile_n=4,1,2,2; tile_m=4,1,2,2; tile_k=4,2,4");
  auto body = [](const std::string& source) {  // without the header's configuration line
    const std::size_t at = source.find("// Configuration:");
    return source.substr(0, at) + source.substr(source.find('\n', at));
  };
  EXPECT_EQ(body(generateKernel(op, space, one, Backend::Cpu).source),
            body(generateKernel(op, common, same, Backend::Cpu).source));
  // Register tiles four floats wide are read from shared memory as float4, others are not.
  const Config wide = space.parse("tile_n=2,1,2,4; tile_m=2,1,2,4; tile_k=4,2,4");
  EXPECT_NE(generateKernel(op, space, wide, Backend::Cuda).source.find("const float4*>(&As["),
            std::string::npos);
  EXPECT_NE(generateKernel(op, space, wide, Backend::Cuda).source.find("const float4*>(&Bs["),
            std::string::npos);
  const Config narrow = space.parse("tile_n=4,1,2,2; tile_m=2,1,4,2; tile_k=4,2,4");
  EXPECT_EQ(generateKernel(op, space, narrow, Backend::Cuda).source.find("const float4*>(&As["),
            std::string::npos);
  EXPECT_EQ(generateKernel(op, space, narrow, Backend::Cuda).source.find("const float4*>(&Bs["),
            std::string::npos);
  // A split that does not divide the outer K steps breaks the space's constraint, and the
  // template refuses it too.
  const Config odd = space.parse("tile_n=4,1,2,2; tile_m=4,1,2,2; tile_k=2,4,4; split_k=4");
  std::string broken;
  EXPECT_FALSE(space.satisfies(odd, &broken));
  EXPECT_EQ(broken, "split_k divides tile_k's outer factor");
  EXPECT_THROW(generateKernel(op, space, odd, Backend::Cuda), InputError);
}

// Every "bb" a CUDA matmul kernel declares is used before its block closes: the double-buffered
// fetch into registers reads global memory through bb only for a batched operator, and an unused
// one draws nvcc's warning #177 in every exported check program.
TEST(CodegenCuda, NoSlabCopyDeclaresAnUnusedBatchIndex) {
  for (const char* name : {"MM1", "BMM2"}) {
    const OperatorSpec op = preset(name);
    const SearchSpace space = defaultSpace(op, SpaceTarget::Gpu);
    const auto doubleBuffered = [&](const Config& c) {
      return space.format(c).find("stages=2") != std::string::npos;
    };
    int declared = 0;
    for (const Config& c : randomConfigs(space, 8, 177, doubleBuffered)) {
      const std::string source = generateKernel(op, space, c, Backend::Cuda).source;
      for (std::size_t at = source.find(", bb = "); at != std::string::npos;
           at = source.find(", bb = ", at + 1)) {
        ++declared;
        const std::size_t end = source.find(';', at);
        const std::string rest = source.substr(end, source.find('}', end) - end);
        EXPECT_NE(rest.find("bb"), std::string::npos) << name << " " << space.format(c) << "\n"
                                                      << source.substr(at, 200);
      }
    }
    EXPECT_GT(declared, 0) << name;  // the check saw the copies it is about
  }
  // MM1 reads A untransposed and has no batch: N is declared for the reader, marked so.
  const OperatorSpec mm = preset("MM1");
  const SearchSpace space = defaultSpace(mm, SpaceTarget::Gpu);
  const std::string source =
      generateKernel(mm, space, randomConfigs(space, 1, 1).at(0), Backend::Cuda).source;
  EXPECT_NE(source.find("[[maybe_unused]] constexpr index_t N = "), std::string::npos);
}

// Concatenates the kernels of several configurations (distinct entry names) into one source, so
// that one compiler run checks them all: NVRTC's and hiprtc's fixed cost per run dominates.
std::string batchedSource(const std::string& presetName, int count, Backend backend,
                          std::uint64_t seed, std::vector<std::string>* entries) {
  const OperatorSpec op = preset(presetName);
  // The GPU templates' space: MatMuls draw split_k too.
  const SearchSpace space = defaultSpace(op, SpaceTarget::Gpu);
  std::string source;
  for (const Config& c : randomConfigs(space, count, seed)) {
    const std::string entry = std::string("k") + std::to_string(entries->size());
    source += generateKernel(op, space, c, backend, {entry}).source + "\n";
    entries->push_back(entry);
  }
  return source;
}

TEST(CodegenNvrtc, EveryPresetCompilesForSm80AndSm90) {
  const NvrtcCompiler& nvrtc = NvrtcCompiler::shared();
  if (!nvrtc.available()) GTEST_SKIP() << nvrtc.unavailableReason();
  for (const std::string& name : presetNames()) {
    std::vector<std::string> entries;
    const std::string source = batchedSource(name, 5, Backend::Cuda, 7, &entries);
    ASSERT_EQ(entries.size(), 5u);
    // The two architectures compile concurrently: NVRTC is thread-safe.
    auto sm80 = std::async(std::launch::async, [&] { return nvrtc.compile(source, "sm_80"); });
    const CompileResult sm90 = nvrtc.compile(source, "sm_90");
    for (const CompileResult& r : {sm80.get(), sm90}) {
      const std::string& arch = r.arch;
      ASSERT_TRUE(r.ok) << name << " for " << arch << ":\n" << r.log;
      EXPECT_EQ(r.kind, BinaryKind::Cubin);
      for (const std::string& e : entries) {
        ASSERT_TRUE(r.resources.count(e)) << name << " " << arch << ": no ptxas report for " << e;
        EXPECT_GT(r.resources.at(e).registers.value_or(0), 0);
      }
    }
  }
}

// The Winograd template on every preset it takes (C2's F(4x4, 5x5), the 3x3 layers' F(4x4,
// 3x3)), a few random configurations each in one source.
std::string winogradSource(Backend backend, int perPreset, std::vector<std::string>* entries) {
  std::string source;
  for (const std::string& name : presetNames()) {
    const OperatorSpec op = preset(name);
    if (!winogradApplies(op)) continue;
    const SearchSpace space = defaultSpace(op, SpaceTarget::Winograd);
    for (const Config& c : randomConfigs(space, perPreset, 11)) {
      std::string entry = "w";  // not "w" + ...: GCC 12 warns falsely (-Wrestrict) there
      entry += std::to_string(entries->size());
      source += generateKernel(op, space, c, backend, {entry}).source + "\n";
      entries->push_back(entry);
    }
  }
  return source;
}

TEST(CodegenNvrtc, WinogradCompilesForEveryPresetItTakes) {
  const NvrtcCompiler& nvrtc = NvrtcCompiler::shared();
  if (!nvrtc.available()) GTEST_SKIP() << nvrtc.unavailableReason();
  std::vector<std::string> entries;
  const std::string source = winogradSource(Backend::Cuda, 2, &entries);
  ASSERT_GE(entries.size(), 10u);  // C2, AlexNet's conv3-5 at two batches, ResNet-18's four
  const CompileResult r = nvrtc.compile(source, "sm_90");
  ASSERT_TRUE(r.ok) << r.log;
  for (const std::string& e : entries) EXPECT_GT(r.resources.at(e).registers.value_or(0), 0) << e;
}

// Every task of the network presets (fused epilogues, strides, transposed weights) with a few
// configurations each, in one source.
std::string networkTasksSource(Backend backend, std::vector<std::string>* entries) {
  std::string source;
  for (const char* name : {"alexnet", "resnet18", "resnet50", "bert_base_layer", "mobilenet_v2"})
    for (const net::Task& t : net::extractTasks(net::loadNetwork(name)).tasks) {
      const SearchSpace space = defaultSpace(t.op);
      for (const Config& c : randomConfigs(space, 1, 3)) {
        std::string entry = "k";  // not "k" + ...: GCC 12 warns falsely (-Wrestrict) there
        entry += std::to_string(entries->size());
        source += generateKernel(t.op, space, c, backend, {entry}).source + "\n";
        entries->push_back(entry);
      }
      // The vendor reference of a fused task runs the library, then this kernel.
      if (!t.op.epilogue.empty()) {
        std::string entry = "e";
        entry += std::to_string(entries->size());
        source += codegen::generateEpilogueKernel(t.op, backend, {entry}).source + "\n";
        entries->push_back(entry);
      }
    }
  return source;
}

TEST(CodegenNvrtc, EveryNetworkTaskCompiles) {
  const NvrtcCompiler& nvrtc = NvrtcCompiler::shared();
  if (!nvrtc.available()) GTEST_SKIP() << nvrtc.unavailableReason();
  std::vector<std::string> entries;
  const CompileResult r = nvrtc.compile(networkTasksSource(Backend::Cuda, &entries), "sm_90");
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_GT(entries.size(), 30u);  // 8 + 16 + 6 tasks, and the epilogue kernels of the fused ones
  for (const std::string& e : entries) EXPECT_TRUE(r.resources.count(e)) << e;
}

TEST(CodegenNvrtc, ReportsRegistersAndNoStaticSharedMemory) {
  const NvrtcCompiler& nvrtc = NvrtcCompiler::shared();
  if (!nvrtc.available()) GTEST_SKIP() << nvrtc.unavailableReason();
  const OperatorSpec op = preset("MM1");
  const SearchSpace space = defaultSpace(op);
  const auto k = generateKernel(
      op, space, space.parse("tile_n=8,2,8,4; tile_m=16,2,8,4; tile_k=128,2,4"), Backend::Cuda);
  const CompileResult r = nvrtc.compile(k.source, "sm_90");
  ASSERT_TRUE(r.ok) << r.log;
  const KernelResources& res = r.resources.at("opevo_kernel");
  EXPECT_GE(res.registers.value_or(0), 32);  // 64 accumulators live in registers
  EXPECT_LE(res.registers.value_or(999), 255);
  EXPECT_EQ(res.staticSharedBytes, 0);  // all of it is dynamic: LaunchConfig::sharedBytes
  EXPECT_EQ(res.spillStoreBytes, 0);
  EXPECT_EQ(k.launch.sharedBytes, 4 * 8 * (68 + 64));  // A's rows padded (bank conflicts)
  const CompileResult ptx = nvrtc.compile(k.source, "compute_80");
  ASSERT_TRUE(ptx.ok) << ptx.log;
  EXPECT_EQ(ptx.kind, BinaryKind::Ptx);
  EXPECT_NE(ptx.binary.find(".entry opevo_kernel"), std::string::npos);
}

TEST(CodegenNvrtc, ChecksArchitectures) {
  const NvrtcCompiler& nvrtc = NvrtcCompiler::shared();
  EXPECT_NE(nvrtc.checkArch("gfx90a").find("sm_NN"), std::string::npos);
  EXPECT_NE(nvrtc.checkArch("sm_9").find("sm_NN"), std::string::npos);
  if (!nvrtc.available()) GTEST_SKIP() << nvrtc.unavailableReason();
  EXPECT_EQ(nvrtc.checkArch("sm_80"), "");
  EXPECT_EQ(nvrtc.checkArch("sm_90a"), "");
  EXPECT_NE(nvrtc.checkArch("sm_35").find("not supported"), std::string::npos);
  const CompileResult r =
      nvrtc.compile("extern \"C\" __global__ void f() { syntax error }", "sm_80");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.log.find("error"), std::string::npos);
}

TEST(CodegenNvrtc, MissingLibraryGivesClearReason) {
  const NvrtcCompiler missing({"libnvrtc-that-does-not-exist.so.99"});
  EXPECT_FALSE(missing.available());
  EXPECT_NE(missing.unavailableReason().find("NVRTC not found"), std::string::npos);
  EXPECT_NE(missing.unavailableReason().find("libnvrtc-that-does-not-exist.so.99"),
            std::string::npos);
  const CompileResult r = missing.compile("", "sm_90");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.log, missing.unavailableReason());
}

TEST(CodegenHiprtc, WinogradCompilesForEveryPresetItTakes) {
  const HiprtcCompiler& hiprtc = HiprtcCompiler::shared();
  if (!hiprtc.available()) GTEST_SKIP() << hiprtc.unavailableReason();
  std::vector<std::string> entries;
  const CompileResult r = hiprtc.compile(winogradSource(Backend::Hip, 1, &entries), "gfx90a");
  ASSERT_TRUE(r.ok) << r.log;
  for (const std::string& e : entries) EXPECT_GT(r.resources.at(e).registers.value_or(0), 0) << e;
}

TEST(CodegenHiprtc, EveryPresetCompilesForGfx90a) {
  const HiprtcCompiler& hiprtc = HiprtcCompiler::shared();
  if (!hiprtc.available()) GTEST_SKIP() << hiprtc.unavailableReason();
  // hiprtc takes about 2 s per run here whatever the source: two runs hold all presets.
  for (const auto& group : {std::vector<std::string>{"MM1", "MM2", "MM3", "BMM1", "BMM2", "BMM3"},
                            std::vector<std::string>{"C1", "C2"}}) {
    std::vector<std::string> entries;
    std::string source;
    for (const std::string& name : group)
      source += batchedSource(name, group.size() > 2 ? 2 : 3, Backend::Hip, 9, &entries);
    const CompileResult r = hiprtc.compile(source, "gfx90a");
    ASSERT_TRUE(r.ok) << r.log;
    EXPECT_EQ(r.kind, BinaryKind::AmdCodeObject);
    for (const std::string& e : entries) {
      ASSERT_TRUE(r.resources.count(e)) << "no metadata for " << e;
      EXPECT_GT(r.resources.at(e).registers.value_or(0), 0);
      EXPECT_GT(r.resources.at(e).scalarRegisters.value_or(0), 0);
      EXPECT_EQ(r.resources.at(e).staticSharedBytes, 0);
    }
  }
}

TEST(CodegenHiprtc, EveryNetworkTaskCompiles) {
  const HiprtcCompiler& hiprtc = HiprtcCompiler::shared();
  if (!hiprtc.available()) GTEST_SKIP() << hiprtc.unavailableReason();
  std::vector<std::string> entries;
  const CompileResult r = hiprtc.compile(networkTasksSource(Backend::Hip, &entries), "gfx90a");
  ASSERT_TRUE(r.ok) << r.log;
  for (const std::string& e : entries) EXPECT_TRUE(r.resources.count(e)) << e;
}

// The kernel the GPU backends verify large outputs with (gpu/common/device_compare.h), for both.
TEST(CodegenNvrtc, TheComparisonKernelCompilesForBothBackends) {
  const NvrtcCompiler& nvrtc = NvrtcCompiler::shared();
  const HiprtcCompiler& hiprtc = HiprtcCompiler::shared();
  if (!nvrtc.available() && !hiprtc.available()) GTEST_SKIP() << nvrtc.unavailableReason();
  if (nvrtc.available()) {
    const auto k = codegen::generateComparisonKernel(Backend::Cuda);
    const CompileResult r = nvrtc.compile(k.source, "sm_90");
    ASSERT_TRUE(r.ok) << r.log;
    EXPECT_TRUE(r.resources.count(k.entry));
  }
  if (hiprtc.available()) {
    const auto k = codegen::generateComparisonKernel(Backend::Hip);
    const CompileResult r = hiprtc.compile(k.source, "gfx90a");
    ASSERT_TRUE(r.ok) << r.log;
  }
  EXPECT_THROW(codegen::generateComparisonKernel(Backend::Cpu), InputError);
}

TEST(CodegenHiprtc, RefusesUnknownArchitecturesWithoutCallingHiprtc) {
  const HiprtcCompiler& hiprtc = HiprtcCompiler::shared();
  if (!hiprtc.available()) GTEST_SKIP() << hiprtc.unavailableReason();
  EXPECT_EQ(hiprtc.checkArch("gfx906"), "");
  // With ROCm 5.2 this arch aborts the process inside hiprtc: it must never get there.
  const CompileResult r = hiprtc.compile("extern \"C\" __global__ void f() {}", "gfx1100");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.log.find("known"), std::string::npos);
  EXPECT_NE(hiprtc.checkArch("sm_90").find("gfx90a"), std::string::npos);
}

TEST(CodegenHiprtc, MissingLibraryGivesClearReason) {
  const HiprtcCompiler missing({"libhiprtc-that-does-not-exist.so.99"});
  EXPECT_FALSE(missing.available());
  EXPECT_NE(missing.unavailableReason().find("hiprtc not found"), std::string::npos);
  EXPECT_FALSE(missing.compile("", "gfx90a").ok);
}

}  // namespace
}  // namespace opevo::test
