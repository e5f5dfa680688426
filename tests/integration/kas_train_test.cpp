#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "kas/backbone.h"
#include "kas/kas_json.h"
#include "kas/sampler.h"
#include "run_process.h"

namespace opevo::test {
namespace {

namespace fs = std::filesystem;

#ifdef OPEVO_KAS_TRAIN
const std::string kProgram = OPEVO_KAS_TRAIN;
#else
const std::string kProgram;
#endif
const std::string kFashionMnist = "/usr/share/datasets/fashion-mnist";

class KasTrain : public ::testing::Test {
 protected:
  void SetUp() override {
    if (kProgram.empty())
      GTEST_SKIP() << "opevo-kas-train was not built (it needs libtorch: Debian libtorch-dev)";
    m_dir = fs::temp_directory_path() /
            ("opevo-kas-train-test-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(m_dir);
  }
  void TearDown() override {
    if (!m_dir.empty()) fs::remove_all(m_dir);
  }

  static void needData() {
    if (!fs::exists(kFashionMnist + "/train-images-idx3-ubyte.gz"))
      GTEST_SKIP() << "Fashion-MNIST is not installed at " << kFashionMnist
                   << " (Debian package dataset-fashion-mnist)";
  }

  std::string write(const std::string& name, const std::string& text) {
    const std::string path = (m_dir / name).string();
    std::ofstream(path) << text;
    return path;
  }
  std::string writeKernel(const std::string& name, const kas::MicroDag& dag) {
    return write(name, kas::kernelToJson(dag).dump(2));
  }

  // A short run: few images, one thread (tests share the machine), batch 64.
  static ProcessResult train(std::vector<std::string> args) {
    for (const char* a :
         {"--threads", "1", "--train-images", "384", "--test-images", "200", "--batch", "64"})
      args.emplace_back(a);
    return runProcess(kProgram, args);
  }

  fs::path m_dir;
};

// unfold H, unfold W, fc: the 3x3 convolution itself as a kernel (which takes all of its FLOPs
// and weights: kWholeBudget lets it fit).
const std::vector<std::string> kWholeBudget{"--budget-flops", "1", "--budget-params", "1"};

kas::MicroDag convolutionKernel() {
  kas::MicroDag dag;
  const int h = *dag.add({kas::PrimitiveKind::Unfold, {0}, 1});
  const int w = *dag.add({kas::PrimitiveKind::Unfold, {h}, 3});
  dag.add({kas::PrimitiveKind::FullyConnected, {w}});
  EXPECT_TRUE(dag.substitute({kas::Symbol::X1, kas::Size::of(kas::Symbol::C)}));
  EXPECT_TRUE(dag.complete()) << dag.text();
  return dag;
}

// Sampled kernels the backbone fits, picked greedily for the primitives they add, so a few
// cover most kinds; with the kinds they cover.
std::vector<kas::MicroDag> variedKernels(std::size_t wanted, std::set<std::string>* kinds) {
  const auto targets = kas::backboneTargets();
  const auto sampled = kas::sampleDistinct(3, 60, kas::SamplerOptions{}, [&](const auto& dag) {
    return kas::solveKernel(dag, targets, 0, kas::Budget{}).solution.has_value();
  });
  std::vector<kas::MicroDag> out;
  for (const kas::MicroDag& dag : sampled) {
    std::size_t fresh = 0;
    for (const kas::Node& n : dag.nodes())
      fresh += kinds->insert(std::string(kas::primitiveName(n.kind))).second ? 1 : 0;
    if (fresh > 0 || out.size() < 2) out.push_back(dag);
    if (out.size() == wanted) break;
  }
  return out;
}

TEST(KasBackbone, OffersOneTargetPerStage) {
  const auto targets = kas::backboneTargets();
  ASSERT_EQ(targets.size(), 3u);
  EXPECT_EQ(targets[0].channels, 16);
  EXPECT_EQ(targets[0].height, 28);
  EXPECT_EQ(targets[0].count, 2);  // both convs of stage 1's block
  EXPECT_EQ(targets[1].channels, 32);
  EXPECT_EQ(targets[1].height, 14);
  EXPECT_EQ(targets[2].channels, 64);
  EXPECT_EQ(targets[2].width, 7);
  EXPECT_EQ(targets[2].count, 1);
}

TEST_F(KasTrain, TheTorchModuleOfSampledKernelsMatchesTheInterpreter) {
  std::set<std::string> kinds;
  std::vector<kas::MicroDag> kernels = variedKernels(7, &kinds);
  kernels.push_back(convolutionKernel());
  for (const char* k : {"fc", "unfold", "shift"}) EXPECT_TRUE(kinds.count(k)) << k;
  EXPECT_GE(kinds.size(), 12u) << "the sampled kernels cover few primitives";
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const std::string path = writeKernel(std::to_string(i).append(".json"), kernels[i]);
    std::vector<std::string> args{path, "--check", "--threads", "1"};
    if (i + 1 == kernels.size()) args.insert(args.end(), kWholeBudget.begin(), kWholeBudget.end());
    const auto r = runProcess(kProgram, args);
    ASSERT_EQ(r.status, 0) << kernels[i].text() << r.err << r.out;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_TRUE(j["match"].get<bool>());
    ASSERT_EQ(j["layers"].size(), 3u);
    for (const auto& layer : j["layers"]) EXPECT_LE(layer["relative"].get<double>(), 1e-4);
  }
}

TEST_F(KasTrain, ShortTrainingsOfTheBaselineAndAKernelReportTheirCurves) {
  needData();
  const std::string kernel = writeKernel("conv.json", convolutionKernel());
  for (bool baseline : {true, false}) {
    std::vector<std::string> args{baseline ? "--baseline" : kernel, "--epochs", "1", "--seed", "5"};
    if (!baseline) args.insert(args.end(), kWholeBudget.begin(), kWholeBudget.end());
    const auto r = train(args);
    ASSERT_EQ(r.status, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["baseline"], baseline);
    EXPECT_EQ(j["kernel"], baseline ? nlohmann::json() : nlohmann::json(kernel));
    const double accuracy = j["accuracy"].get<double>();
    EXPECT_GT(accuracy, 0.0);
    EXPECT_LE(accuracy, 1.0);
    EXPECT_EQ(j["curve"], nlohmann::json::array({accuracy}));
    EXPECT_EQ(j["losses"].size(), 1u);
    EXPECT_EQ(j["epochs"], 1);
    EXPECT_EQ(j["epochs_run"], 1);
    EXPECT_FALSE(j["stopped_early"].get<bool>());
    EXPECT_FALSE(j["diverged"].get<bool>());
    EXPECT_EQ(j["train_images"], 384);
    EXPECT_EQ(j["test_images"], 200);
    EXPECT_EQ(j["seed"], 5);
    EXPECT_GT(j["seconds"].get<double>(), 0.0);
    EXPECT_GT(j["kernel_params"].get<std::int64_t>(), 0);
    EXPECT_GT(j["params"].get<std::int64_t>(), j["kernel_params"].get<std::int64_t>());
    if (!baseline) {
      EXPECT_EQ(j["groups"], 1);  // the kernel never groups
    }
  }
}

TEST_F(KasTrain, TheSameSeedGivesTheSameRun) {
  needData();
  const auto a = train({"--baseline", "--epochs", "1", "--seed", "9"});
  const auto b = train({"--baseline", "--epochs", "1", "--seed", "9"});
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(b.status, 0) << b.err;
  const auto ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out);
  EXPECT_EQ(ja["curve"], jb["curve"]);
  EXPECT_EQ(ja["losses"], jb["losses"]);
}

TEST_F(KasTrain, AReferenceCurveOutOfReachStopsTheRunAfterTheFirstEpoch) {
  needData();
  // theta 1: epoch 1 must already match the curve, and nothing reaches 100%.
  const auto stopped =
      train({"--baseline", "--epochs", "2", "--reference-curve", "1.0,1.0", "--theta", "1"});
  ASSERT_EQ(stopped.status, 0) << stopped.err;
  const auto j = nlohmann::json::parse(stopped.out);
  EXPECT_TRUE(j["stopped_early"].get<bool>());
  EXPECT_EQ(j["epochs"], 2);
  EXPECT_EQ(j["epochs_run"], 1);
  EXPECT_EQ(j["curve"].size(), 1u);
  EXPECT_EQ(j["accuracy"], j["curve"][0]);
  EXPECT_NE(stopped.err.find("stopped early"), std::string::npos) << stopped.err;
  // A curve any run beats lets it finish.
  const auto finished = train({"--baseline", "--epochs", "2", "--reference-curve", "0.01,0.01"});
  ASSERT_EQ(finished.status, 0) << finished.err;
  const auto f = nlohmann::json::parse(finished.out);
  EXPECT_FALSE(f["stopped_early"].get<bool>());
  EXPECT_EQ(f["epochs_run"], 2);
  EXPECT_DOUBLE_EQ(kas::pruneThreshold(0.9, 1, 4, 0.5), 0.9 * 0.625);
}

TEST_F(KasTrain, ABadKernelFileOrBudgetIsOneLineNamingTheFile) {
  const std::string bad = write(
      "bad.json",
      R"({"format": "opevo-kas-kernel", "nodes": [{"op": "input"}, {"op": "group", "input": 0, "dim": 1}]})");
  const auto r = runProcess(kProgram, {bad, "--check"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find(bad + ": node 1 (group)"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;

  const std::string notJson = write("broken.json", "{\"nodes\": [");
  const auto broken = runProcess(kProgram, {notJson});
  EXPECT_EQ(broken.status, 2);
  EXPECT_NE(broken.err.find(notJson + ": not valid JSON: "), std::string::npos) << broken.err;

  const std::string conv = writeKernel("conv.json", convolutionKernel());
  const auto tight = runProcess(kProgram, {conv, "--budget-flops", "0.01"});
  EXPECT_EQ(tight.status, 2);
  EXPECT_NE(tight.err.find(conv + ": does not fit"), std::string::npos) << tight.err;

  const auto neither = runProcess(kProgram, {});
  EXPECT_EQ(neither.status, 2);
  EXPECT_NE(neither.err.find("--baseline"), std::string::npos) << neither.err;
}

TEST_F(KasTrain, MissingImagesNameThePathAndTheDebianPackage) {
  const std::string dir = (m_dir / "nowhere").string();
  const auto r = runProcess(kProgram, {"--baseline", "--data", dir, "--threads", "1"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(dir + "/train-images-idx3-ubyte.gz: not found"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("dataset-fashion-mnist"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace opevo::test
