// What a Kernel Tuner cache entry says besides its measurement, when it was measured and the
// search strategy's time before it, travels with the replay reader's entries (the cache is parsed
// once), and an import stores it: timestamp as the trial's finished, strategy_time as tuner_ms.
// The shipped caches all have strategy_time 0, so a cache is written here.
#include <gtest/gtest.h>

#include <fstream>

#include "io/replay_dataset.h"
#include "io/run_import.h"
#include "temp_dir.h"

namespace opevo {
namespace {

const char* const kCache = R"({
  "device_name": "Test GPU", "kernel_name": "k", "objective": "time",
  "tune_params_keys": ["x"], "tune_params": {"x": [1, 2]},
  "cache": {
    "1": {"x": 1, "time": 2.0, "times": [2.0, 2.0], "compile_time": 10, "benchmark_time": 5,
          "verification_time": 1, "strategy_time": 12.5,
          "timestamp": "2024-01-02 03:04:05.678+01:00"},
    "2": {"x": 2, "time": "RuntimeFailedConfig", "compile_time": 3, "strategy_time": 0.25,
          "timestamp": "2024-01-02 03:05:00.000+00:00"}}})";

std::string writeCache(const test::TempDir& dir) {
  const std::string path = dir.file("cache.json");
  std::ofstream(path) << kCache;
  return path;
}

TEST(ReplayEntryTimes, TheReaderKeepsEachEntrysTimestampAndStrategyTime) {
  test::TempDir dir;
  const ReplayDataset ds = loadReplayDataset(writeCache(dir));
  ASSERT_EQ(ds.fileEntries.size(), 2u);
  EXPECT_EQ(ds.space.format(ds.fileOrder[ds.fileEntries[0].point]), "x=1");
  EXPECT_EQ(ds.fileEntries[0].timestamp, "2024-01-02 03:04:05.678+01:00");
  EXPECT_DOUBLE_EQ(ds.fileEntries[0].strategyMs, 12.5);
  EXPECT_EQ(ds.fileEntries[1].timestamp, "2024-01-02 03:05:00.000+00:00");
  EXPECT_DOUBLE_EQ(ds.fileEntries[1].strategyMs, 0.25);
}

TEST(ReplayEntryTimes, AnImportStoresThemWithEachTrial) {
  test::TempDir dir;
  const ImportFile file = readImportFile(writeCache(dir));
  ASSERT_EQ(file.trials.size(), 2u);
  const TrialRow& ok = file.trials[0];
  EXPECT_EQ(ok.config, "x=1");
  EXPECT_EQ(ok.finished, "2024-01-02T02:04:05.678Z");  // in UTC
  EXPECT_DOUBLE_EQ(ok.tunerMs, 12.5);
  EXPECT_DOUBLE_EQ(ok.compileMs, 10);
  EXPECT_DOUBLE_EQ(ok.measureMs, 6);  // benchmark + verification
  const TrialRow& failed = file.trials[1];
  EXPECT_EQ(failed.status, TrialStatus::RuntimeFault);
  EXPECT_EQ(failed.finished, "2024-01-02T03:05:00.000Z");
  EXPECT_DOUBLE_EQ(failed.tunerMs, 0.25);
  EXPECT_EQ(file.run.started, "2024-01-02T02:04:05.678Z");
  EXPECT_EQ(file.run.ended, "2024-01-02T03:05:00.000Z");
}

}  // namespace
}  // namespace opevo
