// `opevo import` and `opevo import --restore` of a file whose one measurement cannot have been
// measured (1e308 GFLOP/s, 1e-300 s): refused with the file, the result and the field, exit 2,
// and nothing stored (io/measurement_bounds.h). The same file unedited is imported.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "../unit/temp_dir.h"
#include "run_process.h"

namespace opevo::test {
namespace {

namespace fs = std::filesystem;

TEST(CliBadMeasurement, AnImportOfAnAbsurdMeasurementStoresNothing) {
  TempDir dir;
  const std::string db = dir.file("opevo.db");
  const std::string dataset = std::string(OPEVO_DATASETS_DIR) + "/gemm/RTX_2080_Ti.json.gz";
  ASSERT_EQ(
      runProcess(OPEVO_CLI, {"tune", "--backend", "replay:" + dataset, "--trials", "4", "--db", db})
          .status,
      0);
  const std::string exported = dir.file("run.json");
  ASSERT_EQ(runProcess(OPEVO_CLI, {"export-t4", "1", "--out", exported, "--db", db}).status, 0);
  nlohmann::json run;
  std::ifstream(exported) >> run;

  // Its first correct result's speed, and then its time, made absurd.
  nlohmann::json fast = run, instant = run;
  std::size_t result = 0, speed = 0;
  for (; result < run["results"].size(); ++result)
    if (run["results"][result]["invalidity"] == "correct") break;
  ASSERT_LT(result, run["results"].size());
  const nlohmann::json& measurements = run["results"][result]["measurements"];
  for (; speed < measurements.size(); ++speed)
    if (measurements[speed]["name"] != "time") break;
  ASSERT_LT(speed, measurements.size()) << measurements.dump();
  const std::string unit = measurements[speed]["name"];
  fast["results"][result]["measurements"][speed]["value"] = 1e308;
  for (auto& m : instant["results"][result]["measurements"])
    if (m["name"] == "time") m["value"] = 1e-300;
  const std::string fastFile = dir.file("fast.json"), instantFile = dir.file("instant.json");
  std::ofstream(fastFile) << fast.dump();
  std::ofstream(instantFile) << instant.dump();
  const std::string at = "results[" + std::to_string(result) + "].measurements[";

  for (const bool restore : {false, true}) {
    const std::string other = dir.file(restore ? "restored.db" : "imported.db");
    std::vector<std::string> args = {"import", fastFile, "--db", other};
    if (restore) args.push_back("--restore");
    const auto r = runProcess(OPEVO_CLI, args);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find(fastFile + ": " + at + std::to_string(speed) + "] (" + unit +
                         ") is 1e+308 " + unit + ", more than the 1e+18 a second"),
              std::string::npos)
        << r.err;
    args[1] = instantFile;
    const auto t = runProcess(OPEVO_CLI, args);
    EXPECT_EQ(t.status, 2) << t.err;
    EXPECT_NE(t.err.find(instantFile + ": " + at), std::string::npos) << t.err;
    EXPECT_NE(t.err.find("(time) is 1e-300 ms, under the 1e-06 ms (1 ns)"), std::string::npos)
        << t.err;
    EXPECT_FALSE(fs::exists(other)) << "a refused file leaves no database";
    // The export as it was goes in both ways.
    args[1] = exported;
    const auto fine = runProcess(OPEVO_CLI, args);
    EXPECT_EQ(fine.status, 0) << fine.err;
  }

  // A replay of a Kernel Tuner cache with one entry at 1e308 GFLOP/s: refused before a trial.
  const std::string cacheFile = dir.file("cache.json");
  std::ofstream(cacheFile) << R"({"tune_params_keys": ["a"], "objective": "GFLOP/s", "cache": {
      "1": {"a": 1, "time": 2.0, "GFLOP/s": 3.0}, "2": {"a": 2, "time": 2.0, "GFLOP/s": 1e308}}})";
  const std::string third = dir.file("third.db");
  const auto replay = runProcess(
      OPEVO_CLI, {"tune", "--backend", "replay:" + cacheFile, "--trials", "2", "--db", third});
  EXPECT_EQ(replay.status, 2) << replay.err;
  EXPECT_NE(replay.err.find(cacheFile + ": cache entry '2' field 'GFLOP/s' is 1e+308 GFLOP/s"),
            std::string::npos)
      << replay.err;
  EXPECT_FALSE(fs::exists(third));
}

}  // namespace
}  // namespace opevo::test
