// The matrix-vector template: its space, its CPU kernels run, its CUDA kernels emulated on CPU
// threads (shuffles and the shared-memory meeting of K's parts included), compiled by NVRTC and
// hiprtc where they are installed.

#include <gtest/gtest.h>

#include "codegen_test_util.h"
#include "common/error.h"
#include "cuda/nvrtc_compiler.h"
#include "gpu_emulation.h"
#include "hip/hiprtc_compiler.h"
#include "ops/matvec_space.h"
#include "ops/operator_json.h"

namespace opevo::test {
namespace {

using codegen::Backend;

OperatorSpec dense(std::int64_t rows, std::int64_t in, std::int64_t out) {
  OperatorSpec op = smallMatMul(rows, out, in);
  op.name = "dense";
  op.transB = true;
  op.epilogue = {{EpilogueKind::Bias, 1}, {EpilogueKind::Relu, 1}};
  return op;
}

SpaceTarget targetOf(Backend backend) {
  return backend == Backend::Cpu ? SpaceTarget::MatVec : SpaceTarget::MatVecGpu;
}

void expectMatches(const OperatorSpec& op, const std::vector<Config>& configs, Backend backend) {
  const SearchSpace space = defaultSpace(op, targetOf(backend));
  const bool cpu = backend == Backend::Cpu;
  std::string source = cpu ? "" : emulationHeader();
  std::vector<std::string> entries;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    ASSERT_TRUE(space.satisfies(configs[i])) << space.format(configs[i]);
    entries.push_back("mv_" + std::to_string(i));
    const auto k = codegen::generateKernel(op, space, configs[i], backend, {entries.back()});
    source += cpu ? k.source + "\n" : emulatedKernel(k, 2);
  }
  LoadedObject so(
      source, cpu ? std::vector<std::string>{"-O3", "-march=native", "-fopenmp", "-shared", "-fPIC"}
                  : std::vector<std::string>{"-O1", "-std=c++20", "-pthread", "-shared", "-fPIC"});
  ASSERT_TRUE(so.ok()) << so.result().log;
  const TestOperands x = randomOperands(op, 5);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    std::vector<float> c(x.reference.size(), std::nanf(""));
    so.symbol<KernelFn>((cpu ? "" : "emu_") + entries[i])(x.a.data(), x.b.data(), c.data(),
                                                          x.biasData(), x.residualData());
    EXPECT_EQ(firstMismatch(c, x.reference), -1) << space.format(configs[i]);
  }
}

std::vector<Config> someConfigs(const OperatorSpec& op, Backend backend, int count,
                                std::uint64_t seed, const std::vector<std::string>& fixed) {
  const SearchSpace space = defaultSpace(op, targetOf(backend));
  std::vector<Config> configs = randomConfigs(space, count, seed, [&](const Config& c) {
    return threadsPerBlock(op, space, c) <= 64;  // quick to emulate
  });
  configs.push_back(*space.startPoint());
  for (const std::string& text : fixed) configs.push_back(space.parse(text));
  return configs;
}

TEST(MatVecSpace, TakesFewRowsOfAWithTransposedBAndNamesWhatItCannot) {
  EXPECT_TRUE(matvecApplies(preset("alexnet_fc6_b1")));
  EXPECT_FALSE(matvecApplies(preset("alexnet_fc6_b128")));
  EXPECT_FALSE(matvecApplies(preset("C2")));
  OperatorSpec plainB = dense(1, 256, 64);
  plainB.transB = false;
  for (const auto& [op, why] :
       std::vector<std::pair<OperatorSpec, std::string>>{{plainB, "stored k x m"},
                                                         {dense(17, 256, 64), "17 rows"},
                                                         {dense(1, 16, 64), "K = 16"},
                                                         {preset("C2"), "not a MatMul"}}) {
    try {
      defaultSpace(op, SpaceTarget::MatVec);
      ADD_FAILURE() << why;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  }
}

TEST(MatVecSpace, EveryConfigurationKeepsToTheDeviceAndItsStartPointIsOneWarpAColumn) {
  const OperatorSpec op = preset("alexnet_fc6_b1");
  const SearchSpace space = defaultSpace(op, SpaceTarget::MatVecGpu);
  EXPECT_TRUE(isMatVecSpace(space));
  ASSERT_TRUE(space.startPoint());
  EXPECT_EQ(space.format(*space.startPoint()),
            "tile_m=1024,4,1; vector=4; unroll=2; lanes=32; k_split=1");
  EXPECT_EQ(untunedConfig(space), *space.startPoint());
  // The common space (CPU runs) has neither GPU parameter, and its start point is the GPU one's
  // with them at their values when absent.
  const OperatorDefinition gpu{op, space, {}, layout::TuningMode::Loop, SpaceTarget::MatVecGpu};
  const SearchSpace common = defaultSpace(op, SpaceTarget::MatVec);
  EXPECT_TRUE(isMatVecSpace(common));
  EXPECT_LT(common.indexOf("lanes"), 0);
  EXPECT_EQ(common.format(*common.startPoint()), "tile_m=1024,4,1; vector=4; unroll=2");
  EXPECT_EQ(commonConfig(gpu, *space.startPoint()), *common.startPoint());
  EXPECT_EQ(space.parse(common.format(*common.startPoint())), *space.startPoint());
  std::string left;
  commonConfig(gpu, space.parse("tile_m=1024,4,1; vector=4; unroll=2; lanes=8; k_split=4"), &left);
  EXPECT_EQ(left, "lanes=8; k_split=4");
  for (const Config& c : randomConfigs(space, 200, 9)) {
    const std::int64_t threads = threadsPerBlock(op, space, c);
    EXPECT_EQ(threads % 32, 0);
    EXPECT_LE(threads, 1024);
    const auto k = codegen::generateKernel(op, space, c, Backend::Cuda);
    EXPECT_EQ(k.launch.block.volume(), threads);
    EXPECT_LE(k.launch.sharedBytes, 48 * 1024);
    EXPECT_LE(k.accumulators, 64);
  }
  // A shape the start point's float4 loads and 4 groups do not fit still has one.
  const OperatorSpec odd = dense(3, 99, 35);
  for (const SpaceTarget target : {SpaceTarget::MatVec, SpaceTarget::MatVecGpu}) {
    const SearchSpace s = defaultSpace(odd, target);
    ASSERT_TRUE(s.startPoint());
    EXPECT_TRUE(s.satisfies(*s.startPoint()));
  }
  // The CPU kernel takes no GPU parameters but their values when absent.
  EXPECT_THROW(
      codegen::generateKernel(
          op, space, space.parse("tile_m=1024,4,1; vector=4; unroll=2; lanes=8; k_split=4"),
          Backend::Cpu),
      InputError);
  EXPECT_NO_THROW(codegen::generateKernel(op, space, *space.startPoint(), Backend::Cpu));
}

// An operator file cannot change the template's values: the constraints hold the template's.
TEST(MatVecSpace, AnOperatorFileCannotOverrideItsParameters) {
  const nlohmann::json j = nlohmann::json::parse(R"({"name": "fc", "kind": "matmul",
      "target": "matvec-gpu", "shape": {"n": 1, "k": 9216, "m": 4096, "trans_b": true},
      "space": {"lanes": "discrete:32"}})");
  try {
    operatorDefinitionFromJson(j, "fc.json");
    ADD_FAILURE() << "an override of lanes was taken";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("fixed by the matrix-vector template"), std::string::npos)
        << e.what();
  }
}

TEST(MatVecCpu, KernelsMatchTheReference) {
  // One row (a dense layer at batch 1), 5 rows with A transposed, and K that leaves a tail.
  expectMatches(dense(1, 512, 96), someConfigs(dense(1, 512, 96), Backend::Cpu, 4, 1, {}),
                Backend::Cpu);
  OperatorSpec t = dense(5, 131, 40);
  t.transA = true;
  expectMatches(t, someConfigs(t, Backend::Cpu, 4, 2, {}), Backend::Cpu);
  const OperatorSpec bmm = smallBatchMatMul(3, 2, 24, 64, false, true);
  expectMatches(bmm, someConfigs(bmm, Backend::Cpu, 3, 3, {}), Backend::Cpu);
}

// Every way the CUDA kernel shares K: shuffles of 2 to 32 lanes, parts of K meeting in shared
// memory, float4, float2 and float loads, unrolled passes with a last partial one.
TEST(MatVecEmulatedGpu, KernelsMatchTheReference) {
  const OperatorSpec op = dense(1, 520, 64);
  expectMatches(op,
                someConfigs(op, Backend::Cuda, 3, 4,
                            {"tile_m=8,8,1; lanes=4; k_split=1; vector=4; unroll=8",
                             "tile_m=2,4,8; lanes=8; k_split=1; vector=2; unroll=4",
                             "tile_m=16,2,2; lanes=2; k_split=8; vector=1; unroll=2",
                             "tile_m=64,1,1; lanes=32; k_split=2; vector=4; unroll=1"}),
                Backend::Cuda);
  OperatorSpec t = dense(3, 96, 20);
  t.transA = true;
  t.epilogue.push_back({EpilogueKind::Add, 1});
  expectMatches(t,
                someConfigs(t, Backend::Cuda, 2, 5,
                            {"tile_m=5,2,2; lanes=16; k_split=1; vector=2; unroll=1"}),
                Backend::Cuda);
  const OperatorSpec bmm = smallBatchMatMul(3, 2, 16, 64, false, true);
  expectMatches(bmm,
                someConfigs(bmm, Backend::Cuda, 2, 6,
                            {"tile_m=2,4,2; lanes=4; k_split=2; vector=4; unroll=2"}),
                Backend::Cuda);
}

TEST(MatVecCompilers, NvrtcAndHiprtcTakeTheNetworksDenseLayers) {
  std::string cuda, hip;
  std::vector<std::string> entries;
  for (const char* name : {"alexnet_fc6_b1", "alexnet_fc7_b1", "alexnet_fc8_b1"}) {
    const OperatorSpec op = preset(name);
    const SearchSpace space = defaultSpace(op, SpaceTarget::MatVecGpu);
    std::vector<Config> configs = randomConfigs(space, 2, 7);
    configs.push_back(*space.startPoint());
    for (const Config& c : configs) {
      entries.push_back(std::string(name) + "_" + std::to_string(entries.size()));
      cuda += codegen::generateKernel(op, space, c, Backend::Cuda, {entries.back()}).source;
      hip += codegen::generateKernel(op, space, c, Backend::Hip, {entries.back()}).source;
    }
  }
  const NvrtcCompiler& nvrtc = NvrtcCompiler::shared();
  const HiprtcCompiler& hiprtc = HiprtcCompiler::shared();
  if (!nvrtc.available() && !hiprtc.available())
    GTEST_SKIP() << nvrtc.unavailableReason() << "; " << hiprtc.unavailableReason();
  if (nvrtc.available()) {
    const CompileResult r = nvrtc.compile(cuda, "sm_90");
    ASSERT_TRUE(r.ok) << r.log;
    for (const std::string& e : entries) {
      EXPECT_GT(r.resources.at(e).registers.value_or(0), 0) << e;
      EXPECT_EQ(r.resources.at(e).localBytes.value_or(0), 0) << e;
    }
  }
  if (hiprtc.available()) {
    const CompileResult r = hiprtc.compile(hip, "gfx90a");
    ASSERT_TRUE(r.ok) << r.log;
  }
}

}  // namespace
}  // namespace opevo::test
