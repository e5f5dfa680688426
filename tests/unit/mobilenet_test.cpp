// The MobileNetV2 preset (resources/networks/mobilenet_v2.json): torchvision's mobilenet_v2 at
// width 1.0, its shapes, parameters, work and tasks.

#include <gtest/gtest.h>

#include <string>

#include "net/network_json.h"
#include "net/tasks.h"

namespace opevo::net {
namespace {

const Task* findTask(const TaskGraph& g, const std::string& name) {
  for (const Task& t : g.tasks)
    if (t.name == name) return &t;
  return nullptr;
}

TEST(MobileNetV2, ShapesParametersAndWorkAreTorchvisions) {
  const Network n = loadNetwork("mobilenet_v2");
  EXPECT_EQ(n.shapeOf("features.0.2"), (Shape{1, 32, 112, 112}));
  // A folded norm's output is its convolution's: the projection's 1x1 convolution.
  EXPECT_EQ(n.shapeOf("features.1.conv.1"), (Shape{1, 16, 112, 112}));
  EXPECT_EQ(n.shapeOf("features.3.add"), (Shape{1, 24, 56, 56}));
  // The first 160-channel block: its depthwise convolution over 6 x 96 channels, stride 2.
  EXPECT_EQ(n.shapeOf("features.14.conv.1.2"), (Shape{1, 576, 7, 7}));
  EXPECT_EQ(n.shapeOf("features.17.conv.2"), (Shape{1, 320, 7, 7}));
  EXPECT_EQ(n.shapeOf("features.18.2"), (Shape{1, 1280, 7, 7}));
  EXPECT_EQ(n.shapeOf(n.output), (Shape{1, 1000}));
  EXPECT_EQ(loadNetwork("mobilenet_v2", {{"batch", 4}}).shapeOf(n.output), (Shape{4, 1000}));
  // torchvision's 3,504,872 less the 52 norms' 34,112 scale and shift values, plus the 17,056
  // biases they fold into.
  EXPECT_EQ(n.parameterCount(), 3504872 - 34112 + 17056);
  // 300.8 M multiply-adds (torchvision's "0.30 GFLOPS"), two operations each, and the folded
  // biases, relu6 clamps, residual adds and pool.
  EXPECT_NEAR(n.flops() / 1e9, 0.621, 0.001);
  int relu6 = 0, depthwise = 0, adds = 0;
  for (const Layer& l : n.layers) {
    relu6 += l.kind == LayerKind::Relu6;
    adds += l.kind == LayerKind::Add;
    depthwise += l.kind == LayerKind::Conv2D && l.groups > 1 && l.groups == l.outChannels;
  }
  EXPECT_EQ(relu6, 35);      // stem, 17 depthwise, 16 expansions, last conv
  EXPECT_EQ(depthwise, 17);  // one per inverted residual block
  EXPECT_EQ(adds, 10);       // the blocks of stride 1 whose input and output channels agree
}

TEST(MobileNetV2, TasksFuseNormsReluSixAndResiduals) {
  const Network n = loadNetwork("mobilenet_v2");
  const TaskGraph g = extractTasks(n);
  double weights = 0;
  for (const Task& t : g.tasks) weights += t.weight();
  EXPECT_EQ(weights, 53);          // 52 convolutions and the classifier
  EXPECT_EQ(g.tasks.size(), 31u);  // identical blocks share tasks
  const Epilogue biasRelu6{{EpilogueKind::Bias, 1}, {EpilogueKind::Relu6, 1}};
  // A block's expansion and depthwise convolutions end in relu6; its projection is linear and
  // takes the residual where it has one.
  const Task* dw = findTask(g, "features.4.conv.1.0");
  ASSERT_NE(dw, nullptr);
  EXPECT_EQ(dw->op.groups, 144);
  EXPECT_EQ(dw->op.epilogue, biasRelu6);
  EXPECT_EQ(findTask(g, "features.2.conv.0.0")->op.epilogue, biasRelu6);
  const Task* project = findTask(g, "features.3.conv.2");
  ASSERT_NE(project, nullptr);
  EXPECT_EQ(project->op.epilogue, (Epilogue{{EpilogueKind::Bias, 1}, {EpilogueKind::Add, 1}}));
  EXPECT_EQ(project->occurrences[0].residuals, (std::vector<std::string>{"features.2.conv.2"}));
  EXPECT_EQ(findTask(g, "features.2.conv.2")->op.epilogue, (Epilogue{{EpilogueKind::Bias, 1}}));
  // What is left to fixed kernels: the global pool alone (and the flatten view).
  ASSERT_EQ(g.fixed.size(), 2u);
  EXPECT_EQ(g.fixed[0].layer, "avgpool");
  EXPECT_TRUE(g.fixed[1].view);
}

}  // namespace
}  // namespace opevo::net
