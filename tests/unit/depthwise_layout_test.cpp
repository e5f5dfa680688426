// Depthwise convolutions in the joint layout template (core/layout/conv2d_layout.h): their
// space, their start, their CPU kernels against the host reference through the generated
// conversions, and their place in a network's joint mode. Their CUDA/HIP kernels are checked
// with the other layout kernels (layout_gpu_codegen_test.cpp).

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "codegen_test_util.h"
#include "common/error.h"
#include "cpu/operator_buffers.h"
#include "layout/conv2d_layout.h"
#include "net/cpu_network.h"
#include "net/network_json.h"
#include "net/network_tuning.h"

namespace opevo::test {
namespace {

using codegen::Backend;
using codegen::generateKernel;
using ConvertFn = void (*)(const float*, float*);

OperatorSpec depthwise(std::int64_t batch, std::int64_t channels, std::int64_t hw,
                       std::int64_t kernel, std::int64_t stride, std::int64_t pad) {
  OperatorSpec op = smallConv(batch, channels, channels, hw, kernel, stride, pad);
  op.groups = channels;
  return op;
}

// Each configuration's kernel and conversions in one library: the conversions equal
// core/layout's packing, and the unpacked output the host reference.
void expectDepthwiseKernelsMatch(const OperatorSpec& op, const std::vector<Config>& configs) {
  const SearchSpace space = layout::conv2dLayoutSpace(op);
  std::string source;
  for (std::size_t i = 0; i < configs.size(); ++i)
    source += generateKernel(op, space, configs[i], Backend::Cpu, {"k" + std::to_string(i)}).source;
  LoadedObject so(source, {"-O2", "-march=native", "-fopenmp", "-shared", "-fPIC"});
  ASSERT_TRUE(so.ok()) << so.result().log;
  const TestOperands x = randomOperands(op, 9);
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
    EXPECT_EQ(a, want) << "the generated input conversion differs from core/layout's";
    want.resize(b.size());
    l.b.pack(x.b, want);
    EXPECT_EQ(b, want) << "the generated weight conversion differs from core/layout's";
    so.symbol<KernelFn>(k)(a.data(), b.data(), c.data(), x.biasData(), r.data());
    std::vector<float> plain(x.reference.size(), std::nanf(""));
    so.symbol<ConvertFn>(k + "_unpack_c")(c.data(), plain.data());
    const std::int64_t bad = firstMismatch(plain, x.reference);
    EXPECT_EQ(bad, -1) << "element " << bad;
  }
}

TEST(DepthwiseLayout, TheSpaceHasNoInputChannelParameters) {
  const OperatorSpec op = depthwise(1, 96, 56, 3, 2, 1);
  ASSERT_TRUE(layout::isDepthwise(op));
  const SearchSpace space = layout::conv2dLayoutSpace(op);
  for (const char* gone :
       {"layout.in_c", "layout.weight_o", "layout.weight_i", "stage_c", "reduce_order", "unroll_c"})
    EXPECT_LT(space.indexOf(gone), 0) << gone;
  for (const char* kept :
       {"layout.out_c", "layout.out_h", "layout.out_w", "tile_f", "tile_y", "tile_x", "tile_order"})
    EXPECT_GE(space.indexOf(kept), 0) << kept;
  // The start: a vector of 16 channels by 14 columns, the input blocked as the output.
  ASSERT_TRUE(space.startPoint());
  EXPECT_TRUE(space.satisfies(*space.startPoint()));
  const layout::Conv2DBlocking b = layout::conv2dBlocking(op, space, *space.startPoint());
  EXPECT_TRUE(b.depthwise);
  EXPECT_EQ(b.regF, 16);
  EXPECT_EQ(b.regW, 14);
  EXPECT_EQ(b.inC, b.outC);
  EXPECT_EQ(b.weightI, 1);
  // The weights' logical dims are f, 1, kh, kw: one input channel per group.
  const layout::OperandLayouts l = layout::conv2dLayouts(op, b);
  EXPECT_EQ(l.b.size(), 96 * 3 * 3);
}

TEST(DepthwiseLayout, OtherGroupedConvolutionsAreRefusedByName) {
  OperatorSpec grouped = smallConv(1, 16, 32, 14, 3, 1, 1);
  grouped.groups = 2;
  OperatorSpec multiplier = smallConv(1, 16, 32, 14, 3, 1, 1);
  multiplier.groups = 16;  // two output channels per input channel
  for (const OperatorSpec& op : {grouped, multiplier}) {
    EXPECT_FALSE(layout::isDepthwise(op));
    try {
      layout::conv2dLayoutSpace(op);
      ADD_FAILURE() << "no error for " << op.describe();
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("ungrouped and depthwise"), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find("--mode loop"), std::string::npos) << e.what();
    }
  }
}

TEST(DepthwiseLayout, KernelsMatchTheReference) {
  OperatorSpec s1 = depthwise(1, 32, 14, 3, 1, 1);
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
  expectDepthwiseKernelsMatch(s1, configs);
  // Stride 2 on an odd image, batch 2; 5x5 with padding 2; channels no multiple of 16.
  for (const OperatorSpec& op : {depthwise(2, 16, 13, 3, 2, 1), depthwise(1, 16, 12, 5, 1, 2),
                                 depthwise(1, 24, 10, 3, 1, 1)}) {
    SCOPED_TRACE(op.describe());
    const SearchSpace s = layout::conv2dLayoutSpace(op);
    std::vector<Config> some = randomConfigs(s, 5, 8);
    some.push_back(*s.startPoint());
    expectDepthwiseKernelsMatch(op, some);
  }
}

// A network's depthwise tasks tune their layouts in the joint modes (their runs stored before
// tuned loops: that definition still reads them), and the joint program computes what the loop
// one does.
TEST(DepthwiseLayout, NetworksTuneTheirLayoutsAndComputeTheSame) {
  const net::Network n =
      net::loadNetwork(std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_depthwise.json");
  const net::TaskGraph g = net::extractTasks(n);
  int depthwiseTasks = 0;
  std::vector<Config> joint, loop;
  for (const net::Task& t : g.tasks) {
    const OperatorDefinition def = net::taskDefinition(t, layout::TuningMode::Joint);
    const OperatorDefinition loops = net::taskDefinition(t, layout::TuningMode::Loop);
    EXPECT_TRUE(layout::isLayoutSpace(def.space)) << t.name;
    joint.push_back(untunedConfig(def.space));
    loop.push_back(untunedConfig(loops.space));
    if (!layout::isDepthwise(t.op)) continue;
    ++depthwiseTasks;
    const auto former = net::formerTaskDefinition(t, layout::TuningMode::Joint);
    ASSERT_TRUE(former) << t.name;
    EXPECT_FALSE(layout::isLayoutSpace(former->space));
    EXPECT_FALSE(layout::isLayoutSpace(
        net::taskDefinitionOf(t, layout::TuningMode::Joint, {}, loop.back()).space));
  }
  EXPECT_EQ(depthwiseTasks, 2);
  net::CpuNetworkRun jointRun(n, g, joint, layout::TuningMode::Joint, 3);
  net::CpuNetworkRun loopRun(n, g, loop, layout::TuningMode::Loop, 3);
  EXPECT_LT(maxRelativeError(jointRun.forward(), loopRun.forward()), 1e-5);
}

}  // namespace
}  // namespace opevo::test
