// ReLU6 (min(max(x, 0), 6), MobileNetV2's activation): the layer, its fusion into a task's
// epilogue, its name in operator files, and its fixed kernel on the CPU and, emulated, on CUDA.
// The fused kernels are checked against the host reference with the other epilogues
// (codegen_test.cpp, layout_gpu_codegen_test.cpp) and the network against libtorch
// (tests/integration/cli_net_relu6_test.cpp).

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "codegen_test_util.h"
#include "common/error.h"
#include "gpu_emulation.h"
#include "net/fixed_layer_code.h"
#include "net/network_json.h"
#include "net/tasks.h"
#include "ops/operator_json.h"
#include "ops/presets.h"

namespace opevo::test {
namespace {

const std::string kRelu6Net = std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_relu6.json";

const net::Task* findTask(const net::TaskGraph& g, const std::string& name) {
  for (const net::Task& t : g.tasks)
    if (t.name == name) return &t;
  return nullptr;
}

TEST(Relu6, IsAnEpilogueStepOfOperatorFiles) {
  EXPECT_EQ(epilogueKindName(EpilogueKind::Relu6), "relu6");
  const Epilogue e{{EpilogueKind::Bias, 1}, {EpilogueKind::Relu6, 1}};
  EXPECT_EQ(describeEpilogue(e), " +bias +relu6");
  EXPECT_EQ(epilogueToJson(e), nlohmann::json::parse(R"(["bias", "relu6"])"));
  EXPECT_EQ(epilogueFromJson(epilogueToJson(e), "t"), e);
  EXPECT_DOUBLE_EQ(epilogueFlopsPerElement(e), 3);  // the bias, and relu6's max and min
  try {
    epilogueFromJson(nlohmann::json::parse(R"(["relu7"])"), "op.json");
    FAIL() << "relu7 was read";
  } catch (const InputError& err) {
    EXPECT_NE(std::string(err.what()).find("\"relu6\""), std::string::npos) << err.what();
  }
}

// In a network, relu6 joins the task before it as relu does (after a folded norm, a depthwise
// convolution, a scale, a dense layer), and runs as a fixed kernel where no task can take it.
TEST(Relu6, FusesIntoTheTaskBeforeItElseRunsAlone) {
  const net::Network n = net::loadNetwork(kRelu6Net);
  EXPECT_EQ(n.find("c1.relu6")->kind, net::LayerKind::Relu6);
  EXPECT_EQ(n.shapeOf("pool.relu6"), (net::Shape{2, 32, 3, 3}));
  const net::TaskGraph g = net::extractTasks(n);
  ASSERT_EQ(g.tasks.size(), 6u);
  const Epilogue biasRelu6{{EpilogueKind::Bias, 1}, {EpilogueKind::Relu6, 1}};
  EXPECT_EQ(findTask(g, "c1")->op.epilogue, biasRelu6);
  EXPECT_EQ(findTask(g, "dw")->op.epilogue, biasRelu6);
  EXPECT_EQ(findTask(g, "dw")->op.groups, 16);
  EXPECT_EQ(findTask(g, "pw")->op.epilogue,
            (Epilogue{{EpilogueKind::Bias, 1}, {EpilogueKind::Add, 1}}));
  const Epilogue scaled{
      {EpilogueKind::Bias, 1}, {EpilogueKind::Scale, 4}, {EpilogueKind::Relu6, 1}};
  EXPECT_EQ(findTask(g, "ex")->op.epilogue, scaled);
  EXPECT_EQ(
      findTask(g, "fc1")->op.epilogue,
      (Epilogue{{EpilogueKind::Bias, 1}, {EpilogueKind::Scale, 8}, {EpilogueKind::Relu6, 1}}));
  std::vector<std::string> fixed;
  for (const net::FixedLayer& f : g.fixed)
    if (!f.view) fixed.push_back(f.layer);
  EXPECT_EQ(fixed, (std::vector<std::string>{"pool", "pool.scale", "pool.relu6", "gap"}));
  // Two operations per element, as its epilogue step counts them.
  EXPECT_DOUBLE_EQ(n.flops(*n.find("pool.relu6")), 2.0 * 2 * 32 * 3 * 3);
}

// Values around and beyond both edges, the edges themselves, and tiny ones.
std::vector<float> edgeValues(std::size_t count) {
  const float edges[] = {0.0f, -0.0f, 6.0f, 5.9999995f, 6.0000005f, 1e-30f, -1e-30f, -6.0f};
  std::vector<float> v(count);
  for (std::size_t i = 0; i < count; ++i)
    v[i] = i < std::size(edges) ? edges[i] : -10.0f + 20.0f * float(i) / float(count);
  return v;
}

void expectClamped(const std::vector<float>& in, const std::vector<float>& out) {
  ASSERT_EQ(in.size(), out.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    const float want = in[i] < 0.0f ? 0.0f : in[i] > 6.0f ? 6.0f : in[i];
    ASSERT_EQ(out[i], want) << "relu6(" << in[i] << ")";
  }
}

// The unfused layer's kernel clamps exactly on the CPU and, emulated, on CUDA.
TEST(Relu6, FixedKernelClampsOnTheCpuAndOnCuda) {
  const net::Network n = net::loadNetwork(kRelu6Net);
  const net::Layer& relu6 = *n.find("pool.relu6");
  const std::vector<float> in = edgeValues(std::size_t(net::elements(relu6.shape)));
  const float* inputs[] = {in.data()};

  const std::string cpu = net::fixedLayerCpuSource(n, relu6, "relu6_cpu");
  LoadedObject cpuSo(cpu, {"-O3", "-march=native", "-fopenmp", "-shared", "-fPIC"});
  ASSERT_TRUE(cpuSo.ok()) << cpuSo.result().log << cpu;
  using FixedFn = void (*)(const float* const*, float*, const float* const*);
  std::vector<float> out(in.size(), std::nanf(""));
  cpuSo.symbol<FixedFn>("relu6_cpu")(inputs, out.data(), nullptr);
  expectClamped(in, out);

  const net::FixedGpuKernel gpu =
      net::fixedLayerGpuKernel(n, relu6, "relu6_gpu", codegen::Backend::Cuda);
  EXPECT_NE(gpu.source.find("fminf(fmaxf("), std::string::npos) << gpu.source;
  LoadedObject gpuSo(emulationHeader() + emulatedFixedKernel(gpu.source, "relu6_gpu", gpu.launch),
                     {"-O1", "-std=c++20", "-pthread", "-shared", "-fPIC"});
  ASSERT_TRUE(gpuSo.ok()) << gpuSo.result().log;
  std::fill(out.begin(), out.end(), std::nanf(""));
  gpuSo.symbol<FixedFn>("emu_relu6_gpu")(inputs, out.data(), nullptr);
  expectClamped(in, out);
}

// A fused relu6 is a clamp on both sides. Built with floating-point traps kept, GCC compiled it
// as a compare and a branch per output, so a kernel's time followed the signs of its outputs:
// MobileNetV2's depthwise features.8.conv.1.0 at batch 4 (start configuration) ran 0.13 ms on
// outputs of one sign and 0.90 ms on random ones, which is what the tuner's operands give, so its
// trials ranked kernels by branch misses (cpu_compiler.h). With the kernels' flags its time is
// the same either way. A ratio within one run, the two cases in turns: the gap it guards is 6x.
TEST(Relu6, AFusedKernelTakesAsLongWhateverTheSignsOfItsOutputs) {
  const OperatorDefinition def = operatorDefinitionFromJson(
      nlohmann::json::parse(R"({"kind": "conv2d", "name": "dw", "mode": "joint",
        "epilogue": ["bias", "relu6"], "shape": {"batch": 4, "in_channels": 384,
        "out_channels": 384, "groups": 384, "height": 14, "width": 14, "kernel_h": 3,
        "kernel_w": 3, "stride": 1, "pad": 1}})"),
      "dw");
  const Config start = untunedConfig(def.space);
  const std::string source =
      codegen::generateKernel(def.op, def.space, start, codegen::Backend::Cpu, {"dw"}).source;
  LoadedObject so(source, CpuCompilerOptions::sharedLibraryFlags());
  ASSERT_TRUE(so.ok()) << so.result().log;
  using SizeFn = long long (*)(int);
  const auto size = so.symbol<SizeFn>("dw_packed_size");
  // The packed operands drawn directly (padding included): the values, not the output, matter.
  std::vector<float> a(std::size_t(size(0))), b(std::size_t(size(1))), c(std::size_t(size(2)));
  const std::vector<float> bias(384, 0.0f);
  Rng rng(3);
  for (float& x : b) x = float(rng.uniform());
  std::vector<float> oneSign(a.size()), mixed(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    oneSign[i] = float(rng.uniform());
    mixed[i] = float(rng.uniform() * 2 - 1);
  }
  const auto kernel = so.symbol<KernelFn>("dw");
  auto time = [&](const std::vector<float>& in) {
    const auto start = std::chrono::steady_clock::now();
    kernel(in.data(), b.data(), c.data(), bias.data(), nullptr);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  for (int i = 0; i < 5; ++i) time(oneSign), time(mixed);
  std::vector<double> one, both;
  for (int i = 0; i < 41; ++i) {
    one.push_back(time(oneSign));
    both.push_back(time(mixed));
  }
  std::nth_element(one.begin(), one.begin() + 20, one.end());
  std::nth_element(both.begin(), both.begin() + 20, both.end());
  const std::size_t zeros = std::size_t(std::count(c.begin(), c.end(), 0.0f));
  EXPECT_GT(zeros, c.size() / 4) << "the mixed operands' outputs are not of both signs";
  std::printf("median %.3f ms on outputs of one sign, %.3f ms on both\n", one[20] * 1e3,
              both[20] * 1e3);
  EXPECT_LT(both[20], 2 * one[20]) << "the clamp's time follows the data";
}

}  // namespace
}  // namespace opevo::test
