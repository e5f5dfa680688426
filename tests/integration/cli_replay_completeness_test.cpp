// A partial Kernel Tuner cache raced and described as a user would: once "complete", with a
// fraction of optimum of 1 for a best that was only the best of what the file held.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "io/gzip_file.h"
#include "run_process.h"

namespace opevo {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
using test::runProcess;

struct TempDir {
  fs::path path;
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "opevo-cli-complete-XXXXXX").string();
    path = mkdtemp(pattern.data());
  }
  ~TempDir() { fs::remove_all(path); }
};

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A random 300 of the gemm file's entries, closed: what a run with a search strategy writes.
fs::path gemm300(const fs::path& dir) {
  Json root =
      Json::parse(readMaybeGzipped(std::string(OPEVO_DATASETS_DIR) + "/gemm/RTX_2080_Ti.json.gz"));
  std::vector<std::string> keys;
  for (const auto& [key, entry] : root["cache"].items()) keys.push_back(key);
  std::shuffle(keys.begin(), keys.end(), std::mt19937(5));
  keys.resize(300);
  Json cache = Json::object();
  for (const std::string& key : keys) cache[key] = root["cache"][key];
  root["cache"] = std::move(cache);
  const fs::path file = dir / "gemm_300.json";
  std::ofstream(file) << root.dump();
  return file;
}

// The first entries of pnpoly's cache, as a file still being written ("}," at its end).
fs::path truncatedPnpoly(const fs::path& dir) {
  const Json root = Json::parse(
      readMaybeGzipped(std::string(OPEVO_DATASETS_DIR) + "/pnpoly/RTX_2080_Ti.json.gz"));
  std::string text = "{\n";
  for (const auto& [key, value] : root.items())
    if (key != "cache") text += "\"" + key + "\": " + value.dump() + ",\n";
  text += "\"cache\": {\n";
  int n = 0;
  for (const auto& [key, entry] : root["cache"].items()) {
    if (n++ == 100) break;
    text += "\"" + key + "\": " + entry.dump() + ",\n";
  }
  const fs::path file = dir / "pnpoly_partial.json";
  std::ofstream(file) << text;
  return file;
}

TEST(CliReplayCompleteness, ATruncatedCacheIsDescribedAsNotComplete) {
  const TempDir dir;
  const std::string file = truncatedPnpoly(dir.path).string();
  const auto text = runProcess(OPEVO_CLI, {"dataset", file});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_EQ(text.out.find("all of them measured"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("4092 Cartesian points, 100 in the file (2.4%)"), std::string::npos)
      << text.out;
  const auto json = runProcess(OPEVO_CLI, {"dataset", "--json", file});
  ASSERT_EQ(json.status, 0) << json.err;
  const Json j = Json::parse(json.out);
  EXPECT_EQ(j["complete"], false);
  EXPECT_EQ(j["completeness"], "truncated");
  EXPECT_TRUE(j["valid"].is_null());
}

// compare on a search strategy's cache gives no fraction of optimum anywhere: not in the table,
// not in summary.json, and says why.
TEST(CliReplayCompleteness, ComparingOnAPartialCacheGivesNoFractionOfOptimum) {
  const TempDir dir;
  const std::string file = gemm300(dir.path).string();
  const fs::path out = dir.path / "race";
  const auto r =
      runProcess(OPEVO_CLI, {"compare", "--space", file, "--algos", "opevo-m", "--repeats", "2",
                             "--trials", "50", "--seed", "4", "--out", out.string(), "--quiet"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.find("fraction of optimum |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no fraction of optimum: not taken as complete"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("seed 4 (repeats 1-2: seeds 4-5)"), std::string::npos) << r.out;
  const Json rows = Json::parse(read(out / "summary.json"));
  ASSERT_FALSE(rows.empty());
  for (const Json& row : rows) {
    EXPECT_TRUE(row["mean_fraction_of_optimum"].is_null()) << row;
    EXPECT_TRUE(row["optimum"].is_null()) << row;
    EXPECT_EQ(row["completeness"], "sparse");
    EXPECT_EQ(row["dataset"], file);
    EXPECT_EQ(row["seed"], 4);
    EXPECT_EQ(row["repeats"], 2);
  }
}

// The shipped file, by contrast, is checked complete: the fraction is given, and what it rests on.
TEST(CliReplayCompleteness, AShippedDatasetSaysWhatItsOptimumRestsOn) {
  const TempDir dir;
  const std::string gemm = std::string(OPEVO_DATASETS_DIR) + "/gemm/RTX_2080_Ti.json.gz";
  const auto r =
      runProcess(OPEVO_CLI, {"compare", "--space", gemm, "--algos", "random", "--repeats", "1",
                             "--trials", "30", "--out", (dir.path / "race").string(), "--quiet"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("fraction of optimum |"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("optimum: checked: the Conditions of"), std::string::npos) << r.out;
  const Json rows = Json::parse(read(dir.path / "race" / "summary.json"));
  EXPECT_NEAR(rows[0]["optimum"].get<double>(), 11972.059, 1e-3);
}

TEST(CliReplayCompleteness, PnpolySaysItsTimeIsNotTheMeanOfItsRuns) {
  const auto r = runProcess(
      OPEVO_CLI, {"dataset", std::string(OPEVO_DATASETS_DIR) + "/pnpoly/RTX_2080_Ti.json.gz"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("in 3722 of the 3722 successful entries the file's \"time\" lies outside"),
            std::string::npos)
      << r.out;
}

// Repeats count from 1: the help says which seeds they use.
TEST(CliReplayCompleteness, HelpSaysTheSeedsOfRepeatsOneToN) {
  for (const char* command : {"compare", "sweep"}) {
    const auto r = runProcess(OPEVO_CLI, {command, "--help"});
    EXPECT_NE(r.out.find("repeats 1..n use seeds seed..seed+n-1"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("repeat r uses seed + r,"), std::string::npos) << r.out;
  }
}

}  // namespace
}  // namespace opevo
