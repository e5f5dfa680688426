#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "common/error.h"
#include "net/ms_text.h"
#include "net/network_json.h"
#include "net/network_tuning.h"
#include "net/tasks.h"
#include "ops/operator_json.h"
#include "ops/presets.h"

namespace opevo::net {
namespace {

using nlohmann::json;

const Task* findTask(const TaskGraph& g, const std::string& name) {
  for (const Task& t : g.tasks)
    if (t.name == name) return &t;
  return nullptr;
}

// The error a network text raises as a new load (a dead layer refused), or "" when it loads.
std::string errorOf(const std::string& text, const ParamOverrides& overrides = {}) {
  try {
    requireEveryLayerRead(networkFromJson(json::parse(text), "test.json", overrides), "test.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string networkFromTextError(const std::string& text) {
  try {
    networkFromText(text, "test.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// A two-layer network around one layer under test.
std::string around(const std::string& layer, const std::string& shape = "[1, 8, 16, 16]") {
  return R"({"name": "t", "params": {"batch": 1}, "inputs": [{"name": "x", "shape": )" + shape +
         R"(}], "layers": [)" + layer + "]}";
}

TEST(Network, PresetsAreListedAndLoad) {
  std::vector<std::string> names;
  for (const NetworkPreset& p : networkPresets()) names.push_back(p.name);
  EXPECT_EQ(names, (std::vector<std::string>{"alexnet", "bert_base_layer", "mobilenet_v2",
                                             "resnet18", "resnet50"}));
  for (const std::string& n : names) EXPECT_NO_THROW(loadNetwork(n)) << n;
}

TEST(Network, AlexNetShapesFlopsAndTasks) {
  const Network n = loadNetwork("alexnet");
  EXPECT_EQ(n.layers.size(), 27u);
  EXPECT_EQ(n.shapeOf("pool1"), (Shape{1, 64, 27, 27}));
  EXPECT_EQ(n.shapeOf("pool5"), (Shape{1, 256, 6, 6}));
  EXPECT_EQ(n.shapeOf(n.output), (Shape{1, 1000}));
  // 61.1 M parameters and about 0.71 G multiply-adds, as torchvision's AlexNet.
  EXPECT_EQ(n.parameterCount(), 61100840);
  EXPECT_NEAR(n.flops() / 1e9, 1.43, 0.01);

  const TaskGraph g = extractTasks(n);
  ASSERT_EQ(g.tasks.size(), 8u);
  const Task* conv1 = findTask(g, "conv1");
  ASSERT_NE(conv1, nullptr);
  EXPECT_EQ(conv1->op.kind, OpKind::Conv2D);
  EXPECT_EQ(conv1->op.stride, 4);
  EXPECT_EQ(conv1->op.pad, 2);
  EXPECT_EQ(conv1->op.epilogue, (Epilogue{{EpilogueKind::Bias, 1}, {EpilogueKind::Relu, 1}}));
  EXPECT_EQ(conv1->occurrences[0].fused, (std::vector<std::string>{"conv1_bias", "conv1_relu"}));
  const Task* fc8 = findTask(g, "fc8");
  ASSERT_NE(fc8, nullptr);
  EXPECT_EQ(fc8->op.kind, OpKind::MatMul);
  EXPECT_TRUE(fc8->op.transB);
  EXPECT_EQ(fc8->op.n, 1);
  EXPECT_EQ(fc8->op.k, 4096);
  EXPECT_EQ(fc8->op.m, 1000);
  EXPECT_EQ(fc8->op.epilogue, (Epilogue{{EpilogueKind::Bias, 1}}));
  // 3 pools run fixed kernels; flatten is a view.
  std::size_t views = 0, kernels = 0;
  for (const FixedLayer& f : g.fixed) (f.view ? views : kernels) += 1;
  EXPECT_EQ(kernels, 3u);
  EXPECT_EQ(views, 1u);
}

TEST(Network, BatchParamScalesEveryShape) {
  const Network n = loadNetwork("alexnet", {{"batch", 4}});
  EXPECT_EQ(n.shapeOf(n.output), (Shape{4, 1000}));
  EXPECT_EQ(findTask(extractTasks(n), "fc6")->op.n, 4);
  EXPECT_NEAR(n.flops() / loadNetwork("alexnet").flops(), 4.0, 1e-9);
}

TEST(Network, ResNet18FoldsBatchNormsAndMergesIdenticalTasks) {
  const Network n = loadNetwork("resnet18");
  for (const Layer& l : n.layers) EXPECT_NE(l.kind, LayerKind::BatchNorm) << l.name;
  const Layer* conv1 = n.find("conv1");
  ASSERT_NE(conv1, nullptr);
  EXPECT_EQ(conv1->foldedNorm, "bn1");
  EXPECT_TRUE(conv1->bias);
  EXPECT_EQ(n.shapeOf(n.output), (Shape{1, 1000}));
  EXPECT_EQ(n.shapeOf("layer4.1.relu"), (Shape{1, 512, 7, 7}));
  // 11.69 M parameters (with the folded norms' shifts as biases: as torchvision's 11,689,512
  // less the norms' 9,600 scale and shift values, plus the 4,800 biases they become).
  EXPECT_EQ(n.parameterCount(), 11689512 - 9600 + 4800);

  const TaskGraph g = extractTasks(n);
  EXPECT_EQ(g.tasks.size(), 16u);
  // layer1's second convolutions: bias, the residual add and relu fused, in both blocks.
  const Task* t = findTask(g, "layer1.0.conv2");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->weight(), 2);
  EXPECT_EQ(t->op.epilogue,
            (Epilogue{{EpilogueKind::Bias, 1}, {EpilogueKind::Add, 1}, {EpilogueKind::Relu, 1}}));
  EXPECT_EQ(t->occurrences[0].residuals, (std::vector<std::string>{"maxpool"}));
  // The shortcut convolution keeps its own bias only: the add went to the block's conv2.
  const Task* down = findTask(g, "layer2.0.downsample.conv");
  ASSERT_NE(down, nullptr);
  EXPECT_EQ(down->op.epilogue, (Epilogue{{EpilogueKind::Bias, 1}}));
  EXPECT_EQ(findTask(g, "layer2.0.conv2")->occurrences[0].residuals,
            (std::vector<std::string>{"layer2.0.downsample.conv"}));
  double weights = 0;
  for (const Task& task : g.tasks) weights += task.weight();
  EXPECT_EQ(weights, 21);  // 20 convolutions and the classifier
}

// torchvision's ResNet-50 (v1.5: the stride on each first block's 3x3 convolution).
TEST(Network, ResNet50BottlenecksAndTasks) {
  const Network n = loadNetwork("resnet50");
  EXPECT_EQ(n.shapeOf("layer1.2.relu"), (Shape{1, 256, 56, 56}));
  EXPECT_EQ(n.shapeOf("layer2.0.conv2"), (Shape{1, 128, 28, 28}));
  EXPECT_EQ(n.shapeOf("layer4.2.relu"), (Shape{1, 2048, 7, 7}));
  EXPECT_EQ(n.shapeOf(n.output), (Shape{1, 1000}));
  // torchvision's 25,557,032 less the norms' 53,120 scale and shift values, plus the 26,560
  // biases they fold into; about 4.1 G multiply-adds.
  EXPECT_EQ(n.parameterCount(), 25557032 - 53120 + 26560);
  EXPECT_NEAR(n.flops() / 1e9, 8.21, 0.01);
  const TaskGraph g = extractTasks(n);
  EXPECT_EQ(g.tasks.size(), 25u);
  double weights = 0;
  for (const Task& task : g.tasks) weights += task.weight();
  EXPECT_EQ(weights,
            54);  // 49 convolutions in the blocks and the stem, 4 shortcuts, the classifier
  const Task* conv3 = findTask(g, "layer3.0.conv3");
  ASSERT_NE(conv3, nullptr);
  EXPECT_EQ(conv3->weight(), 6);
  EXPECT_EQ(conv3->op.epilogue,
            (Epilogue{{EpilogueKind::Bias, 1}, {EpilogueKind::Add, 1}, {EpilogueKind::Relu, 1}}));
  EXPECT_EQ(conv3->occurrences[0].residuals,
            (std::vector<std::string>{"layer3.0.downsample.conv"}));
  EXPECT_EQ(findTask(g, "layer2.0.conv2")->op.stride, 2);
  EXPECT_EQ(findTask(g, "layer2.0.conv1")->op.stride, 1);
}

TEST(Network, BertLayerTasks) {
  const Network n = loadNetwork("bert_base_layer");
  EXPECT_EQ(n.shapeOf("scores"), (Shape{12, 128, 128}));
  EXPECT_EQ(n.shapeOf(n.output), (Shape{128, 768}));
  const TaskGraph g = extractTasks(n);
  ASSERT_EQ(g.tasks.size(), 6u);
  EXPECT_EQ(findTask(g, "query")->weight(), 3);  // query, key and value projections
  const Task* scores = findTask(g, "scores");
  EXPECT_EQ(scores->op.kind, OpKind::BatchMatMul);
  EXPECT_TRUE(scores->op.transB);
  EXPECT_EQ(scores->op.epilogue, (Epilogue{{EpilogueKind::Scale, 0.125}}));
  EXPECT_EQ(findTask(g, "ffn_in")->op.epilogue,
            (Epilogue{{EpilogueKind::Bias, 1}, {EpilogueKind::Gelu, 1}}));
  EXPECT_EQ(findTask(g, "ffn_out")->occurrences[0].residuals,
            (std::vector<std::string>{"attention_norm"}));
  EXPECT_EQ(loadNetwork("bert_base_layer", {{"seq", 64}}).shapeOf("scores"), (Shape{12, 64, 64}));
  // The projections read weights; the attention's products read two activations.
  EXPECT_TRUE(findTask(g, "query")->readsWeights);
  EXPECT_TRUE(findTask(g, "ffn_out")->readsWeights);
  EXPECT_FALSE(scores->readsWeights);
  EXPECT_FALSE(findTask(g, "context_by_head")->readsWeights);
}

// In the layout modes dense and (batch) matmul tasks tune ALT's MatMul layouts (a dense layer's
// weights packed once; activations, the attention's B too, converted around the kernel). Their
// loop configurations, stored by runs from before, still find the space they were measured in.
TEST(Network, MatMulTasksTuneLayoutsAndFormerRunsKeepTheirLoops) {
  const TaskGraph g = extractTasks(loadNetwork("bert_base_layer"));
  const Task& query = *findTask(g, "query");
  const Task& scores = *findTask(g, "scores");
  for (const layout::TuningMode mode :
       {layout::TuningMode::Joint, layout::TuningMode::JointNoPropagation}) {
    const OperatorDefinition dense = taskDefinition(query, mode);
    EXPECT_EQ(dense.mode, layout::TuningMode::Joint);
    EXPECT_GE(dense.space.indexOf("layout.b_m"), 0);
    EXPECT_GE(taskDefinition(scores, mode).space.indexOf("layout.b_m"), 0);
    const auto former = formerTaskDefinition(query, mode);
    ASSERT_TRUE(former.has_value());
    EXPECT_LT(former->space.indexOf("layout.b_m"), 0);
    ASSERT_TRUE(formerTaskDefinition(scores, mode).has_value());
    EXPECT_LT(formerTaskDefinition(scores, mode)->space.indexOf("layout.b_m"), 0);
    const Config loops = untunedConfig(former->space);
    EXPECT_EQ(operatorDefinitionToJson(taskDefinitionOf(query, mode, {}, loops)),
              operatorDefinitionToJson(*former));
    const Config layouts = untunedConfig(dense.space);
    EXPECT_EQ(operatorDefinitionToJson(taskDefinitionOf(query, mode, {}, layouts)),
              operatorDefinitionToJson(dense));
    // A kept network holds either as text (chosen_configs), each read back in its own space.
    const std::string loopsText = formatTaskConfig(query, mode, {}, loops);
    const std::string layoutsText = formatTaskConfig(query, mode, {}, layouts);
    EXPECT_EQ(loopsText, former->space.format(loops));
    EXPECT_EQ(layoutsText, dense.space.format(layouts));
    EXPECT_EQ(parseTaskConfig(query, mode, {}, loopsText), loops);
    EXPECT_EQ(parseTaskConfig(query, mode, {}, layoutsText), layouts);
    try {
      parseTaskConfig(query, mode, {}, "nonsense=1");
      ADD_FAILURE() << "a text neither space reads was read";
    } catch (const InputError& x) {
      EXPECT_NE(std::string(x.what()).find("unknown parameter 'nonsense'"), std::string::npos)
          << x.what();
    }
  }
  // Where there is no former space, the current one's objection is the error.
  EXPECT_THROW(parseTaskConfig(query, layout::TuningMode::Loop, {}, "layout.b_m=1"), InputError);
  EXPECT_LT(taskDefinition(query, layout::TuningMode::Loop).space.indexOf("layout.b_m"), 0);
  EXPECT_FALSE(formerTaskDefinition(query, layout::TuningMode::Loop).has_value());
  const Network resnet = loadNetwork("resnet18");
  EXPECT_FALSE(formerTaskDefinition(extractTasks(resnet).tasks.front(), layout::TuningMode::Joint));
}

TEST(Network, BadFilesNameTheLayerAndField) {
  EXPECT_NE(
      errorOf(around(R"({"name": "c", "op": "conv3d", "input": "x"})")).find("unknown op 'conv3d'"),
      std::string::npos);
  EXPECT_NE(errorOf(around(R"({"name": "c", "op": "conv2d", "input": "x", "kernel": 3})"))
                .find("layer 'c' (conv2d): field 'out_channels' is missing"),
            std::string::npos);
  EXPECT_NE(errorOf(around(R"({"name": "c", "op": "relu", "input": "x", "kernel": 3})"))
                .find("unknown field 'kernel'"),
            std::string::npos);
  EXPECT_NE(errorOf(around(R"({"name": "c", "op": "relu", "input": "y"})"))
                .find("reads 'y', which is neither a network input nor an earlier layer"),
            std::string::npos);
  EXPECT_NE(errorOf(around(R"({"name": "p", "op": "max_pool", "input": "x", "kernel": 2},
                              {"name": "a", "op": "add", "inputs": ["x", "p"]})"))
                .find("layer 'a' (add): adds tensors of different shapes: 1x8x16x16 and 1x8x8x8"),
            std::string::npos);
  EXPECT_NE(errorOf(around(R"({"name": "c", "op": "conv2d", "input": "x", "out_channels": 4,
                              "kernel": 19})"))
                .find("kernel does not fit"),
            std::string::npos);
  EXPECT_NE(errorOf(around(R"({"name": "c", "op": "conv2d", "input": "x", "out_channels": 6,
                              "kernel": 3, "groups": 4})"))
                .find("groups 4 must divide"),
            std::string::npos);
  EXPECT_NE(errorOf(around(R"({"name": "d", "op": "dense", "input": "x", "units": 10},
                              {"name": "m", "op": "matmul", "inputs": ["d", "d"]})"))
                .find("expects two rank-2 inputs"),
            std::string::npos);
  EXPECT_NE(errorOf(around(R"({"name": "r", "op": "reshape", "input": "x", "shape": [3, -1]})"))
                .find("cannot reshape 1x8x16x16"),
            std::string::npos);
  EXPECT_NE(errorOf(around(R"({"name": "r", "op": "relu", "input": "x", "stride": "width"})"))
                .find("unknown field 'stride'"),
            std::string::npos);
  EXPECT_NE(errorOf(around(R"({"name": "c", "op": "conv2d", "input": "x", "out_channels": "width",
                              "kernel": 3})"))
                .find("names param 'width'"),
            std::string::npos);
  EXPECT_NE(errorOf(around(R"({"name": "r", "op": "relu", "input": "x"})"), {{"seq", 4}})
                .find("has no param 'seq' (params: batch)"),
            std::string::npos);
  EXPECT_NE(errorOf(around(R"({"name": "x", "op": "relu", "input": "x"})"))
                .find("its name is already taken"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"name": "t", "inputs": [{"name": "x", "shape": [2]}], "layers": []})")
                .find("no layers"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"name": "t", "inputs": [{"name": "x", "shape": [2]}], "output": "x",
                      "layers": [{"name": "r", "op": "relu", "input": "x"}]})")
                .find("output 'x' is an input of the network: no layer computes it"),
            std::string::npos);
  EXPECT_THROW(loadNetwork("no_such_network"), InputError);
  EXPECT_THROW(parseParamOverride("batch"), InputError);
  EXPECT_THROW(parseParamOverride("batch=two"), InputError);
  EXPECT_EQ(parseParamOverride("batch=8"), (std::pair<std::string, std::int64_t>{"batch", 8}));
  EXPECT_NE(networkFromTextError("{bad").find("test.json: not valid JSON"), std::string::npos);
  // nlohmann's own text was passed on whole ("[json.exception.parse_error.101] parse error at line
  // 1, column 1: ..."), and an empty file read as a syntax error.
  EXPECT_EQ(networkFromTextError(" \n"), "test.json: the file is empty (expected JSON)");
  EXPECT_EQ(networkFromTextError(R"({"name": 1e400})"),
            "test.json: not valid JSON: number overflow parsing '1e400'");
  EXPECT_EQ(networkFromTextError("{\"name\": ").find("[json.exception"), std::string::npos);
  EXPECT_NE(networkFromTextError("{\"name\": ").find("(the file ends early: truncated?)"),
            std::string::npos)
      << networkFromTextError("{\"name\": ");
}

// A layer whose output reaches no output is refused by name: the docs' tiny network with its pool
// reading the image was accepted, its dead convolution tuned as 98% of the weight and computed in
// every pass; a batch_norm nobody read ran as a fixed kernel.
TEST(Network, ALayerNobodyReadsIsRefusedByName) {
  const std::string tiny =
      R"({"name": "tiny", "inputs": [{"name": "image", "shape": [1, 3, 32, 32]}],
    "layers": [
      {"name": "conv", "op": "conv2d", "input": "image", "out_channels": 16, "kernel": 3,
       "padding": 1, "bias": true},
      {"name": "relu", "op": "relu", "input": "conv"},
      {"name": "pool", "op": "max_pool", "input": "image", "kernel": 2},
      {"name": "flat", "op": "flatten", "input": "pool"},
      {"name": "fc", "op": "dense", "input": "flat", "units": 10}]})";
  EXPECT_EQ(errorOf(tiny),
            "test.json: layer 'relu' (relu) is read by no layer and is not the output ('fc'): a "
            "typo in an input name?");
  const std::string norm = R"({"name": "n", "inputs": [{"name": "x", "shape": [1, 3, 8, 8]}],
    "output": "r", "layers": [
      {"name": "c", "op": "conv2d", "input": "x", "out_channels": 4, "kernel": 1},
      {"name": "bn", "op": "batch_norm", "input": "c"},
      {"name": "r", "op": "relu", "input": "c"}]})";
  EXPECT_NE(errorOf(norm).find("layer 'bn' (batch_norm) is read by no layer"), std::string::npos)
      << errorOf(norm);
  // Unfolded, the norm is named as it is.
  try {
    requireEveryLayerRead(networkFromText(norm, "n.json", {}, /*foldNorms=*/false), "n.json");
    ADD_FAILURE() << "the unread norm was let in";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("layer 'bn' (batch_norm) is read by no layer"),
              std::string::npos)
        << e.what();
  }
  // Only a new load refuses: a network run stored before the check (its text kept with it) must
  // still read, so it shows, resumes, exports and restores from its archive.
  EXPECT_EQ(networkFromText(tiny, "stored").layers.size(), 5u);
  EXPECT_NO_THROW(networkFromText(norm, "stored"));
  // An output named before the end leaves the layers after it unread.
  EXPECT_NE(errorOf(around(R"({"name": "a", "op": "relu", "input": "x"},
                              {"name": "b", "op": "relu", "input": "a"})")
                        .insert(1, R"("output": "a", )"))
                .find("layer 'b' (relu) is read by no layer and is not the output ('a')"),
            std::string::npos);
}

// What a user's walk met: an empty name (output began ": optional text"), a directory read as a
// file ("not valid JSON ... unexpected end of input"), and a file named like a preset in the
// current folder silently shadowed by the preset.
TEST(Network, EmptyNamesDirectoriesAndPresetNamedFilesAreSaidPlainly) {
  EXPECT_NE(errorOf(R"({"name": "", "inputs": [{"name": "x", "shape": [2]}],
                      "layers": [{"name": "r", "op": "relu", "input": "x"}]})")
                .find("test.json: field 'name' must be a non-empty string, got \"\""),
            std::string::npos);
  // A field of another type was said to be missing.
  EXPECT_NE(errorOf(R"({"name": 5, "inputs": [{"name": "x", "shape": [2]}],
                      "layers": [{"name": "r", "op": "relu", "input": "x"}]})")
                .find("test.json: field 'name' must be a non-empty string, got 5"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"name": "n", "inputs": [{"name": "x", "shape": [2]}], "layers": {}})")
                .find("test.json: field 'layers' must be an array of layers, got {}"),
            std::string::npos);
  EXPECT_NE(errorOf(R"({"name": "n", "inputs": [{"name": "x", "shape": [2]}]})")
                .find("test.json: field 'layers' is missing (an array of layers)"),
            std::string::npos);
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("opevo-net-names-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto errorOfText = [](const std::string& what) {
    try {
      networkText(what);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(errorOfText(dir.string()), dir.string() + ": is a directory, not a network file");
  const std::filesystem::path before = std::filesystem::current_path();
  std::filesystem::current_path(dir);
  std::ofstream("alexnet") << "{}";
  EXPECT_EQ(errorOfText("alexnet"),
            "'alexnet' names a preset and a file in this folder: give ./alexnet for the file (or "
            "rename it to use the preset)");
  EXPECT_EQ(networkText("./alexnet"), "{}");
  std::filesystem::current_path(before);
  std::filesystem::remove_all(dir);
  EXPECT_EQ(errorOfText("alexnet"), "");
}

// Sizes a kernel cannot index or a machine cannot allocate, and windows that cannot fit, are
// refused by name: they crashed (a scalar input), wrapped to a small network (int64 overflow),
// or failed only when a trial allocated them.
TEST(Network, ImpossibleSizesAreRefusedByName) {
  const auto refused = [](const std::string& text, const std::string& what) {
    const std::string e = errorOf(text);
    EXPECT_NE(e.find(what), std::string::npos) << "'" << e << "' lacks '" << what << "'";
  };
  refused(around(R"({"name": "r", "op": "relu", "input": "x"})", "[]"),
          "input 'x' has shape scalar (it needs one dimension or more)");
  refused(around(R"({"name": "r", "op": "relu", "input": "x"})",
                 "[4294967296, 4294967296, 4294967296, 4]"),
          "every dimension must be from 1 to 2147483647");
  refused(around(R"({"name": "r", "op": "relu", "input": "x"})", "[65536, 65536, 2]"),
          "holds 8.59e+09 elements");
  refused(around(R"({"name": "c", "op": "conv2d", "input": "x",
                     "out_channels": 9223372036854775807, "kernel": 1})"),
          "field 'out_channels' 9223372036854775807 is larger than 2147483647");
  refused(around(R"({"name": "c", "op": "conv2d", "input": "x", "out_channels": 8, "kernel": 1,
                     "padding": 4611686018427387904})"),
          "field 'padding' 4611686018427387904 is larger");
  refused(around(R"({"name": "d", "op": "dense", "input": "x", "units": 100000})", "[1, 100000]"),
          "layer 'd' (dense): its weight 100000x100000 holds 1e+10 elements");
  refused(around(R"({"name": "r", "op": "reshape", "input": "x",
                     "shape": [2147483647, 2147483647, 2147483647, -1]})"),
          "field 'shape' 2147483647x2147483647x2147483647x-1 holds");
  // A window larger than its input, even with a stride long enough that the (negative) span
  // truncated to one output.
  refused(around(R"({"name": "p", "op": "max_pool", "input": "x", "kernel": 20})"),
          "the 20x20 window does not fit the 1x8x16x16 input");
  refused(around(R"({"name": "c", "op": "conv2d", "input": "x", "out_channels": 4, "kernel": 20,
                     "stride": 20})"),
          "the 20x20 kernel does not fit the 1x8x16x16 input");
  // The shape said is the input's, and its padded size beside it (it said "the padded 1x8x16x16
  // input", the size before padding).
  refused(around(R"({"name": "c", "op": "conv2d", "input": "x", "out_channels": 4, "kernel": 19,
                     "padding": 1})"),
          "the 19x19 kernel does not fit the 1x8x16x16 input padded to 18x18");
}

TEST(Network, FusionStopsAtASecondReaderAndAtTheOutput) {
  // d is read twice (relu and the add): nothing fuses into d; the relu's add fuses into nothing
  // since relu is not complex; the last dense is the output, so no epilogue follows it.
  const Network n = networkFromJson(json::parse(R"({"name": "t", "inputs": [{"name": "x",
      "shape": [4, 16]}], "layers": [
        {"name": "d", "op": "dense", "input": "x", "units": 16, "bias": false},
        {"name": "r", "op": "relu", "input": "d"},
        {"name": "a", "op": "add", "inputs": ["r", "d"]},
        {"name": "e", "op": "dense", "input": "a", "units": 8}]})"),
                                    "t");
  const TaskGraph g = extractTasks(n);
  ASSERT_EQ(g.tasks.size(), 2u);
  EXPECT_TRUE(g.tasks[0].op.epilogue.empty());
  EXPECT_EQ(g.tasks[1].op.epilogue, (Epilogue{{EpilogueKind::Bias, 1}}));
  EXPECT_EQ(g.fixed.size(), 2u);  // r and a
}

TEST(Network, ABiasOnAnotherAxisThanTheKernelsIsNotFused) {
  // bias_add on a rank-4 tensor runs along axis 1; a dense layer's kernel adds along the last.
  const Network n = networkFromJson(json::parse(R"({"name": "t", "inputs": [{"name": "x",
      "shape": [1, 2, 3, 4]}], "layers": [
        {"name": "d", "op": "dense", "input": "x", "units": 4, "bias": false},
        {"name": "b", "op": "bias_add", "input": "d"}]})"),
                                    "t");
  const TaskGraph g = extractTasks(n);
  ASSERT_EQ(g.tasks.size(), 1u);
  EXPECT_TRUE(g.tasks[0].op.epilogue.empty());
  ASSERT_EQ(g.fixed.size(), 1u);
  EXPECT_EQ(g.fixed[0].layer, "b");
}

TEST(Network, ScalesThatDifferInTheirLastDigitsAreTwoTasks) {
  const Network n = networkFromJson(json::parse(R"({"name": "t", "inputs": [{"name": "x",
      "shape": [2, 4, 4]}], "layers": [
        {"name": "m1", "op": "batch_matmul", "inputs": ["x", "x"]},
        {"name": "s1", "op": "scale", "input": "m1", "factor": 0.123456789},
        {"name": "m2", "op": "batch_matmul", "inputs": ["s1", "x"]},
        {"name": "s2", "op": "scale", "input": "m2", "factor": 0.123456788}]})"),
                                    "t");
  EXPECT_EQ(extractTasks(n).tasks.size(), 2u);
}

TEST(Network, EveryPresetTaskHasAnUntunedConfigurationInItsSpace) {
  for (const NetworkPreset& p : networkPresets())
    for (const Task& t : extractTasks(loadNetwork(p.name)).tasks) {
      const SearchSpace space = defaultSpace(t.op);
      const Config c = untunedConfig(space);
      EXPECT_TRUE(space.contains(c) && space.satisfies(c)) << t.name << ": " << space.format(c);
      EXPECT_EQ(threadsPerBlock(t.op, space, c), 1) << t.name;
    }
}

TEST(Network, OperatorJsonCarriesGroupsAndEpilogue) {
  OperatorSpec op = operatorOf(loadNetwork("resnet18"), *loadNetwork("resnet18").find("conv1"));
  op.epilogue = {{EpilogueKind::Bias, 1}, {EpilogueKind::Scale, 0.5}, {EpilogueKind::Relu, 1}};
  const json j = operatorToJson(op);
  const OperatorSpec back = operatorFromJson(j, "round trip");
  EXPECT_EQ(back.epilogue, op.epilogue);
  EXPECT_EQ(back.describe(), op.describe());

  json grouped = j;
  grouped["shape"]["groups"] = 3;
  grouped["shape"]["out_channels"] = 63;
  EXPECT_EQ(operatorFromJson(grouped, "g").groups, 3);
  grouped["epilogue"] = json::array({"sigmoid"});
  EXPECT_THROW(operatorFromJson(grouped, "g"), InputError);
}

// One rule for the command line and the window: the window read 0.002 for a 0.00156 ms task and
// "0.00 ms end to end" for a tiny network.
TEST(Network, LatenciesKeepThreeSignificantDigitsBelowATenthOfAMillisecond) {
  EXPECT_EQ(msText(10.22076), "10.221");
  EXPECT_EQ(msText(0.1), "0.100");
  EXPECT_EQ(msText(0.063014), "0.063");
  EXPECT_EQ(msText(0.00156), "0.00156");
  EXPECT_EQ(msText(0), "0.000");
  // Weights are counts: JSON writes 2, not 2.0.
  const TaskGraph g = extractTasks(loadNetwork("resnet18"));
  for (const Task& t : g.tasks) EXPECT_EQ(t.weight(), static_cast<double>(t.weightCount()));
}

}  // namespace
}  // namespace opevo::net
