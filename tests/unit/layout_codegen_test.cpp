// Joint layout spaces (core/layout/conv2d_layout.h, matmul_layout.h): their kernels compute the
// operator in the layouts they choose, the library's own conversions agree with core/layout's, and
// the harness (runCpuKernel) verifies and times them through those conversions.

#include <gtest/gtest.h>

#include "codegen/layout_conversion.h"
#include "codegen_test_util.h"
#include "common/error.h"
#include "cpu/cpu_runner.h"
#include "layout/conv2d_layout.h"
#include "layout/matmul_layout.h"
#include "ops/operator_json.h"

namespace opevo::test {
namespace {

using codegen::Backend;
using codegen::generateKernel;
using ConvertFn = void (*)(const float*, float*);

OperatorSpec withEpilogue(OperatorSpec op) {
  op.epilogue = {{EpilogueKind::Bias, 1}, {EpilogueKind::Add, 1}, {EpilogueKind::Relu, 1}};
  return op;
}

// Every configuration's kernel in one library; each packs with its own conversions, which must
// equal core/layout's packing, runs, and is compared with the host reference after unpacking.
void expectLayoutKernelsMatch(const OperatorSpec& op, const std::vector<Config>& configs) {
  const SearchSpace space = layout::layoutSpace(op);
  std::string source;
  for (std::size_t i = 0; i < configs.size(); ++i)
    source +=
        generateKernel(op, space, configs[i], Backend::Cpu, {std::string("k") + std::to_string(i)})
            .source;
  LoadedObject so(source, {"-O2", "-march=native", "-fopenmp", "-shared", "-fPIC"});
  ASSERT_TRUE(so.ok()) << so.result().log;
  const TestOperands x = randomOperands(op, 5);
  for (std::size_t i = 0; i < configs.size(); ++i) {
    SCOPED_TRACE(space.format(configs[i]));
    const std::string k = "k" + std::to_string(i);
    const layout::OperandLayouts l = layout::operandLayouts(op, space, configs[i]);
    std::vector<float> a(std::size_t(l.a.size())), b(std::size_t(l.b.size()));
    std::vector<float> r(std::size_t(l.c.size())), c(r.size(), std::nanf(""));
    so.symbol<ConvertFn>(k + "_pack_a")(x.a.data(), a.data());
    so.symbol<ConvertFn>(k + "_pack_b")(x.b.data(), b.data());
    if (!x.residual.empty()) so.symbol<ConvertFn>(k + "_pack_c")(x.residual.data(), r.data());
    std::vector<float> want(a.size());
    l.a.pack(x.a, want);
    EXPECT_EQ(a, want) << "the generated A conversion differs from core/layout's";
    want.resize(b.size());
    l.b.pack(x.b, want);
    EXPECT_EQ(b, want) << "the generated B conversion differs from core/layout's";
    so.symbol<KernelFn>(k)(a.data(), b.data(), c.data(), x.biasData(), r.data());
    std::vector<float> plain(x.reference.size(), std::nanf(""));
    so.symbol<ConvertFn>(k + "_unpack_c")(c.data(), plain.data());
    const std::int64_t bad = firstMismatch(plain, x.reference);
    EXPECT_EQ(bad, -1) << "element " << bad;
  }
}

TEST(LayoutKernels, ThreeByThreeStrideOneMatchesReference) {
  const OperatorSpec op = withEpilogue(smallConv(1, 16, 32, 14, 3, 1, 1));
  const SearchSpace space = layout::conv2dLayoutSpace(op);
  std::vector<Config> configs = randomConfigs(space, 6, 7);
  // Mismatched weight blocks (gathered channels) and every loop order reversed.
  configs.push_back(
      space.parse("layout.out_c=2,16; layout.out_h=2,7; layout.out_w=1,14; layout.in_c=4,4; "
                  "layout.weight_o=4,8; layout.weight_i=2,8; tile_f=2,16; tile_y=14,1; tile_x=2,7; "
                  "stage_c=1,16; reduce_order=2,1,0; tile_order=2,1,0; unroll_c=4"));
  // Stages of 4 input channels (partial sums through the output tile, the epilogue after the
  // last stage), with each loop order.
  for (const char* order : {"0,1,2", "1,2,0", "2,0,1"})
    configs.push_back(space.parse(
        std::string("layout.out_c=2,16; layout.out_h=1,14; layout.out_w=1,14; layout.in_c=8,2; "
                    "layout.weight_o=2,16; layout.weight_i=8,2; tile_f=2,16; tile_y=7,2; "
                    "tile_x=2,7; stage_c=4,4; reduce_order=") +
        order + "; tile_order=0,1,2; unroll_c=2"));
  // Input-channel blocks spanning several weight blocks (the weights' offset split per channel).
  configs.push_back(
      space.parse("layout.out_c=2,16; layout.out_h=2,7; layout.out_w=1,14; layout.in_c=2,8; "
                  "layout.weight_o=4,8; layout.weight_i=8,2; tile_f=2,16; tile_y=14,1; tile_x=2,7; "
                  "stage_c=1,16; reduce_order=0,1,2; tile_order=0,1,2; unroll_c=2"));
  // The plain layouts: every tile of one element (NCHW itself).
  configs.push_back(space.parse(
      "layout.out_c=32,1; layout.out_h=14,1; layout.out_w=14,1; layout.in_c=16,1; "
      "layout.weight_o=32,1; layout.weight_i=16,1; tile_f=32,1; tile_y=14,1; tile_x=14,1; "
      "stage_c=1,16; reduce_order=0,1,2; tile_order=0,1,2; unroll_c=1"));
  expectLayoutKernelsMatch(op, configs);
  // Twelve input channels: blocks of 4 against weight blocks of 6 (neither divides the other: the
  // offset computed per channel) and blocks of 6 against weight blocks of 2.
  const OperatorSpec twelve = withEpilogue(smallConv(1, 12, 32, 14, 3, 1, 1));
  const SearchSpace twelveSpace = layout::conv2dLayoutSpace(twelve);
  std::vector<Config> mixed;
  for (const char* blocks : {"layout.in_c=3,4; layout.weight_o=4,8; layout.weight_i=2,6",
                             "layout.in_c=2,6; layout.weight_o=4,8; layout.weight_i=6,2"})
    mixed.push_back(twelveSpace.parse(
        std::string("layout.out_c=2,16; layout.out_h=2,7; layout.out_w=1,14; ") + blocks +
        "; tile_f=2,16; tile_y=14,1; tile_x=2,7; stage_c=1,12; reduce_order=1,0,2; "
        "tile_order=0,1,2; unroll_c=1"));
  expectLayoutKernelsMatch(twelve, mixed);
}

// Depthwise convolutions (one group per channel): no input-channel loop, a vector of channels
// per tap.
TEST(DepthwiseLayoutKernels, MatchTheReference) {
  OperatorSpec s1 = smallDepthwiseConv(1, 32, 14, 3, 1, 1);
  s1.epilogue = {{EpilogueKind::Bias, 1}, {EpilogueKind::Add, 1}, {EpilogueKind::Relu, 1}};
  const SearchSpace space = layout::conv2dLayoutSpace(s1);
  std::vector<Config> configs = randomConfigs(space, 6, 3);
  configs.push_back(*space.startPoint());
  // Register tiles narrower than a vector, every loop order reversed, the plain layouts.
  configs.push_back(
      space.parse("layout.out_c=4,8; layout.out_h=2,7; layout.out_w=1,14; tile_f=8,4; tile_y=14,1; "
                  "tile_x=2,7; tile_order=2,1,0"));
  configs.push_back(space.parse(
      "layout.out_c=32,1; layout.out_h=14,1; layout.out_w=14,1; tile_f=32,1; tile_y=14,1; "
      "tile_x=14,1; tile_order=0,1,2"));
  // 56 vector accumulators: too many for code of their own per padding case, so the taps outside
  // the image (which the input does not store) are skipped by bounds known at run time.
  const Config large = space.parse(
      "layout.out_c=1,32; layout.out_h=7,2; layout.out_w=1,14; tile_f=1,32; tile_y=7,2; "
      "tile_x=1,14; tile_order=0,1,2");
  const std::string source =
      codegen::generateKernel(s1, space, large, codegen::Backend::Cpu).source;
  EXPECT_EQ(source.find("else __builtin_trap();"), std::string::npos) << source;
  EXPECT_NE(source.find("for (int rh = r0; rh < r1; ++rh)"), std::string::npos) << source;
  configs.push_back(large);
  expectLayoutKernelsMatch(s1, configs);
  // Stride 2 on an odd image, batch 2; 5x5 with padding 2; channels no multiple of 16.
  for (const OperatorSpec& op :
       {smallDepthwiseConv(2, 16, 13, 3, 2, 1), smallDepthwiseConv(1, 16, 12, 5, 1, 2),
        smallDepthwiseConv(1, 24, 10, 3, 1, 1)}) {
    SCOPED_TRACE(op.describe());
    const SearchSpace s = layout::conv2dLayoutSpace(op);
    std::vector<Config> some = randomConfigs(s, 5, 8);
    some.push_back(*s.startPoint());
    expectLayoutKernelsMatch(op, some);
  }
}

TEST(LayoutKernels, StridedAndBatchedMatchReference) {
  // Stride 2 with a remainder row (windows do not reach the last padded row), batch 2.
  expectLayoutKernelsMatch(
      withEpilogue(smallConv(2, 8, 16, 13, 3, 2, 1)),
      randomConfigs(layout::conv2dLayoutSpace(smallConv(2, 8, 16, 13, 3, 2, 1)), 5, 3));
  // A 1x1 stride-2 convolution: windows are widened to the stride.
  const OperatorSpec down = smallConv(1, 16, 32, 14, 1, 2, 0);
  expectLayoutKernelsMatch(down, randomConfigs(layout::conv2dLayoutSpace(down), 5, 4));
  // AlexNet conv1's shape, scaled down: 11x11, stride 4, pad 2.
  const OperatorSpec big = smallConv(1, 3, 16, 35, 11, 4, 2);
  expectLayoutKernelsMatch(big, randomConfigs(layout::conv2dLayoutSpace(big), 4, 5));
}

// Taps that read padding are skipped, not multiplied by stored zeros: ResNet-18 conv5's shape
// (7 x 7, padding 1) scaled down, one register tile per output row, gets one case per set of
// valid columns (all seven, the first six, the last six); without padding there is none.
TEST(LayoutKernels, TapsInThePaddingAreSkipped) {
  const char* blocking =
      "layout.out_c=2,16; layout.out_h=1,7; layout.out_w=1,7; layout.in_c=2,8; "
      "layout.weight_o=2,16; layout.weight_i=2,8; tile_f=2,16; tile_y=7,1; tile_x=1,7; "
      "stage_c=1,16; reduce_order=0,1,2; tile_order=0,1,2; unroll_c=1";
  auto cases = [](const std::string& source) {
    std::size_t n = 0;
    for (std::size_t at = source.find("(r0 =="); at != std::string::npos;
         at = source.find("(r0 ==", at + 1))
      ++n;
    return n;
  };
  const OperatorSpec padded = smallConv(1, 16, 32, 7, 3, 1, 1);
  const SearchSpace space = layout::conv2dLayoutSpace(padded);
  const std::string source =
      generateKernel(padded, space, space.parse(blocking), Backend::Cpu, {"k"}).source;
  EXPECT_EQ(cases(source), 3u) << source;
  EXPECT_NE(source.find("r0 == 0 && r1 == 1 && c0 == 1 && c1 == 7"), std::string::npos);
  EXPECT_NE(source.find("r0 == 0 && r1 == 1 && c0 == 0 && c1 == 6"), std::string::npos);
  expectLayoutKernelsMatch(withEpilogue(padded), {space.parse(blocking)});
  const OperatorSpec valid = smallConv(1, 16, 32, 9, 3, 1, 0);
  const SearchSpace validSpace = layout::conv2dLayoutSpace(valid);
  EXPECT_EQ(cases(generateKernel(valid, validSpace, validSpace.parse(blocking), Backend::Cpu, {"k"})
                      .source),
            0u);
}

TEST(LayoutKernels, MatMulMatchesReference) {
  // Odd sizes (panels that do not divide each other, runs of K of one), an epilogue, both
  // transposes, and a batch.
  const OperatorSpec mm = withEpilogue(smallMatMul(24, 40, 36));
  const SearchSpace space = layout::layoutSpace(mm);
  std::vector<Config> configs = randomConfigs(space, 8, 21);
  configs.push_back(*space.startPoint());
  // Register tiles that straddle A's and B's panels (gathered rows and columns), K stages that
  // cross A's and B's k blocks, column tiles outermost, register columns outermost.
  configs.push_back(
      space.parse("layout.a_n=6,4; layout.a_k=4,9; layout.b_k=3,12; layout.b_m=8,5; "
                  "layout.c_n=2,12; layout.c_m=1,40; tile_n=4,6; tile_m=5,8; tile_k=2,18; "
                  "tile_order=1,0; reg_order=1,0; unroll_k=4"));
  // The plain layouts: every tile of one element.
  configs.push_back(
      space.parse("layout.a_n=24,1; layout.a_k=36,1; layout.b_k=36,1; layout.b_m=40,1; "
                  "layout.c_n=24,1; layout.c_m=40,1; tile_n=24,1; tile_m=40,1; tile_k=36,1; "
                  "tile_order=0,1; reg_order=0,1; unroll_k=1"));
  expectLayoutKernelsMatch(mm, configs);
  const OperatorSpec transposed = smallBatchMatMul(3, 16, 20, 12, true, true);
  expectLayoutKernelsMatch(transposed, randomConfigs(layout::layoutSpace(transposed), 6, 22));
  const OperatorSpec batched = withEpilogue(smallBatchMatMul(2, 32, 48, 64, false, false));
  expectLayoutKernelsMatch(batched, randomConfigs(layout::layoutSpace(batched), 6, 23));
}

TEST(LayoutSpace, MatMulStartsFromAPackingLibrarysBlocking) {
  const OperatorSpec op = smallMatMul(512, 1024, 1024);
  const SearchSpace space = layout::layoutSpace(op);
  ASSERT_TRUE(space.startPoint());
  EXPECT_TRUE(space.satisfies(*space.startPoint()));
  const layout::MatMulBlocking b = layout::matmulBlocking(op, space, *space.startPoint());
  // The space starts from this machine's vector unit's blocking.
  const layout::MatMulBlocking native = layout::matmulStartBlocking(op);
  EXPECT_EQ(b.regM, native.regM);
  EXPECT_EQ(b.regN, native.regN);
  const layout::MatMulBlocking avx512 = layout::matmulStartBlocking(op, layout::kAvx512);
  EXPECT_EQ(avx512.regM, 32) << "two 16-float vectors of columns";
  EXPECT_EQ(avx512.regN, 8) << "the largest divisor of 512 rows up to 12 (24 accumulators)";
  // AVX2 has half the registers, of half the floats: AVX-512's 8 x 32 tile is 32 accumulators
  // there (BERT's ffn_in 10.5 ms on an AVX2 EPYC, 8 x 16 7.5 ms).
  const layout::MatMulBlocking avx2 = layout::matmulStartBlocking(op, layout::kAvx2);
  EXPECT_EQ(avx2.regM, 16) << "two 8-float vectors of columns";
  EXPECT_EQ(avx2.regN, 8) << "the largest divisor of 512 rows up to 8 (16 accumulators)";
  EXPECT_EQ(b.aN, b.regN) << "A packed in panels of the register tile's rows";
  EXPECT_EQ(b.bM, b.regM) << "B packed in panels of the register tile's columns";
  EXPECT_EQ(b.kStage, 1024) << "the whole K: its B panel of two vectors is 128 KB";
  EXPECT_FALSE(b.rowTilesOuter) << "B's column blocks (1024 x 256) are larger than A's (64 x 1024)";
  EXPECT_FALSE(b.regRowsOuter) << "B's micro-panel (32 wide) is wider than A's (8 rows)";
  const layout::OperandLayouts l = layout::operandLayouts(op, space, *space.startPoint());
  EXPECT_EQ(l.b.describe(), "split(k, 1024); split(m, " + std::to_string(native.regM) +
                                "); reorder(b, m_o, k_o, k_i, m_i)");
  EXPECT_EQ(layout::operandNames(op)[0], "a");
  // The names of a configuration's layout parameters begin with "layout.".
  int layoutParams = 0;
  for (std::size_t i = 0; i < space.dims(); ++i)
    layoutParams += layout::isLayoutParameter(space.param(i).name()) ? 1 : 0;
  EXPECT_EQ(layoutParams, 6);
  // A register tile larger than its output tile is outside the space's constraints.
  Config c = *space.startPoint();
  c[std::size_t(space.indexOf("layout.c_n"))] = {128, 4};
  std::string broken;
  EXPECT_FALSE(space.satisfies(c, &broken));
  EXPECT_NE(broken.find("layout.c_n"), std::string::npos) << broken;
  EXPECT_THROW(layout::matmulLayoutSpace(smallConv(1, 16, 32, 14, 3, 1, 1)), InputError);
}

TEST(LayoutKernels, HarnessVerifiesThroughTheConversions) {
  const OperatorSpec op = withEpilogue(smallConv(1, 16, 32, 14, 3, 1, 1));
  const SearchSpace space = layout::conv2dLayoutSpace(op);
  TempDir dir("opevo-layout");
  OperatorBuffers buffers(op);
  TimingOptions timing;
  timing.minTotalMs = 1;
  int i = 0;
  for (const Config& c : randomConfigs(space, 3, 11)) {
    // Timed as a network's task is: its packed weights (first kernel), its packed input, residual
    // and output (second), or all of them (third) evicted before each run.
    timing.coldWeights = i != 1;
    timing.coldActivations = i++ != 0;
    const auto kernel = generateKernel(op, space, c, Backend::Cpu);
    EXPECT_TRUE(kernel.usesLayouts());
    EXPECT_NE(kernel.layoutA.find("unfold(h"), std::string::npos) << kernel.layoutA;
    const CompileResult built = compileCpuKernel(kernel.source, dir.path(), "k");
    ASSERT_TRUE(built.ok) << built.log;
    const Measurement m = runCpuKernel(built.path, buffers, timing);
    EXPECT_EQ(m.status, TrialStatus::Ok) << space.format(c) << ": " << m.message;
    EXPECT_GT(m.speed, 0);
  }
}

TEST(LayoutSpace, RefusesWhatTheTemplateCannotDo) {
  OperatorSpec grouped = smallConv(1, 16, 32, 14, 3, 1, 1);
  grouped.groups = 2;
  EXPECT_THROW(layout::conv2dLayoutSpace(grouped), InputError);
  EXPECT_THROW(layout::conv2dLayoutSpace(smallMatMul(64, 64, 64)), InputError);
  const OperatorSpec op = smallConv(1, 16, 32, 14, 3, 1, 1);
  const SearchSpace space = layout::conv2dLayoutSpace(op);
  // A register tile that does not divide its layout tile is outside the space's constraints.
  const Config c = space.parse(
      "layout.out_c=4,8; layout.out_h=2,7; layout.out_w=1,14; layout.in_c=4,4; "
      "layout.weight_o=4,8; layout.weight_i=2,8; tile_f=2,16; tile_y=14,1; tile_x=2,7; "
      "stage_c=1,16; reduce_order=0,1,2; tile_order=0,1,2; unroll_c=1");
  std::string broken;
  EXPECT_FALSE(space.satisfies(c, &broken));
  EXPECT_NE(broken.find("layout.out_c"), std::string::npos) << broken;
  // A stage that splits a block of layout.in_c (blocks of 4 channels, stages of 2) likewise.
  const Config split = space.parse(
      "layout.out_c=2,16; layout.out_h=2,7; layout.out_w=1,14; layout.in_c=4,4; "
      "layout.weight_o=4,8; layout.weight_i=2,8; tile_f=2,16; tile_y=14,1; tile_x=2,7; "
      "stage_c=8,2; reduce_order=0,1,2; tile_order=0,1,2; unroll_c=1");
  broken.clear();
  EXPECT_FALSE(space.satisfies(split, &broken));
  EXPECT_NE(broken.find("stage_c"), std::string::npos) << broken;
}

TEST(LayoutSpace, AConfigurationStoredBeforeStagesExistedIsOneStage) {
  // Runs stored before stage_c was added resume: their configurations lack it and meant one stage.
  const OperatorSpec op = smallConv(1, 16, 32, 14, 3, 1, 1);
  const std::string stored =
      "layout.out_c=2,16; layout.out_h=2,7; layout.out_w=1,14; layout.in_c=4,4; "
      "layout.weight_o=4,8; layout.weight_i=2,8; tile_f=2,16; tile_y=14,1; tile_x=2,7; "
      "reduce_order=0,1,2; tile_order=0,1,2; unroll_c=1";
  for (const SearchSpace& space :
       {layout::conv2dLayoutSpace(op),
        operatorDefinitionFromJson(
            operatorDefinitionToJson({op, layout::conv2dLayoutSpace(op), nlohmann::json::object(),
                                      layout::TuningMode::Joint}),
            "stored")
            .space}) {
    const Config c = space.parse(stored);
    EXPECT_EQ(c[std::size_t(space.indexOf("stage_c"))], (Vertex{1, 16}));
    EXPECT_EQ(layout::conv2dBlocking(op, space, c).stageC, 16);
    EXPECT_TRUE(space.satisfies(c));
  }
  // Any other missing parameter is still an error naming it.
  try {
    layout::conv2dLayoutSpace(op).parse("layout.out_c=2,16");
    ADD_FAILURE() << "a configuration lacking most parameters was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("lacks parameter 'layout.out_h'"), std::string::npos)
        << e.what();
  }
}

TEST(LayoutSpace, StartsFromALibraryStyleBlocking) {
  // Channels of 3, 64, 96 and 512; a prime output width; a 1x1 stride-2 and an 11x11 stride-4.
  for (const OperatorSpec& op :
       {smallConv(1, 3, 64, 32, 7, 2, 3), smallConv(1, 64, 64, 28, 3, 1, 1),
        smallConv(1, 64, 96, 13, 3, 1, 1), smallConv(2, 128, 512, 14, 1, 2, 0),
        smallConv(1, 3, 48, 51, 11, 4, 2)}) {
    const SearchSpace space = layout::conv2dLayoutSpace(op);
    ASSERT_TRUE(space.startPoint()) << op.describe();
    const Config& start = *space.startPoint();
    EXPECT_TRUE(space.satisfies(start)) << space.format(start);
    const layout::Conv2DBlocking b = layout::conv2dBlocking(op, space, start);
    const layout::Conv2DBlocking want = layout::conv2dStartBlocking(op);
    const layout::VectorUnit unit = layout::nativeVectorUnit();
    EXPECT_EQ(b.outC, want.outC);
    EXPECT_EQ(b.regF, want.regF);
    EXPECT_EQ(b.regW, want.regW);
    EXPECT_EQ(b.outH, want.outH);
    EXPECT_EQ(b.inC, want.inC);
    EXPECT_EQ(b.outW, op.outWidth()) << "whole rows";
    EXPECT_LE((b.regF + unit.floats - 1) / unit.floats * b.regW, unit.registers * 7 / 8)
        << "accumulators fit the vector registers";
    // It survives an operator file's round trip (the space is rebuilt from the JSON).
    const OperatorDefinition back = operatorDefinitionFromJson(
        operatorDefinitionToJson({op, space, nlohmann::json::object(), layout::TuningMode::Joint}),
        "stored");
    ASSERT_TRUE(back.space.startPoint());
    EXPECT_EQ(*back.space.startPoint(), start);
  }
  // The blockings of AVX-512, which the figures in docs/results were measured with; AVX2's below.
  const auto start = [](const OperatorSpec& o) {
    return layout::conv2dStartBlocking(o, layout::kAvx512);
  };
  const OperatorSpec op = smallConv(1, 64, 64, 28, 3, 1, 1);
  EXPECT_EQ(start(op).regF, 32);
  EXPECT_EQ(start(op).regW, 14);
  // AVX2: two 8-float vectors by 7 columns, the 14 accumulators of its 16 registers (32 x 14
  // would be 56, spilled).
  EXPECT_EQ(layout::conv2dStartBlocking(op, layout::kAvx2).regF, 16);
  EXPECT_EQ(layout::conv2dStartBlocking(op, layout::kAvx2).regW, 7);
  // 48 channels, 12 output columns: three vectors by 6 columns (18 accumulators) fill more of
  // the registers than one vector by 12.
  EXPECT_EQ(start(smallConv(1, 3, 48, 51, 11, 4, 2)).regF, 48);
  EXPECT_EQ(start(smallConv(1, 3, 48, 51, 11, 4, 2)).regW, 6);
  // 7 output columns (ResNet-18's conv5): four vectors by 7 columns, not two by 7.
  EXPECT_EQ(start(smallConv(1, 64, 64, 7, 3, 1, 1)).regF, 64);
  EXPECT_EQ(start(smallConv(1, 64, 64, 7, 3, 1, 1)).regW, 7);
  // 27 output columns (AlexNet's conv2): three vectors by 9, not one vector by 27, which has as
  // many accumulators and a broadcast load per FMA.
  EXPECT_EQ(start(smallConv(1, 8, 192, 27, 5, 1, 2)).regF, 48);
  EXPECT_EQ(start(smallConv(1, 8, 192, 27, 5, 1, 2)).regW, 9);
  // 24 channels (MobileNetV2's 144 -> 24 projections at 56 x 56): a vector and half of one by 14
  // columns, not 12 channels (a quarter of each vector idle) by 28; AVX2's 12 alike. The start
  // is in its space, and its kernel (a vector and a partial one per column) computes the
  // convolution, with a residual and a ReLU fused.
  {
    OperatorSpec projection = smallConv(2, 48, 24, 14, 1, 1, 0);
    projection.epilogue = {{EpilogueKind::Add, 1}, {EpilogueKind::Relu, 1}};
    const SearchSpace space = layout::conv2dLayoutSpace(projection);
    ASSERT_TRUE(space.startPoint());
    EXPECT_TRUE(space.satisfies(*space.startPoint())) << space.format(*space.startPoint());
    EXPECT_EQ(layout::conv2dBlocking(projection, space, *space.startPoint()).regF,
              layout::conv2dStartBlocking(projection).regF);
    expectLayoutKernelsMatch(projection, {*space.startPoint()});
  }
  EXPECT_EQ(start(smallConv(4, 144, 24, 56, 1, 1, 0)).regF, 24);
  EXPECT_EQ(start(smallConv(4, 144, 24, 56, 1, 1, 0)).regW, 14);
  EXPECT_EQ(layout::conv2dStartBlocking(smallConv(1, 16, 12, 28, 1, 1, 0), layout::kAvx2).regF, 12);
  EXPECT_EQ(layout::conv2dStartBlocking(smallConv(1, 16, 12, 28, 1, 1, 0), layout::kAvx2).regW, 7);
  // Input channels in stages where an output tile's weights would not stay in the core's cache
  // while its register tiles take turns: ResNet-18's conv5 (64 x 512 x 3 x 3 floats, 1.2 MB, for
  // each of 7 register tiles) in two stages of 256; its conv4 (576 KiB) in one, and AlexNet's
  // conv4 (864 KiB) too: its tiles of one output row hold one register tile per channel block,
  // which reads its weights once whatever the stages.
  EXPECT_EQ(start(smallConv(1, 512, 512, 7, 3, 1, 1)).stageC, 256);
  EXPECT_EQ(start(smallConv(1, 256, 256, 14, 3, 1, 1)).stageC, 256);
  EXPECT_EQ(start(smallConv(1, 384, 256, 13, 3, 1, 1)).stageC, 384);
  // A start point outside the space is refused.
  SearchSpace space = layout::conv2dLayoutSpace(op);
  Config broken = *space.startPoint();
  broken[std::size_t(space.indexOf("layout.out_c"))] = {16, 4};  // smaller than its register tile
  EXPECT_THROW(space.setStartPoint(broken), std::invalid_argument);
}

TEST(LayoutSpace, ModeIsPartOfTheOperatorDefinition) {
  OperatorDefinition def = loadOperator("alexnet_conv3_b1");
  EXPECT_EQ(def.mode, layout::TuningMode::Loop);
  const OperatorDefinition joint = withTuningMode(def, layout::TuningMode::Joint);
  EXPECT_TRUE(layout::isLayoutSpace(joint.space));
  const nlohmann::json j = operatorDefinitionToJson(joint);
  EXPECT_EQ(j.at("mode"), "joint");
  const OperatorDefinition back = operatorDefinitionFromJson(j, "stored");
  EXPECT_EQ(back.mode, layout::TuningMode::Joint);
  EXPECT_EQ(back.space.dims(), joint.space.dims());
  nlohmann::json bad = j;
  bad["mode"] = "layouts";
  try {
    operatorDefinitionFromJson(bad, "op.json");
    FAIL() << "an unknown mode was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("layouts"), std::string::npos) << e.what();
  }
  // Propagation is between a network's layers: one operator has no joint-np mode.
  EXPECT_EQ(layout::parseTuningMode("joint-np", "--mode"), layout::TuningMode::JointNoPropagation);
  bad["mode"] = "joint-np";
  try {
    operatorDefinitionFromJson(bad, "op.json");
    FAIL() << "joint-np was accepted for one operator";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("for networks"), std::string::npos) << e.what();
  }
  // MatMul has a joint space too.
  const OperatorDefinition mm = withTuningMode(loadOperator("MM1"), layout::TuningMode::Joint);
  EXPECT_TRUE(layout::isLayoutSpace(mm.space));
  EXPECT_GE(mm.space.indexOf("layout.b_m"), 0);
}

// The generated conversion from one layout to another writes what core/layout's pack writes,
// whichever loop order it picks: transposing ones (channels-last to channels-first, where the
// channel loop goes innermost so reads are contiguous), padded, overlapping, and blocked both ways.
TEST(LayoutConversion, GeneratedConversionsEqualCoreLayoutPacking) {
  const layout::Layout plain({{"c", 64}, {"h", 12}, {"w", 10}});
  layout::Layout channelsLast = plain;
  channelsLast.split("h", 3).reorder({"h_o", "h_i", "w", "c"});
  layout::Layout blocked16 = plain;
  blocked16.split("c", 16).reorder({"c_o", "h", "w", "c_i"});
  layout::Layout blocked8Windows = plain;
  blocked8Windows.pad("h", 1, 1).unfold("h", 6, 4).split("c", 8).reorder(
      {"c_o", "h_o", "h_i", "w", "c_i"});
  const std::vector<std::pair<layout::Layout, layout::Layout>> pairs{
      {channelsLast, plain},       {plain, channelsLast},     {plain, blocked16},
      {blocked16, plain},          {blocked16, channelsLast}, {channelsLast, blocked8Windows},
      {blocked8Windows, blocked16}};
  codegen::CodeWriter w;
  for (std::size_t i = 0; i < pairs.size(); ++i)
    codegen::writeLayoutConversion(w, "convert" + std::to_string(i), pairs[i].first,
                                   pairs[i].second);
  LoadedObject so(w.str(), {"-O2", "-fopenmp", "-shared", "-fPIC"});
  ASSERT_TRUE(so.ok()) << so.result().log;
  std::vector<float> logical(std::size_t(plain.logicalSize()));
  for (std::size_t i = 0; i < logical.size(); ++i) logical[i] = float(i % 9973) + 0.5f;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    SCOPED_TRACE("pair " + std::to_string(i) + ": " + pairs[i].first.describe() + " -> " +
                 pairs[i].second.describe());
    std::vector<float> src(std::size_t(pairs[i].first.size()));
    std::vector<float> want(std::size_t(pairs[i].second.size())), got(want.size(), -1.0f);
    pairs[i].first.pack(logical, src);
    pairs[i].second.pack(logical, want);
    so.symbol<ConvertFn>("convert" + std::to_string(i))(src.data(), got.data());
    EXPECT_EQ(got, want);
  }
  // Channels-last to channels-first: the innermost loop is the 64 channels, not the 10 columns.
  codegen::CodeWriter one;
  codegen::writeLayoutConversion(one, "unpack", channelsLast, plain);
  const std::string text = one.str();
  const std::size_t lastLoop = text.rfind("for (");
  ASSERT_NE(lastLoop, std::string::npos);
  EXPECT_NE(text.find("< 64;", lastLoop), std::string::npos) << text;
}

}  // namespace
}  // namespace opevo::test
