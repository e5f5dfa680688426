// Depthwise convolutions in the joint layout template (core/layout/conv2d_layout.h): their
// space, their start and their place in a network's joint mode. Their CPU kernels are checked
// with the other layout kernels (layout_codegen_test.cpp, DepthwiseLayoutKernels), their
// CUDA/HIP kernels in layout_gpu_codegen_test.cpp.

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

TEST(DepthwiseLayout, TheSpaceHasNoInputChannelParameters) {
  const OperatorSpec op = smallDepthwiseConv(1, 96, 56, 3, 2, 1);
  ASSERT_TRUE(layout::isDepthwise(op));
  const SearchSpace space = layout::conv2dLayoutSpace(op);
  for (const char* gone :
       {"layout.in_c", "layout.weight_o", "layout.weight_i", "stage_c", "reduce_order", "unroll_c"})
    EXPECT_LT(space.indexOf(gone), 0) << gone;
  for (const char* kept :
       {"layout.out_c", "layout.out_h", "layout.out_w", "tile_f", "tile_y", "tile_x", "tile_order"})
    EXPECT_GE(space.indexOf(kept), 0) << kept;
  // The start: a vector of channels by 14 columns (AVX2: 7, half the registers), the input
  // blocked as the output.
  ASSERT_TRUE(space.startPoint());
  EXPECT_TRUE(space.satisfies(*space.startPoint()));
  const layout::Conv2DBlocking b = layout::conv2dBlocking(op, space, *space.startPoint());
  EXPECT_TRUE(b.depthwise);
  const layout::Conv2DBlocking native = layout::conv2dStartBlocking(op);
  EXPECT_EQ(b.regF, native.regF);
  EXPECT_EQ(b.regW, native.regW);
  EXPECT_EQ(layout::conv2dStartBlocking(op, layout::kAvx512).regF, 16);
  EXPECT_EQ(layout::conv2dStartBlocking(op, layout::kAvx512).regW, 14);
  EXPECT_EQ(layout::conv2dStartBlocking(op, layout::kAvx2).regF, 8);
  EXPECT_EQ(layout::conv2dStartBlocking(op, layout::kAvx2).regW, 7);
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
