// opevo kas search writing to a file, as a log or CI does: plain lines (no carriage returns, no
// padding), the FLOPs share as `kas sample` gives it for the same kernel and seed, and the
// convolution figures every candidate shares.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "kas/share_text.h"
#include "run_process.h"

namespace opevo::test {
namespace {

namespace fs = std::filesystem;

struct Dir {
  fs::path path;
  Dir() {
    char pattern[] = "/tmp/opevo-cli-kas-progress-XXXXXX";
    path = mkdtemp(pattern);
    setenv("XDG_CACHE_HOME", (path / "cache").c_str(), 1);
  }
  ~Dir() { fs::remove_all(path); }
};

bool trainerBuilt() {
  return fs::exists(fs::path(OPEVO_CLI).parent_path() / "opevo-kas-train") &&
         fs::exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz");
}

TEST(CliKasProgress, ASearchIntoAFileWritesPlainLinesAndTheSampledFigures) {
  if (!trainerBuilt()) GTEST_SKIP() << "opevo-kas-train or Fashion-MNIST missing";
  Dir dir;
  const std::string db = (dir.path / "opevo.db").string();
  const std::string network = std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_conv_chain.json";
  // One 16-channel layer to tune, a few hundred images: seconds on 2 cores.
  const ProcessResult r = runProcess(
      OPEVO_CLI,
      {"kas",       "search", "--network",      network, "--candidates",  "2",   "--trials", "2",
       "--epochs",  "1",      "--train-images", "256",   "--test-images", "200", "--batch",  "64",
       "--threads", "1",      "--seed",         "3",     "--db",          db});
  ASSERT_EQ(r.status, 0) << r.err;
  // Standard error is a file here: every progress line a line of its own.
  EXPECT_EQ(r.err.find('\r'), std::string::npos);
  EXPECT_EQ(r.err.find("\033["), std::string::npos);
  std::istringstream lines(r.err);
  int trialLines = 0;
  for (std::string line; std::getline(lines, line);) {
    EXPECT_LT(line.size(), 400u) << line;
    EXPECT_EQ(line.find_last_not_of(' ') + 1, line.size()) << "padded: '" << line << "'";
    trialLines += line.find(": trial ") != std::string::npos;
  }
  EXPECT_GE(trialLines, 2) << r.err;
  EXPECT_NE(r.err.find("convolution: fastest of 5 timings per layer"), std::string::npos) << r.err;

  // kas sample with the search's seed and network lists its kernels with their G and FLOPs share.
  const ProcessResult sample = runProcess(
      OPEVO_CLI, {"kas", "sample", "--network", network, "--count", "2", "--seed", "3", "--json"});
  ASSERT_EQ(sample.status, 0) << sample.err;
  const auto sampled = nlohmann::json::parse(sample.out).at("kernels");
  const ProcessResult report = runProcess(OPEVO_CLI, {"kas", "report", "1", "--db", db, "--json"});
  ASSERT_EQ(report.status, 0) << report.err;
  const auto j = nlohmann::json::parse(report.out);
  const auto& candidates = j.at("candidates");
  ASSERT_EQ(candidates.size(), sampled.size());
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const auto& c = candidates[i];
    const auto& s = sampled[i];
    EXPECT_EQ(c.at("hash"), s.at("hash"));
    EXPECT_EQ(c.at("groups"), s.at("solution").at("groups"));
    EXPECT_NEAR(c.at("flops_ratio").get<double>(), s.at("solution").at("flops_ratio").get<double>(),
                1e-12);
    // The progress line says the share as the report and the window do.
    const std::string said = c.at("hash").get<std::string>() +
                             ": G=" + std::to_string(c.at("groups").get<long long>()) + ", " +
                             kas::shareText(c.at("flops_ratio").get<double>()) + " of the FLOPs";
    EXPECT_NE(r.err.find(said), std::string::npos) << said << "\n" << r.err;
  }
  // Every candidate is divided by the same convolution figure.
  ASSERT_TRUE(j.contains("convolution"));
  const double conv = j.at("convolution").at("ms").get<double>();
  for (const auto& c : candidates) {
    if (c.at("conv_ms").is_null()) continue;  // failed before it was tuned
    EXPECT_DOUBLE_EQ(c.at("conv_ms").get<double>(), conv);
  }
}

}  // namespace
}  // namespace opevo::test
