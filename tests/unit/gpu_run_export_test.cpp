// A GPU run's best kernel exported for the GPU and for the CPU: its space has the GPU templates'
// split_k and stages, which the CPU template does not read. A stored run (real SQLite file) as
// a CUDA machine would have left it.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "codegen/winograd_transforms.h"
#include "codegen_test_util.h"
#include "common/error.h"
#include "export/host_program.h"
#include "export/kernel_export.h"
#include "ops/operator_json.h"
#include "store/store.h"

namespace opevo {
namespace {

namespace fs = std::filesystem;

struct ScratchDir {
  fs::path path;
  ScratchDir() {
    char pattern[] = "/tmp/opevo-gpu-export-XXXXXX";
    path = mkdtemp(pattern);
  }
  ~ScratchDir() { fs::remove_all(path); }
};

// A finished run of def on `backend` with one successful trial of `config`.
std::int64_t storeRun(Store& store, const OperatorDefinition& def, const std::string& backend,
                      const std::string& device, const std::string& config) {
  RunRecord r;
  r.operatorName = def.op.name;
  r.operatorJson = operatorDefinitionToJson(def).dump();
  r.algorithm = "opevo-m";
  r.settingsJson = "{}";
  r.seed = 1;
  r.backend = backend;
  r.device = device;
  r.budgetJson = R"({"trials":1})";
  r.speedUnit = "TFLOPS";
  TrialRow t;
  t.seq = 1;
  t.config = config;
  t.timesMs = {0.01, 0.01, 0.01};
  t.medianMs = 0.01;
  t.speed = 0.03;
  return store.createRunWithTrials(r, {t});
}

std::int64_t storeCudaRun(Store& store, const std::string& config) {
  const OperatorDefinition def = withSpaceTarget(
      operatorDefinitionFromJson(nlohmann::json::parse(R"({"name": "small_mm", "kind": "matmul",
          "shape": {"n": 32, "k": 96, "m": 48}})"),
                                 "test"),
      SpaceTarget::Gpu);
  return storeRun(store, def, "cuda", "NVIDIA H200 (a record written by this test)", config);
}

TEST(GpuRunExport, SplitKLeavesTheCpuKernelOutWithANote) {
  ScratchDir dir;
  Store store((dir.path / "runs.db").string());
  const std::int64_t id =
      storeCudaRun(store, "tile_n=2,2,2,4; tile_m=2,2,3,4; tile_k=4,3,8; split_k=4; stages=1");

  const KernelPreview gpu = previewBestKernel(store, id);
  EXPECT_EQ(gpu.backend, "cuda");
  EXPECT_NE(gpu.source.find("opevo_kernel_turn[4]"), std::string::npos);

  const KernelPreview cpu = previewBestKernel(store, id, "cpu");
  EXPECT_NE(cpu.source.find("opevo_cpu_kernel"), std::string::npos);
  EXPECT_NE(cpu.source.find("split_k=4 (GPU template parameters) have no CPU counterpart"),
            std::string::npos);

  // The exported CPU package builds and checks itself against plain loops.
  setenv("XDG_CACHE_HOME", (dir.path / "cache").c_str(), 1);
  const ExportResult out = exportRun(store, id, {(dir.path / "cpu").string(), "cpu"});
  ASSERT_TRUE(fs::exists(dir.path / "cpu" / "kernel.cpp"));
  const std::string check =
      "cd '" + (dir.path / "cpu").string() + "' && sh build.sh > log 2>&1 && grep -q PASS log";
  EXPECT_EQ(std::system(check.c_str()), 0) << out.buildCommand;
}

// A configuration tuned on the CPU, whose space knows no GPU limit, exported for CUDA: one that
// would ask a block for more shared memory than any GPU has is refused by name (it was written,
// and failed only at launch in the exported check), and nothing is written.
TEST(GpuRunExport, ACpuConfigurationPastEveryGpusLimitIsRefused) {
  ScratchDir dir;
  Store store((dir.path / "runs.db").string());
  // A block of one thread staging a 1024-deep slab of 32 x 512 floats: 2 MiB of shared memory.
  const std::int64_t id =
      storeRun(store, loadOperator("MM1"), "cpu", "a CPU (a record written by this test)",
               "tile_n=32,2,1,8; tile_m=2,256,1,2; tile_k=1,1,1024");
  EXPECT_EQ(previewBestKernel(store, id).summary.find("launch grid"), std::string::npos)
      << "a CPU kernel's summary has no GPU launch terms";
  try {
    previewBestKernel(store, id, "cuda");
    ADD_FAILURE() << "exported for CUDA";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot launch on a cuda GPU (needs 2162688 bytes of "
                                         "shared memory per block"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(exportRun(store, id, {(dir.path / "cuda").string(), "cuda"}), InputError);
  EXPECT_FALSE(fs::exists(dir.path / "cuda")) << "nothing written";
}

TEST(GpuRunExport, AllOnesNeedNoNote) {
  ScratchDir dir;
  Store store((dir.path / "runs.db").string());
  const std::int64_t id =
      storeCudaRun(store, "tile_n=2,2,2,4; tile_m=2,2,3,4; tile_k=4,3,8; split_k=1; stages=1");
  const KernelPreview cpu = previewBestKernel(store, id, "cpu");
  EXPECT_EQ(cpu.source.find("no CPU counterpart"), std::string::npos);
  EXPECT_NE(cpu.source.find("opevo_cpu_kernel"), std::string::npos);
}

// A Winograd GPU kernel reads its weights transformed: the exported program's host transform,
// built here alone from the program's text, writes what the worker uploads
// (codegen::winogradWeights) for F(4x4, 3x3) and F(4x4, 5x5).
TEST(GpuRunExport, AWinogradKernelsProgramTransformsItsWeightsAsTheWorkerDoes) {
  for (const auto& [kernel, hw] : {std::pair{3, 12}, std::pair{5, 20}}) {
    SCOPED_TRACE(kernel);
    const OperatorSpec op = test::smallConv(2, 6, 8, hw, kernel, 1, kernel / 2);
    const SearchSpace space = defaultSpace(op, SpaceTarget::Winograd);
    const codegen::GeneratedKernel k =
        codegen::generateKernel(op, space, untunedConfig(space), codegen::Backend::Cuda);
    ASSERT_TRUE(k.packedWeights);
    const std::string program = hostProgram(op, k, "kernel.cu");
    const std::size_t begin = program.find("static void transform_weights(");
    const std::size_t end = program.find("\n}\n", begin);
    ASSERT_NE(begin, std::string::npos) << program;
    ASSERT_NE(program.find("transform_weights(B.data(), u.data());"), std::string::npos);
    const std::string function = program.substr(begin, end + 3 - begin);
    test::LoadedObject so(function +
                              "extern \"C\" void run(const float* B, float* U) { "
                              "transform_weights(B, U); }\n",
                          {"-O1", "-shared", "-fPIC"});
    ASSERT_TRUE(so.ok()) << so.result().log;
    const std::vector<float> b =
        test::randomData(op.outChannels * op.inChannels * kernel * kernel, 5);
    const std::vector<float> want = codegen::winogradWeights(op, b);
    std::vector<float> got(want.size(), std::nanf(""));
    so.symbol<void (*)(const float*, float*)>("run")(b.data(), got.data());
    for (std::size_t i = 0; i < want.size(); ++i)
      ASSERT_NEAR(got[i], want[i], 1e-6 * (1 + std::fabs(want[i]))) << "element " << i;
  }
}

}  // namespace
}  // namespace opevo
