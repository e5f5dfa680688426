// A depthwise convolution taking its producer's channel blocks (gpu/net/network_program.cpp,
// --mode joint): its input is the image with its channels blocked, so where the producer writes
// whole rows in those blocks the producer's buffer is read as it is, with no conversion; where
// the producer splits its columns, the conversion copies whole blocks from the producer's layout.
// Either way the program computes what the plain layouts compute.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "column_tiles.h"
#include "cpu/operator_buffers.h"
#include "layout/conv2d_layout.h"
#include "net/cpu_network.h"
#include "net/network_json.h"
#include "net/network_program.h"
#include "net/network_tuning.h"
#include "net/untuned_configs.h"
#include "network_test_util.h"

namespace opevo::net {
namespace {

bool blocksSentence(const std::string& s) {
  return s.find(" takes the channel blocks of its input (") != std::string::npos;
}

using test::taskNamed;

// The tensor a layer's task step reads as its input, and whether a conversion step of that layer
// runs.
std::string inputOf(const NetworkProgram& p, const std::string& layer) {
  for (const ProgramStep& s : p.steps)
    if (s.kind == StepKind::Task && s.name == layer)
      return p.tensors[std::size_t(s.in[0].index)].name;
  return {};
}
bool converted(const NetworkProgram& p, const std::string& layer) {
  for (const ProgramStep& s : p.steps)
    if (s.kind == StepKind::Convert && s.name == layer) return true;
  return false;
}

// MobileNetV2's block, small: the 1x1 expansion blocks its 48 output channels by 48 where the
// depthwise convolution's start blocks them by 16. The depthwise convolution takes the 48; the
// expansion's start writes whole rows, so dw reads the expansion's buffer as it is. With the
// expansion's columns in two tiles, dw's input is converted, copying blocks of 48 floats (192
// bytes) straight from the expansion's buffer. The output is the loop program's either way.
TEST(DepthwiseAdoption, TheDepthwiseConvolutionTakesItsProducersChannelBlocks) {
  const Network n = loadNetwork(std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_depthwise.json");
  const TaskGraph g = extractTasks(n);
  const std::vector<Config> untuned = untunedConfigs(g, layout::TuningMode::Joint);
  const NetworkProgram p = buildNetworkProgram(n, g, untuned, layout::TuningMode::Joint, 3);
  std::vector<std::string> sentences;
  for (const std::string& s : p.adopted)
    if (blocksSentence(s)) sentences.push_back(s);
  // dw2 reads the projection's 16 channels in blocks of 16 already: nothing to take, but it reads
  // the projection's buffer as it is all the same (as a depthwise task tuned on its producer's
  // blocks does), and says so.
  ASSERT_EQ(sentences.size(), 2u) << ::testing::PrintToString(p.adopted);
  EXPECT_EQ(sentences[0],
            "dw takes the channel blocks of its input (expand_relu) as expand writes them: it "
            "reads them as they are, with no conversion");
  EXPECT_EQ(sentences[1],
            "dw2 takes the channel blocks of its input (residual) as project writes them: it "
            "reads them as they are, with no conversion");
  EXPECT_FALSE(converted(p, "dw"));
  EXPECT_FALSE(converted(p, "dw2"));
  EXPECT_EQ(inputOf(p, "dw"), "expand.laid_out");
  EXPECT_EQ(inputOf(p, "dw2"), "project.laid_out");
  // dw's configuration changed (it was not tuned). dw2's start blocks its 16 channels by a vector:
  // by 16 on AVX-512, as the projection writes them, and there it keeps its configuration; by 8
  // on AVX2 (layout::VectorUnit), where it takes the projection's 16.
  const std::size_t dw = taskNamed(g, "dw"), dw2 = taskNamed(g, "dw2"),
                    expand = taskNamed(g, "expand");
  EXPECT_NE(p.configs[dw], untuned[dw]);
  if (layout::nativeVectorUnit().floats == 16)
    EXPECT_EQ(p.configs[dw2], untuned[dw2]);
  else
    EXPECT_NE(p.configs[dw2], untuned[dw2]);
  // Without propagation the depthwise convolution keeps its own blocking.
  const NetworkProgram np =
      buildNetworkProgram(n, g, untuned, layout::TuningMode::JointNoPropagation, 3);
  EXPECT_TRUE(np.adopted.empty());
  EXPECT_TRUE(converted(np, "dw"));

  CpuNetworkRun joint(n, g, untuned, layout::TuningMode::Joint, 3);
  ASSERT_EQ(joint.adoptedLayouts(), p.adopted);
  CpuNetworkRun loop(n, g, untunedConfigs(g, layout::TuningMode::Loop), layout::TuningMode::Loop,
                     3);
  const std::vector<float> want = loop.forward();
  EXPECT_LT(maxRelativeError(joint.forward(), want), 1e-5);

  // The expansion's columns in two tiles of 10: dw's conversion reads the expansion's laid-out
  // buffer and copies 48 channels at a time.
  std::vector<Config> columns = untuned;
  columns[expand] = test::withColumnTiles(
      taskDefinition(g.tasks[expand], layout::TuningMode::Joint).space, untuned[expand], 2);
  const NetworkProgram c = buildNetworkProgram(n, g, columns, layout::TuningMode::Joint, 3);
  EXPECT_EQ(c.configs[dw], p.configs[dw]);
  bool straight = false;
  for (const ProgramStep& s : c.steps)
    if (s.kind == StepKind::Convert && s.name == "dw") {
      const std::string& from = c.tensors[std::size_t(s.in[0].index)].name;
      straight = from == "expand.laid_out";
      const std::size_t at = c.source.find("void " + s.entry + "(");
      ASSERT_NE(at, std::string::npos) << s.entry;
      const std::string body = c.source.substr(at, c.source.find("\n}", at) - at);
      EXPECT_NE(body.find("__builtin_memcpy(dst + d, src + "), std::string::npos) << body;
      EXPECT_NE(body.find(", 192);"), std::string::npos) << body;
    }
  EXPECT_TRUE(straight);
  EXPECT_NE(std::find(c.adopted.begin(), c.adopted.end(),
                      "dw takes the channel blocks of its input (expand_relu) as expand writes "
                      "them: its conversion copies whole blocks"),
            c.adopted.end())
      << ::testing::PrintToString(c.adopted);
  CpuNetworkRun split(n, g, columns, layout::TuningMode::Joint, 3);
  EXPECT_LT(maxRelativeError(split.forward(), want), 1e-5);
}

// In MobileNetV2, untuned, every depthwise task takes its producer's channel blocks (the stem's
// 32, the expansions' 32 to 64), which write whole rows: ten sentences, one per depthwise task,
// each naming a layer that reads its producer's buffer with no conversion.
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
    EXPECT_NE(s.find("it reads them as they are, with no conversion"), std::string::npos) << s;
    EXPECT_FALSE(converted(p, layer)) << s;
    EXPECT_NE(inputOf(p, layer).find(".laid_out"), std::string::npos) << s;
  }
  EXPECT_EQ(depthwiseTasks, 10);
  EXPECT_EQ(sentences, depthwiseTasks) << ::testing::PrintToString(p.adopted);
}

}  // namespace
}  // namespace opevo::net
