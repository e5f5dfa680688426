// What a replay's trials would have cost on the device that measured the file: Kernel Tuner's
// simulation mode charges each configuration its cache entry's compile_time + benchmark_time +
// verification_time; a replay charged nothing (its tuning time was the tuners' own).
#include <gtest/gtest.h>

#include <fstream>

#include "engine/device_time.h"
#include "engine/race_summary.h"
#include "io/replay_dataset.h"
#include "temp_dir.h"

namespace opevo {
namespace {

std::string dataset(const std::string& name) {
  return std::string(OPEVO_DATASETS_DIR) + "/" + name;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The A100 convolution's first cache entry (timestamp 2023-12-22 09:54:05.502007+00:00) and an
// entry that failed at run time after compiling (compile_time 3055.96 ms, benchmark_time 0.95).
const char* const kFirst =
    "block_size_x=16; block_size_y=1; tile_size_x=1; tile_size_y=1; read_only=0; use_padding=0; "
    "use_shmem=0; use_cmem=1; filter_height=15; filter_width=15";
const char* const kFailed =
    "block_size_x=32; block_size_y=16; tile_size_x=2; tile_size_y=4; read_only=1; "
    "use_padding=0; use_shmem=0; use_cmem=1; filter_height=15; filter_width=15";

TEST(ReplayDeviceTime, AKernelTunerEntryCostsItsCompileBenchmarkAndVerification) {
  const ReplayDataset ds = loadReplayDataset(dataset("convolution_milo/A100.json.gz"));
  const Measurement& first = ds.table.at(ds.space.parse(kFirst));
  EXPECT_DOUBLE_EQ(first.compileMs, 918.5990339610726);
  EXPECT_DOUBLE_EQ(first.measureMs, 126.3829180970788);  // benchmark_time; verification_time 0
  EXPECT_DOUBLE_EQ(deviceMs(first), 918.5990339610726 + 126.3829180970788);
  const Measurement& failed = ds.table.at(ds.space.parse(kFailed));
  EXPECT_EQ(failed.status, TrialStatus::RuntimeFault);
  EXPECT_DOUBLE_EQ(deviceMs(failed), 3055.960983969271 + 0.9539530146867037);
  // Every entry's compile + benchmark + verification, added up by hand from the file.
  EXPECT_NEAR(ds.deviceSeconds, 12190.447934668744, 1e-6);
  EXPECT_TRUE(has(ds.deviceTimeNote, "compile_time + benchmark_time + verification_time"))
      << ds.deviceTimeNote;
  EXPECT_FALSE(has(ds.deviceTimeNote, "have no")) << ds.deviceTimeNote;
}

// The gemm file is the one whose verification_time is not 0 (243 ms in its first entry).
TEST(ReplayDeviceTime, VerificationIsChargedWithTheBenchmark) {
  const ReplayDataset ds = loadReplayDataset(dataset("gemm/RTX_2080_Ti.json.gz"));
  const Measurement& m = ds.table.at(
      ds.space.parse("MWG=16; NWG=16; KWG=32; MDIMC=8; NDIMC=8; MDIMA=8; NDIMB=8; KWI=2; VWM=1; "
                     "VWN=1; STRM=0; STRN=0; SA=0; SB=0; PRECISION=32"));
  EXPECT_DOUBLE_EQ(m.verifyMs, 243.53425414301455);
  EXPECT_DOUBLE_EQ(m.measureMs, 1962.7874931320548 + 243.53425414301455);
  EXPECT_DOUBLE_EQ(deviceMs(m), 2.872779034078121 + 1962.7874931320548 + 243.53425414301455);
  EXPECT_NEAR(ds.deviceSeconds, 26798.32631360507, 1e-6);
}

// T4 holds no benchmark total: a result is charged its compilation, the sum of its timed runs and
// its validation, and the note says so.
TEST(ReplayDeviceTime, AT4ResultCostsItsCompilationRunsAndValidation) {
  const ReplayDataset ds = loadReplayDataset(dataset("convolution_milo/A100_T4.json.gz"));
  const Measurement& first = ds.table.at(ds.space.parse(kFirst));
  EXPECT_DOUBLE_EQ(deviceMs(first), 918.5990339610726 + 124.010493516922);
  EXPECT_DOUBLE_EQ(deviceMs(ds.table.at(ds.space.parse(kFailed))), 3055.960983969271);
  EXPECT_NEAR(ds.deviceSeconds, 12182.198127418998, 1e-6);
  EXPECT_TRUE(has(ds.deviceTimeNote, "the sum of times.runtimes")) << ds.deviceTimeNote;
}

// A cache from an older Kernel Tuner lacks some times: the note counts what is missing, and an
// entry without benchmark_time is charged its runs, and one without runs its time, once.
TEST(ReplayDeviceTime, FieldsACacheLacksAreNamed) {
  test::TempDir dir;
  const std::string path = dir.file("old.json");
  std::ofstream(path) << R"({"device_name": "GPU", "kernel_name": "k", "tune_params_keys": ["x"],
    "tune_params": {"x": [1, 2, 3]}, "cache": {
    "1": {"x": 1, "time": 2.0, "times": [1.5, 2.5], "compile_time": 10},
    "2": {"x": 2, "time": 3.0, "times": [3.0], "compile_time": 20, "benchmark_time": 7,
          "verification_time": 1},
    "3": {"x": 3, "time": 4.0}}})";
  const ReplayDataset ds = loadReplayDataset(path);
  EXPECT_NEAR(ds.deviceSeconds, (10 + 1.5 + 2.5 + 20 + 7 + 1 + 4) / 1e3, 1e-12);
  EXPECT_TRUE(has(ds.deviceTimeNote,
                  "2 of 3 entries have no benchmark_time (charged the sum of their times, their "
                  "time where they list none, 0 where they failed)"))
      << ds.deviceTimeNote;
  EXPECT_TRUE(has(ds.deviceTimeNote, "2 of 3 entries have no verification_time (charged 0)"))
      << ds.deviceTimeNote;
  EXPECT_TRUE(has(ds.deviceTimeNote, "1 of 3 entries have no compile_time (charged 0)"))
      << ds.deviceTimeNote;
}

TrialRecord trial(const std::string& algorithm, int repeat, int n, double best, double costMs) {
  TrialRecord t;
  t.algorithm = algorithm;
  t.repeat = repeat;
  t.run = repeat + 1;
  t.trial = n;
  t.bestSoFar = best;
  t.measurement.compileMs = costMs / 2;
  t.measurement.measureMs = costMs / 2;
  return t;
}

// Per row: the device time of its trials, until its best, and until 0.95 of the optimum (20
// here: 19) over the runs that got there.
// The note names a format's own fields (the reader's DatasetFormat, not its text), and the
// format keeps its name in output.
TEST(ReplayDeviceTime, EachFormatIsNamedAsBefore) {
  EXPECT_EQ(datasetFormatName(DatasetFormat::KernelTunerCache), "kernel_tuner_cache");
  EXPECT_EQ(datasetFormatName(DatasetFormat::T4), "t4");
  const ReplayDataset t4 = loadReplayDataset(dataset("convolution_milo/A100_T4.json.gz"));
  EXPECT_EQ(t4.format, DatasetFormat::T4);
  EXPECT_TRUE(has(t4.deviceTimeNote, "times.compilation")) << t4.deviceTimeNote;
}

// compare and dataset print a device time alike: whole seconds and hours to two decimals, and a
// small one to three digits rather than "0 s (0.00 h)".
TEST(ReplayDeviceTime, OneSpellingOfADeviceTime) {
  EXPECT_EQ(deviceTimeText(12190.447934668744), "12190 s (3.39 h)");
  EXPECT_EQ(deviceTimeText(26798.3), "26798 s (7.44 h)");
  EXPECT_EQ(deviceTimeText(36), "36 s (0.01 h)");
  EXPECT_EQ(deviceTimeText(4.2678), "4.27 s");
  EXPECT_EQ(deviceTimeText(0), "0 s");
}

TEST(ReplayDeviceTime, TheSummarySaysTheDeviceTimeToBestAndToTarget) {
  const std::vector<TrialRecord> trials = {
      trial("a", 0, 1, 10, 1000), trial("a", 0, 2, 20, 2000), trial("a", 0, 3, 20, 3000),
      trial("a", 1, 1, 5, 1000),  trial("a", 1, 2, 5, 1000),  trial("a", 1, 3, 19.5, 1000),
      trial("a", 2, 1, 1, 500),   trial("a", 2, 2, 18, 500),  trial("a", 2, 3, 18, 500)};
  const std::vector<SummaryRow> rows = summarize(trials, {"a"}, {2, 3}, 20.0);
  ASSERT_EQ(rows.size(), 2u);
  const SummaryRow& two = rows[0];
  EXPECT_DOUBLE_EQ(two.meanDeviceSeconds, (3 + 2 + 1) / 3.0);
  EXPECT_EQ(two.runsAtTarget, 1);
  EXPECT_DOUBLE_EQ(*two.meanDeviceSecondsToTarget, 3);
  const SummaryRow& three = rows[1];
  EXPECT_DOUBLE_EQ(three.meanDeviceSeconds, (6 + 3 + 1.5) / 3.0);
  EXPECT_DOUBLE_EQ(three.meanDeviceSecondsToBest, (3 + 3 + 1) / 3.0);
  EXPECT_EQ(three.runsAtTarget, 2);
  EXPECT_DOUBLE_EQ(*three.meanDeviceSecondsToTarget, 3);
  EXPECT_DOUBLE_EQ(*three.meanTrialsToTarget, 2.5);
  const std::string md = deviceTimeMarkdown(rows);
  EXPECT_TRUE(has(md, "| a | 3 | 3.5 | 2.33 | 3 | 2/3 |")) << md;
  EXPECT_FALSE(has(md, "| a | 2 |")) << "one row per algorithm, its last:\n" << md;
  EXPECT_FALSE(has(deviceTimeMarkdown(summarize(trials, {"a"}, {3}, std::nullopt)), "optimum"));
}

}  // namespace
}  // namespace opevo
