// `opevo t1` on files a user writes: the Python forms T1 files use (tuples, bitwise operators,
// list(range(...))), and a space whose conditions leave no configuration valid.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "run_process.h"

namespace opevo::test {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    char pattern[] = "/tmp/opevo-cli-t1-XXXXXX";
    path = mkdtemp(pattern);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

// A T1 file with parameters a = list(range(-3,3)) and b = (1, 2, 4, 8), and these conditions.
std::string writeT1(const TempDir& dir, const std::string& conditions) {
  const std::string path = dir.file("space.json");
  std::ofstream(path) << R"j({"ConfigurationSpace": {"TuningParameters": [
      {"Name": "a", "Type": "int", "Values": "list(range(-3,3))"},
      {"Name": "b", "Type": "int", "Values": "(1, 2, 4, 8)"}],
      "Conditions": )j"
                      << conditions << "}}";
  return path;
}

TEST(CliT1, TuplesBitwiseOperatorsAndListCalls) {
  TempDir dir;
  const std::string file =
      writeT1(dir, R"j([{"Expression": "b in (1, 8)"}, {"Expression": "(a & 1) == 0"}])j");
  const auto r = runProcess(OPEVO_CLI, {"t1", file});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("[-3, -2, -1, 0, 1, 2]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  1. b in (1, 8)"), std::string::npos) << r.out;
  // a even (-2, 0, 2) and b in (1, 8): 3 * 2 of 6 * 4.
  EXPECT_NE(r.out.find("space: 24 Cartesian points, 6 valid (25.0%)"), std::string::npos) << r.out;
}

// No valid configuration is an error in the file (exit 2): the description still prints, so the
// values the conditions read are on screen, and stderr says which condition rules out everything.
TEST(CliT1, NoValidConfigurationIsAnError) {
  TempDir dir;
  const std::string never = writeT1(dir, R"([{"Expression": "b > 1"}, {"Expression": "a > 100"}])");
  const auto r = runProcess(OPEVO_CLI, {"t1", never});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.out.find("space: 24 Cartesian points, 0 valid (0.0%)"), std::string::npos) << r.out;
  EXPECT_EQ(r.err, "opevo: " + never +
                       ": no configuration satisfies the conditions: "
                       "ConfigurationSpace.Conditions[1] \"a > 100\" holds for none of the 24 "
                       "points\n");

  const std::string apart =
      writeT1(dir, R"([{"Expression": "a > 1"}, {"Expression": "a + b < 0"}])");
  const auto both = runProcess(OPEVO_CLI, {"t1", apart});
  EXPECT_EQ(both.status, 2) << both.err;
  EXPECT_NE(both.err.find("no configuration satisfies the conditions: each condition holds for "
                          "some of the 24 points, but no point satisfies all 2 at once"),
            std::string::npos)
      << both.err;
  EXPECT_EQ(std::count(both.err.begin(), both.err.end(), '\n'), 1) << both.err;

  // Too large to count: nothing is known, so nothing is refused.
  const auto capped = runProcess(OPEVO_CLI, {"t1", never, "--max-points", "10"});
  EXPECT_EQ(capped.status, 0) << capped.err;
  EXPECT_NE(capped.out.find("valid ones not counted"), std::string::npos) << capped.out;
}

}  // namespace
}  // namespace opevo::test
