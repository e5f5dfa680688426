// A plain `opevo import` keeps what a T4 file says of each result beyond its measurement: the
// timestamp, the framework time, the search algorithm's time (and our exports' tuning seconds),
// and the run is dated by the file, not by the import.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "io/gzip_file.h"
#include "io/run_import.h"
#include "run_process.h"
#include "store/store.h"

namespace opevo::test {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    char pattern[] = "/tmp/opevo-import-fields-XXXXXX";
    path = mkdtemp(pattern);
  }
  ~TempDir() { fs::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

nlohmann::json readT4(const std::string& path) {
  return nlohmann::json::parse(readMaybeGzipped(path));
}

// Every timestamp became the import's time (all 4362 the same) and times.framework (105 ms in
// results[0]) became 0 in export-t4's copy of an imported A100_T4.json.gz.
TEST(CliImportFields, APlainImportKeepsTimestampsAndFrameworkTime) {
  TempDir dir;
  const std::string db = dir.file("opevo.db");
  const std::string source = std::string(OPEVO_DATASETS_DIR) + "/convolution_milo/A100_T4.json.gz";
  const auto imported = runProcess(OPEVO_CLI, {"import", source, "--db", db});
  ASSERT_EQ(imported.status, 0) << imported.err;
  {
    const Store store(db);
    const RunRecord run = *store.run(1);
    EXPECT_EQ(run.started, "2023-12-22T09:54:05.502Z");  // results[0]'s, in the store's form
    EXPECT_EQ(run.ended, "2023-12-22T13:17:23.719Z");    // the last result's
    EXPECT_FALSE(knownSeed(run).has_value()) << "the file names no seed";
  }
  const std::string t4 = dir.file("out.json");
  ASSERT_EQ(runProcess(OPEVO_CLI, {"export-t4", "1", "--out", t4, "--db", db}).status, 0);
  const nlohmann::json in = readT4(source);
  const nlohmann::json out = readT4(t4);
  ASSERT_EQ(out["results"].size(), in["results"].size());
  std::set<std::string> stamps;
  for (const auto& r : out["results"]) stamps.insert(r["timestamp"].get<std::string>());
  EXPECT_GT(stamps.size(), 4000u) << "one timestamp for every result";
  // The import keeps the file's order: results[i] is the same measurement in both.
  for (std::size_t i : {std::size_t(0), std::size_t(1), in["results"].size() - 1}) {
    const auto& a = in["results"][i];
    const auto& b = out["results"][i];
    std::string stamp = a["timestamp"].get<std::string>();  // "2023-12-22 09:54:05.502007+00:00"
    stamp[10] = 'T';
    EXPECT_EQ(b["timestamp"].get<std::string>(), stamp.substr(0, 23) + "Z");
    EXPECT_NEAR(b["times"]["framework"].get<double>(), a["times"]["framework"].get<double>(),
                1e-9 * a["times"]["framework"].get<double>() + 1e-9);
    EXPECT_NEAR(b["times"]["validation"].get<double>(), a["times"]["validation"].get<double>(),
                1e-9);
  }
  EXPECT_GT(out["results"][0]["times"]["framework"].get<double>(), 100.0);
}

// Re-importing OpEvo's own export without --restore dropped the trials' timestamps, their
// search_algorithm (tuner_ms) and tuning seconds: they come back as the tuned run stored them.
TEST(CliImportFields, APlainImportOfOurExportKeepsTrialTimes) {
  TempDir dir;
  const std::string db = dir.file("tuned.db");
  const std::string gemm = std::string(OPEVO_DATASETS_DIR) + "/gemm/RTX_2080_Ti.json.gz";
  ASSERT_EQ(runProcess(OPEVO_CLI, {"tune", "--backend", "replay:" + gemm, "--algo", "autotvm",
                                   "--trials", "80", "--seed", "3", "--db", db, "--json"})
                .status,
            0);
  const std::string t4 = dir.file("run.json.gz");
  ASSERT_EQ(runProcess(OPEVO_CLI, {"export-t4", "1", "--out", t4, "--db", db}).status, 0);
  const std::string again = dir.file("again.db");
  const auto imported = runProcess(OPEVO_CLI, {"import", t4, "--db", again});
  ASSERT_EQ(imported.status, 0) << imported.err;

  const Store tuned(db);
  const Store store(again);
  EXPECT_EQ(knownSeed(*store.run(1)), std::optional<std::uint64_t>(3));
  // Dated by the file (its first trial), not by the import, which came after every trial.
  EXPECT_GE(store.run(1)->started, tuned.run(1)->started);
  EXPECT_LE(store.run(1)->started, tuned.trials(1).front().finished);
  const std::vector<TrialRow> before = tuned.trials(1);
  const std::vector<TrialRow> after = store.trials(1);
  ASSERT_EQ(after.size(), before.size());
  double tuner = 0;
  for (std::size_t i = 0; i < after.size(); ++i) {
    EXPECT_EQ(after[i].finished, before[i].finished) << i;
    EXPECT_EQ(after[i].started, before[i].started) << i;
    EXPECT_NEAR(after[i].tunerMs, before[i].tunerMs, 1e-9 * before[i].tunerMs + 1e-12) << i;
    EXPECT_DOUBLE_EQ(after[i].seconds, before[i].seconds) << i;
    tuner += after[i].tunerMs;
  }
  EXPECT_GT(tuner, 0) << "autotvm's model costs time: the test would not see a lost tuner_ms";
  EXPECT_GT(after.back().seconds, 0);
}

}  // namespace
}  // namespace opevo::test
