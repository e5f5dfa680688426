// A dataset named as the README names it is found wherever the program runs: the name given,
// then the shipped folders ($OPEVO_DATASETS, the installed share/opevo-studio, the source tree
// of a build), and when none holds it the message lists every place looked at.
#include "io/shipped_path.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/error.h"
#include "io/replay_dataset.h"

namespace opevo {
namespace {

namespace fs = std::filesystem;

// Runs in another folder than the source tree, where none of the names exists as given.
struct ElsewhereDir {
  fs::path before = fs::current_path();
  fs::path path;
  ElsewhereDir() {
    char pattern[] = "/tmp/opevo-shipped-XXXXXX";
    path = mkdtemp(pattern);
    fs::current_path(path);
  }
  ~ElsewhereDir() {
    fs::current_path(before);
    fs::remove_all(path);
  }
};

const fs::path kShipped = fs::path(OPEVO_DATASETS_DIR) / "gemm" / "RTX_2080_Ti.json.gz";

TEST(ShippedPath, ABareNameAndTheReadmeNameFindTheSourceTreesFile) {
  ElsewhereDir elsewhere;
  unsetenv("OPEVO_DATASETS");
  for (const std::string name :
       {"gemm/RTX_2080_Ti.json.gz", "resources/datasets/gemm/RTX_2080_Ti.json.gz"}) {
    const ShippedLookup found = findDataFile(name);
    ASSERT_TRUE(found.found) << name;
    EXPECT_TRUE(fs::equivalent(*found.found, kShipped)) << *found.found;
  }
  const ShippedLookup measured =
      findDataFile("resources/measurements/h200/2026-11-27/MM1_opevo_seed1.json.gz");
  ASSERT_TRUE(measured.found);
  EXPECT_TRUE(fs::equivalent(*measured.found, fs::path(OPEVO_SOURCE_DIR) / "resources" /
                                                  "measurements" / "h200" / "2026-11-27" /
                                                  "MM1_opevo_seed1.json.gz"));
  // What every command reads through: the dataset says which file it read.
  const ReplayDataset ds = loadReplayDataset("gemm/RTX_2080_Ti.json.gz");
  EXPECT_TRUE(fs::equivalent(ds.path, kShipped));
  EXPECT_EQ(ds.table.size(), 17956u);
}

TEST(ShippedPath, OpevoDatasetsComesFirst) {
  ElsewhereDir elsewhere;
  fs::create_directories(elsewhere.path / "mine" / "gemm");
  fs::copy_file(kShipped, elsewhere.path / "mine" / "gemm" / "RTX_2080_Ti.json.gz");
  setenv("OPEVO_DATASETS", (elsewhere.path / "mine").c_str(), 1);
  const ShippedLookup found = findDataFile("gemm/RTX_2080_Ti.json.gz");
  unsetenv("OPEVO_DATASETS");
  ASSERT_TRUE(found.found);
  EXPECT_TRUE(
      fs::equivalent(*found.found, elsewhere.path / "mine" / "gemm" / "RTX_2080_Ti.json.gz"));
}

TEST(ShippedPath, AMissingFileSaysWhereItWasLookedFor) {
  ElsewhereDir elsewhere;
  try {
    loadReplayDataset("gemm/no_such_device.json.gz");
    FAIL() << "read a file that is nowhere";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cannot open 'gemm/no_such_device.json.gz'"), std::string::npos) << what;
    EXPECT_NE(what.find("share/opevo-studio/datasets/gemm/no_such_device.json.gz"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find((fs::path(OPEVO_DATASETS_DIR) / "gemm/no_such_device.json.gz").string()),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("OPEVO_DATASETS"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace opevo
