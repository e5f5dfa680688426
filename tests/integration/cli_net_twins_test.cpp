// `opevo net tune`'s progress says which trials of a unit were its twins' best (net/twin_tasks.h):
// a task's best that jumps with its twin's configuration is not its own tuner's find.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "run_process.h"

namespace opevo::test {
namespace {

struct TempFolder {
  std::filesystem::path path;
  TempFolder() {
    char pattern[] = "/tmp/opevo-nettwins-XXXXXX";
    path = mkdtemp(pattern);
  }
  ~TempFolder() { std::filesystem::remove_all(path); }
};

TEST(CliNetTwins, AUnitNamesTheTwinItsFirstTrialsCameFrom) {
  const TempFolder f;
  const std::string network = std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_twins.json";
  const auto r =
      runProcess(OPEVO_CLI, {"net", "tune",           network, "--backend",
                             "cpu", "--mode",         "loop",  "--trials",
                             "24",  "--unit",         "2",     "--min-time-ms",
                             "1",   "--runs",         "1",     "--warmup",
                             "0",   "--no-reference", "--db",  (f.path / "runs.db").string()});
  ASSERT_EQ(r.status, 0) << r.err;
  // Tasks a (bias, relu) and b (bias, add, relu) are twins: a unit of one begins with the other's
  // best once it has one.
  const bool fromB = r.err.find(" from twin b") != std::string::npos;
  const bool fromA = r.err.find(" from twin a") != std::string::npos;
  EXPECT_TRUE(fromA || fromB) << r.err;
  // The layers without a twin never take one.
  EXPECT_EQ(r.err.find(" from twin p"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find(" from twin d"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace opevo::test
