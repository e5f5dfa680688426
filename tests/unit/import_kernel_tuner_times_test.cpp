// `opevo import` of a Kernel Tuner cache kept each entry's compile time alone: its verification
// and benchmark times, its timestamp and its strategy's time were dropped, so the stored run said
// nothing of what its trials cost or when they were measured.
#include <gtest/gtest.h>

#include "io/replay_dataset.h"
#include "io/run_import.h"
#include "store/store.h"
#include "temp_dir.h"

namespace opevo {
namespace {

// The A100 convolution's first cache entry: compile_time 918.60 ms, benchmark_time 126.38 ms,
// verification_time 0, timestamp 2023-12-22 09:54:05.502007+00:00.
const char* const kFirst =
    "block_size_x=16; block_size_y=1; tile_size_x=1; tile_size_y=1; read_only=0; use_padding=0; "
    "use_shmem=0; use_cmem=1; filter_height=15; filter_width=15";

TEST(ImportKernelTunerTimes, EachEntryKeepsWhatItCostAndWhenItWasMeasured) {
  const std::string path = std::string(OPEVO_DATASETS_DIR) + "/convolution_milo/A100.json.gz";
  const ImportFile file = readImportFile(path);
  test::TempDir dir;
  Store store(dir.file("runs.db"));
  const ImportedRun imported = storeImport(store, file);
  const RunRecord run = *store.run(imported.runId);
  EXPECT_EQ(run.started, "2023-12-22T09:54:05.502Z");  // the file's first timestamp
  EXPECT_EQ(run.ended, "2023-12-22T13:17:23.719Z");    // its last
  const ReplayDataset ds = loadReplayDataset(path);
  const std::string first = ds.space.format(ds.space.parse(kFirst));
  bool found = false;
  for (const TrialRow& t : store.trials(imported.runId)) {
    if (t.config != first) continue;
    found = true;
    EXPECT_DOUBLE_EQ(t.compileMs, 918.5990339610726);
    EXPECT_DOUBLE_EQ(t.measureMs, 126.3829180970788);  // benchmark + verification
    EXPECT_DOUBLE_EQ(t.verifyMs, 0);
    EXPECT_EQ(t.finished, "2023-12-22T09:54:05.502Z");
    // What a replay of the file charges for it.
    EXPECT_DOUBLE_EQ(t.compileMs + t.measureMs, 918.5990339610726 + 126.3829180970788);
  }
  EXPECT_TRUE(found) << first;
}

// The gemm file's verification_time is not 0 (243.5 ms in its first entry): it is kept, and
// counted in the measurement's time with the benchmark.
TEST(ImportKernelTunerTimes, VerificationIsKept) {
  const std::string path = std::string(OPEVO_DATASETS_DIR) + "/gemm/RTX_2080_Ti.json.gz";
  const ImportFile file = readImportFile(path);
  const ReplayDataset ds = loadReplayDataset(path);
  const std::string first = ds.space.format(
      ds.space.parse("MWG=16; NWG=16; KWG=32; MDIMC=8; NDIMC=8; MDIMA=8; NDIMB=8; KWI=2; VWM=1; "
                     "VWN=1; STRM=0; STRN=0; SA=0; SB=0; PRECISION=32"));
  bool found = false;
  for (const TrialRow& t : file.trials) {
    if (t.config != first) continue;
    found = true;
    EXPECT_DOUBLE_EQ(t.verifyMs, 243.53425414301455);
    EXPECT_DOUBLE_EQ(t.measureMs, 1962.7874931320548 + 243.53425414301455);
    EXPECT_TRUE(t.finished.empty()) << "the gemm file has no timestamps";
  }
  EXPECT_TRUE(found) << first;
}

}  // namespace
}  // namespace opevo
