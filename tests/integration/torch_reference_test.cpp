#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "run_process.h"

namespace opevo::test {
namespace {

namespace fs = std::filesystem;

#ifdef OPEVO_TORCH
const std::string kProgram = OPEVO_TORCH;
#else
const std::string kProgram;
#endif

struct Timed {
  nlohmann::json result;
  std::vector<float> output;
};

Timed runTorch(const std::string& network, std::vector<std::string> options) {
  const fs::path out =
      fs::temp_directory_path() / ("opevo-torch-test-" + std::to_string(::getpid()) + ".bin");
  std::vector<std::string> args = {network, "--threads", "2", "--out", out.string()};
  args.insert(args.end(), options.begin(), options.end());
  const ProcessResult r = runProcess(kProgram, args);
  Timed t;
  std::ifstream in(out, std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(in), {}};
  t.output.resize(bytes.size() / sizeof(float));
  std::copy_n(bytes.data(), t.output.size() * sizeof(float),
              reinterpret_cast<char*>(t.output.data()));
  fs::remove(out);
  EXPECT_EQ(r.status, 0) << r.err;
  t.result = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_TRUE(t.result.is_object()) << "opevo-torch printed: " << r.out;
  return t;
}

nlohmann::json timeTorch(const std::string& network, bool defaultMalloc) {
  // Six warm-up passes: the heap grows to its full size over the first few, more of them when
  // the threads contend for glibc's arenas (18 faults a pass after three, under ctest -j2).
  std::vector<std::string> options = {"--warmup", "6", "--runs", "4"};
  if (defaultMalloc) options.emplace_back("--default-malloc");
  return runTorch(network, options).result;
}

// glibc gives freed blocks of 128 KiB and more back to the system, so every eager pass
// page-faulted its activations in again, which made libtorch's ResNet-50 several times slower
// (docs/results/networks.md). The reference keeps freed memory for the next pass. How many
// faults glibc's defaults take depends on the machine (which thread allocates what: 3,500 a
// MobileNetV2 pass on a Zen 5 EPYC with two threads, 27 with one), so that run is reported, not
// held to a figure.
TEST(TorchReference, APassReusesTheMemoryTheLastOneFreed) {
  if (kProgram.empty()) GTEST_SKIP() << "opevo-torch was not built (Debian libtorch-dev)";
  const nlohmann::json kept = timeTorch("mobilenet_v2", false);
  const nlohmann::json glibc = timeTorch("mobilenet_v2", true);
  ASSERT_TRUE(kept.is_object() && glibc.is_object());
  EXPECT_EQ(kept.at("memory"), "kept");
  EXPECT_EQ(glibc.at("memory"), "glibc default");
  EXPECT_LT(kept.at("page_faults_per_pass").get<double>(), 100) << kept.dump();
  std::cout << "glibc's defaults: " << glibc.at("page_faults_per_pass").get<double>()
            << " faults a pass; kept: " << kept.at("page_faults_per_pass").get<double>() << "\n";
}

// The frozen form (TorchScript, torch.jit.freeze and optimize_for_inference) computes what the
// eager pass does: here on MobileNetV2, whose ReLU6 and depthwise convolutions the layer-kind
// network of CliNet.EveryLayerKindMatchesFrozenLibtorch lacks, and whose batch norms freezing
// folds into the convolutions.
TEST(TorchReference, TheFrozenFormComputesWhatTheEagerOneDoes) {
  if (kProgram.empty()) GTEST_SKIP() << "opevo-torch was not built (Debian libtorch-dev)";
  const Timed eager = runTorch("mobilenet_v2", {"--warmup", "1", "--runs", "2"});
  const Timed frozen =
      runTorch("mobilenet_v2", {"--form", "frozen", "--warmup", "1", "--runs", "2"});
  ASSERT_TRUE(eager.result.is_object() && frozen.result.is_object());
  EXPECT_EQ(eager.result.at("form"), "eager");
  EXPECT_EQ(frozen.result.at("form"), "frozen");
  ASSERT_EQ(eager.output.size(), 1000u);
  ASSERT_EQ(frozen.output.size(), eager.output.size());
  double scale = 0, worst = 0;
  for (float v : eager.output) scale = std::max(scale, std::fabs(double(v)));
  for (std::size_t i = 0; i < eager.output.size(); ++i)
    worst = std::max(worst, std::fabs(double(frozen.output[i]) - eager.output[i]));
  EXPECT_GT(scale, 0);
  EXPECT_LT(worst, 1e-4 * scale) << "largest output " << scale;
  std::cout << "eager " << eager.result.at("ms") << " ms, frozen " << frozen.result.at("ms")
            << " ms (prepared in " << frozen.result.at("prepare_seconds") << " s)\n";

  const ProcessResult bad = runProcess(kProgram, {"mobilenet_v2", "--form", "jit", "--out", "x"});
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.err, "opevo-torch: --form: unknown form 'jit' (forms: eager or frozen)\n");
}

}  // namespace
}  // namespace opevo::test
