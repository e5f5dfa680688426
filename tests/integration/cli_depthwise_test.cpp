// A depthwise convolution tuned from the command line: the loop template (a channel at a time)
// says that --mode joint vectorises it, and the joint run measures, verifies and stores kernels of
// the depthwise layout space.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "run_process.h"

namespace opevo::test {
namespace {

namespace fs = std::filesystem;

struct Dir {
  fs::path path;
  Dir() {
    char pattern[] = "/tmp/opevo-depthwise-XXXXXX";
    path = mkdtemp(pattern);
    setenv("XDG_CACHE_HOME", (path / "cache").c_str(), 1);
  }
  ~Dir() { fs::remove_all(path); }
};

constexpr const char* kNote = "--mode joint vectorises it across channels";

TEST(CliDepthwise, TheLoopTemplateNamesJointModeWhichTunesTheLayouts) {
  Dir dir;
  const std::string op = (dir.path / "dw.json").string();
  std::ofstream(op) << R"({"name": "dw32", "kind": "conv2d", "shape": {"batch": 1,
      "in_channels": 32, "height": 14, "width": 14, "out_channels": 32, "kernel_h": 3,
      "kernel_w": 3, "stride": 1, "pad": 1, "groups": 32}, "epilogue": ["bias", "relu"]})";
  const std::string db = (dir.path / "runs.db").string();
  const std::vector<std::string> common = {"--op",          op,  "--backend",      "cpu",
                                           "--trials",      "3", "--db",           db,
                                           "--min-time-ms", "2", "--side-by-side", "0"};
  std::vector<std::string> loop = {"tune"};
  loop.insert(loop.end(), common.begin(), common.end());
  const auto loopRun = runProcess(OPEVO_CLI, loop);
  ASSERT_EQ(loopRun.status, 0) << loopRun.err;
  EXPECT_NE(loopRun.err.find(kNote), std::string::npos) << loopRun.err;

  std::vector<std::string> joint = {"tune", "--mode", "joint", "--json"};
  joint.insert(joint.end(), common.begin(), common.end());
  const auto jointRun = runProcess(OPEVO_CLI, joint);
  ASSERT_EQ(jointRun.status, 0) << jointRun.err;
  EXPECT_EQ(jointRun.err.find(kNote), std::string::npos) << jointRun.err;
  const auto out = nlohmann::json::parse(jointRun.out);
  EXPECT_EQ(out.at("mode"), "joint");
  EXPECT_EQ(out.at("trials"), 3);
  const auto shown = runProcess(
      OPEVO_CLI, {"show", std::to_string(out.at("run").get<long long>()), "--db", db, "--json"});
  ASSERT_EQ(shown.status, 0) << shown.err;
  const auto trials = nlohmann::json::parse(shown.out).at("trials");
  ASSERT_EQ(trials.size(), 3u);
  for (const auto& t : trials) {
    // Verified against the reference through the layouts' conversions, then timed.
    EXPECT_EQ(t.at("status"), "ok") << t.at("message");
    const std::string config = t.at("config");
    EXPECT_NE(config.find("layout.out_c="), std::string::npos) << config;
    EXPECT_EQ(config.find("layout.in_c="), std::string::npos) << config;
  }
}

}  // namespace
}  // namespace opevo::test
