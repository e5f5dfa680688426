// Whether a measured dataset's best may be called the optimum: a Kernel Tuner cache cut short, or
// one holding only what a search strategy visited, once passed as complete and gave fractions of
// an "optimum" that was not one (a random 300 of gemm's entries: opevo-m at 1 after 50 trials).
#include "io/replay_completeness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "io/gzip_file.h"
#include "io/replay_dataset.h"

namespace opevo {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

std::string shipped(const std::string& relative) {
  return std::string(OPEVO_DATASETS_DIR) + "/" + relative;
}

// A folder removed when the test ends.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "opevo-complete-XXXXXX").string();
    path = mkdtemp(pattern.data());
  }
  ~TempDir() { fs::remove_all(path); }
};

// The shipped cache with only some of its entries: the first `count` (the order of the file), or
// `count` drawn at random; everything else as it was.
Json subset(const std::string& relative, std::size_t count, bool random) {
  Json root = Json::parse(readMaybeGzipped(shipped(relative)));
  std::vector<std::string> keys;
  for (const auto& [key, entry] : root["cache"].items()) keys.push_back(key);
  if (random) std::shuffle(keys.begin(), keys.end(), std::mt19937(11));
  keys.resize(count);
  Json cache = Json::object();
  for (const std::string& key : keys) cache[key] = root["cache"][key];
  root["cache"] = std::move(cache);
  return root;
}

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// The first 100 entries of pnpoly's cache as a file still being written: it ends in "},".
std::string truncatedPnpoly() {
  const Json root = subset("pnpoly/RTX_2080_Ti.json.gz", 100, false);
  std::string text = "{\n";
  for (const auto& [key, value] : root.items())
    if (key != "cache") text += "\"" + key + "\": " + value.dump() + ",\n";
  text += "\"cache\": {\n";
  for (const auto& [key, entry] : root["cache"].items())
    text += "\"" + key + "\": " + entry.dump() + ",\n";
  return text;
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(ReplayCompleteness, ATruncatedCacheIsNeverComplete) {
  const TempDir dir;
  const fs::path file = dir.path / "pnpoly" / "partial.json";
  write(file, truncatedPnpoly());
  const ReplayDataset ds = loadReplayDataset(file.string());
  EXPECT_EQ(ds.table.size(), 100u);
  EXPECT_EQ(ds.completeness, Completeness::Truncated);
  EXPECT_FALSE(ds.complete);
  EXPECT_TRUE(has(ds.completenessNote, "closing braces")) << ds.completenessNote;
}

// A Kernel Tuner run with a search strategy writes a closed cache of what it visited.
TEST(ReplayCompleteness, ATinyShareWithNoDescriptionIsNotTakenAsComplete) {
  const TempDir dir;
  const fs::path file = dir.path / "mine" / "gemm_300.json";
  write(file, subset("gemm/RTX_2080_Ti.json.gz", 300, true).dump());
  const ReplayDataset ds = loadReplayDataset(file.string());
  EXPECT_EQ(ds.completeness, Completeness::Sparse);
  EXPECT_FALSE(ds.complete);
  EXPECT_TRUE(has(ds.completenessNote, "300 of its 82944 Cartesian points (0.36%)"))
      << ds.completenessNote;
  // It says where a description would be looked for.
  EXPECT_TRUE(has(ds.completenessNote, (dir.path / "mine" / "gemm_300.t1.json").string()))
      << ds.completenessNote;
}

TEST(ReplayCompleteness, ADescriptionShowsWhatThePartOfASpaceLacks) {
  const TempDir dir;
  const fs::path file = dir.path / "gemm" / "gemm_300.json";
  write(file, subset("gemm/RTX_2080_Ti.json.gz", 300, true).dump());
  fs::create_directories(dir.path / "kernels");
  fs::copy_file(shipped("kernels/gemm.json"), dir.path / "kernels" / "gemm.json");
  const ReplayDataset ds = loadReplayDataset(file.string());
  EXPECT_EQ(ds.completeness, Completeness::Partial);
  EXPECT_FALSE(ds.complete);
  EXPECT_EQ(ds.descriptionPath, (dir.path / "kernels" / "gemm.json").string());
  EXPECT_TRUE(has(ds.completenessNote, "allows 17956 configurations and the file holds 300"))
      << ds.completenessNote;
}

// A description the file's configurations break is another space's: set aside, with a note.
TEST(ReplayCompleteness, ADescriptionOfAnotherSpaceIsSetAside) {
  const TempDir dir;
  const fs::path file = dir.path / "gemm" / "gemm_300.json";
  write(file, subset("gemm/RTX_2080_Ti.json.gz", 300, true).dump());
  fs::create_directories(dir.path / "kernels");
  fs::copy_file(shipped("kernels/convolution.json"), dir.path / "kernels" / "gemm.json");
  const ReplayDataset ds = loadReplayDataset(file.string());
  EXPECT_EQ(ds.completeness, Completeness::Sparse);
  EXPECT_TRUE(ds.descriptionPath.empty());
  ASSERT_FALSE(ds.notes.empty());
  EXPECT_TRUE(has(ds.notes.back(), "does not describe this file")) << ds.notes.back();
}

// Above the sparse share and with nothing to check it against, a file is complete only by
// assumption, and says so and how to check it.
TEST(ReplayCompleteness, WithNothingToCheckCompletenessIsAssumedAndSaid) {
  const TempDir dir;
  const fs::path file = dir.path / "mine" / "gemm_10000.json";
  write(file, subset("gemm/RTX_2080_Ti.json.gz", 10000, true).dump());
  const ReplayDataset ds = loadReplayDataset(file.string());
  EXPECT_EQ(ds.completeness, Completeness::Assumed);
  EXPECT_TRUE(ds.complete);
  EXPECT_TRUE(has(ds.completenessNote, "assumed complete")) << ds.completenessNote;
  EXPECT_TRUE(has(ds.completenessNote, "T1 description")) << ds.completenessNote;
}

// The shipped files stay complete, and now each is checked: by a T1 description of its space
// (kernels/), or by holding every Cartesian point (pnpoly).
TEST(ReplayCompleteness, EveryShippedDatasetIsChecked) {
  for (const std::string relative :
       {"convolution_milo/A100.json.gz", "convolution_milo/A100_T4.json.gz",
        "convolution_milo/A4000.json.gz", "convolution_milo/W6600.json.gz",
        "dedispersion_milo/MI250X.json.gz", "dedispersion_milo/W6600.json.gz",
        "gemm/RTX_2080_Ti.json.gz", "convolution/RTX_2080_Ti.json.gz",
        "pnpoly/RTX_2080_Ti.json.gz"}) {
    const ReplayDataset ds = loadReplayDataset(shipped(relative));
    EXPECT_EQ(ds.completeness, Completeness::Checked) << relative << ": " << ds.completenessNote;
    EXPECT_TRUE(ds.complete) << relative;
    const std::string folder = relative.substr(0, relative.find('/'));
    if (folder != "pnpoly") {
      EXPECT_TRUE(ds.descriptionPath.ends_with("kernels/" + folder + ".json"))
          << relative << ": " << ds.descriptionPath;
    }
  }
}

// Kernel Tuner's "time" is the objective the files rank by, but in two shipped files it is not
// the mean of the entry's own "times" (pnpoly's best: 8.02 ms against runs of 0.0156 ms).
TEST(ReplayCompleteness, TimeOutsideItsOwnTimesIsCountedAndNoted) {
  const ReplayDataset conv = loadReplayDataset(shipped("convolution/RTX_2080_Ti.json.gz"));
  EXPECT_EQ(conv.timeNotMeanOfTimes, 5214u);
  const ReplayDataset pnpoly = loadReplayDataset(shipped("pnpoly/RTX_2080_Ti.json.gz"));
  EXPECT_EQ(pnpoly.timeNotMeanOfTimes, 3722u);
  ASSERT_FALSE(pnpoly.notes.empty());
  EXPECT_TRUE(has(pnpoly.notes.back(), "is not their mean")) << pnpoly.notes.back();
  EXPECT_EQ(loadReplayDataset(shipped("gemm/RTX_2080_Ti.json.gz")).timeNotMeanOfTimes, 0u);
}

TEST(ReplayCompleteness, DescriptionsAreLookedForBesideTheFileAndInKernels) {
  EXPECT_EQ(descriptionCandidates("data/gemm/RTX_2080_Ti.json.gz"),
            (std::vector<std::string>{"data/gemm/RTX_2080_Ti.t1.json", "data/kernels/gemm.json"}));
}

}  // namespace
}  // namespace opevo
