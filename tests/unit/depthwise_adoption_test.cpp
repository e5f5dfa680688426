// A depthwise convolution taking its producer's channel blocks (gpu/net/network_program.cpp,
// --mode joint): its input is padded and windowed, so it is still converted, but straight from
// the producer's blocks into the same blocks, a copy of whole blocks; and the program computes
// what the plain layouts compute.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cpu/operator_buffers.h"
#include "layout/conv2d_layout.h"
#include "net/cpu_network.h"
#include "net/network_json.h"
#include "net/network_program.h"
#include "net/network_tuning.h"
#include "net/untuned_configs.h"

namespace opevo::net {
namespace {

bool blocksSentence(const std::string& s) {
  return s.find(" takes the channel blocks of its input (") != std::string::npos;
}

// MobileNetV2's block, small: the 1x1 expansion blocks its 48 output channels by 48 where the
// depthwise convolution's start blocks them by 16. The depthwise convolution takes the 48, its
// input's conversion copies blocks of 48 floats (192 bytes) from the expansion's buffer, and the
// output is the loop program's.
TEST(DepthwiseAdoption, TheDepthwiseConvolutionTakesItsProducersChannelBlocks) {
  const Network n = loadNetwork(std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_depthwise.json");
  const TaskGraph g = extractTasks(n);
  const std::vector<Config> untuned = untunedConfigs(g, layout::TuningMode::Joint);
  const NetworkProgram p = buildNetworkProgram(n, g, untuned, layout::TuningMode::Joint, 3);
  std::vector<std::string> sentences;
  for (const std::string& s : p.adopted)
    if (blocksSentence(s)) sentences.push_back(s);
  // dw2 reads the projection's 16 channels in blocks of 16 already: nothing to take, but its
  // conversion copies whole blocks all the same (as a depthwise task tuned on its producer's
  // blocks does), and says so.
  ASSERT_EQ(sentences.size(), 2u) << ::testing::PrintToString(p.adopted);
  EXPECT_EQ(sentences[0],
            "dw takes the channel blocks of its input (expand_relu) as expand writes them: its "
            "conversion copies whole blocks");
  EXPECT_EQ(sentences[1],
            "dw2 takes the channel blocks of its input (residual) as project writes them: its "
            "conversion copies whole blocks");
  // dw's configuration changed (it was not tuned). dw2's start blocks its 16 channels by a vector:
  // by 16 on AVX-512, as the projection writes them, and there it keeps its configuration; by 8
  // on AVX2 (layout::VectorUnit), where it takes the projection's 16.
  std::size_t dw = 0, dw2 = 0;
  for (std::size_t i = 0; i < g.tasks.size(); ++i) {
    if (g.tasks[i].name == "dw") dw = i;
    if (g.tasks[i].name == "dw2") dw2 = i;
  }
  EXPECT_NE(p.configs[dw], untuned[dw]);
  if (layout::nativeVectorUnit().floats == 16)
    EXPECT_EQ(p.configs[dw2], untuned[dw2]);
  else
    EXPECT_NE(p.configs[dw2], untuned[dw2]);
  // dw's conversion reads the expansion's laid-out buffer and copies 48 channels at a time.
  bool straight = false;
  for (const ProgramStep& s : p.steps)
    if (s.kind == StepKind::Convert && s.name == "dw") {
      const std::string& from = p.tensors[std::size_t(s.in[0].index)].name;
      straight = from == "expand.laid_out";
      const std::size_t at = p.source.find("void " + s.entry + "(");
      ASSERT_NE(at, std::string::npos) << s.entry;
      const std::string body = p.source.substr(at, p.source.find("\n}", at) - at);
      EXPECT_NE(body.find("__builtin_memcpy(dst + d, src + "), std::string::npos) << body;
      EXPECT_NE(body.find(", 192);"), std::string::npos) << body;
    }
  EXPECT_TRUE(straight);
  // Without propagation the depthwise convolution keeps its own blocking.
  const NetworkProgram np =
      buildNetworkProgram(n, g, untuned, layout::TuningMode::JointNoPropagation, 3);
  EXPECT_TRUE(np.adopted.empty());

  CpuNetworkRun joint(n, g, untuned, layout::TuningMode::Joint, 3);
  ASSERT_EQ(joint.adoptedLayouts(), p.adopted);
  CpuNetworkRun loop(n, g, untunedConfigs(g, layout::TuningMode::Loop), layout::TuningMode::Loop,
                     3);
  EXPECT_LT(maxRelativeError(joint.forward(), loop.forward()), 1e-5);
}

// In MobileNetV2, untuned, every depthwise task takes its producer's channel blocks (the stem's
// 32, the expansions' 32 to 64): ten sentences, one per depthwise task, each naming a layer whose
// conversion is a straight copy of blocks.
TEST(DepthwiseAdoption, EveryMobileNetV2DepthwiseTaskTakesItsProducersBlocks) {
  const Network n = loadNetwork("mobilenet_v2");
  const TaskGraph g = extractTasks(n);
  int depthwiseTasks = 0;
  for (const Task& t : g.tasks) depthwiseTasks += layout::isDepthwise(t.op);
  const NetworkProgram p = buildNetworkProgram(n, g, untunedConfigs(g, layout::TuningMode::Joint),
                                               layout::TuningMode::Joint, 1);
  int sentences = 0;
  for (const std::string& s : p.adopted) {
    if (!blocksSentence(s)) continue;
    ++sentences;
    const std::string layer = s.substr(0, s.find(' '));
    bool copies = false;
    for (const ProgramStep& step : p.steps)
      if (step.kind == StepKind::Convert && step.name == layer)
        copies =
            p.tensors[std::size_t(step.in[0].index)].name.find(".laid_out") != std::string::npos;
    EXPECT_TRUE(copies) << s;
  }
  EXPECT_EQ(depthwiseTasks, 10);
  EXPECT_EQ(sentences, depthwiseTasks) << ::testing::PrintToString(p.adopted);
}

}  // namespace
}  // namespace opevo::net
