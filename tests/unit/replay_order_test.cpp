// The same measurements in two formats are the same space: the bundled A100 convolution as a
// Kernel Tuner cache and as T4 (its README says "same data") give the same parameters, the same
// points in the same order, so a seeded tuner walks them alike; an import of the T4 copy still
// keeps its trials in the file's order and says why its unit is 1/ms.
#include <gtest/gtest.h>

#include "io/replay_dataset.h"
#include "io/run_import.h"

namespace opevo {
namespace {

const std::string kCache = std::string(OPEVO_DATASETS_DIR) + "/convolution_milo/A100.json.gz";
const std::string kT4 = std::string(OPEVO_DATASETS_DIR) + "/convolution_milo/A100_T4.json.gz";

TEST(ReplayOrder, TheSameDataInEitherFormatIsTheSameSpace) {
  const ReplayDataset cache = loadReplayDataset(kCache);
  const ReplayDataset t4 = loadReplayDataset(kT4);
  ASSERT_EQ(cache.space.dims(), t4.space.dims());
  for (std::size_t i = 0; i < cache.space.dims(); ++i)
    EXPECT_EQ(cache.space.param(i).spec(), t4.space.param(i).spec()) << i;
  const std::vector<Config>& a = *cache.space.explicitPoints();
  const std::vector<Config>& b = *t4.space.explicitPoints();
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    ASSERT_EQ(cache.space.format(a[i]), t4.space.format(b[i])) << "point " << i;
  // The order is the cache keys' as text (the one the cache was always read in): "112,..." first.
  EXPECT_EQ(cache.space.format(a.front()).rfind("block_size_x=112; block_size_y=1;", 0), 0u)
      << cache.space.format(a.front());
}

TEST(ReplayOrder, AnImportKeepsTheFilesOrderAndSaysWhereItsUnitComesFrom) {
  const ImportFile file = readImportFile(kT4);
  // results[0] of the file is 16,1,1,1,0,0,0,1,15,15.
  EXPECT_EQ(file.trials.front().config,
            "block_size_x=16; block_size_y=1; tile_size_x=1; tile_size_y=1; read_only=0; "
            "use_padding=0; use_shmem=0; use_cmem=1; filter_height=15; filter_width=15");
  EXPECT_EQ(speedText(file.info),
            "speed in 1/ms, as 1/time: the file holds times but no throughput such as GFLOP/s");
  EXPECT_EQ(file.info.notes.front(),
            "the file names no kernel: the run's operator is named after the file, 'A100_T4'");
  EXPECT_EQ(speedText(readImportFile(kCache).info), "speed in GFLOP/s");
}

}  // namespace
}  // namespace opevo
