#include "io/export_file.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "io/gzip_file.h"
#include "io/trials_csv.h"

namespace opevo {
namespace {

namespace fs = std::filesystem;

// A full disk without a full disk: the temporary file an export writes first (path + ".partial")
// is made a link to /dev/full, whose every write fails with ENOSPC, for root and users alike.
void fillDiskFor(const fs::path& path) {
  fs::create_symlink("/dev/full", path.string() + ".partial");
}

std::string readAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct TempDir {
  TempDir() {
    char pattern[] = "/tmp/opevo-export-file-XXXXXX";
    path = mkdtemp(pattern);
  }
  ~TempDir() { fs::remove_all(path); }
  fs::path path;
};

TEST(ExportFile, WritesExactlyTheBytesAndLeavesNoTemporary) {
  TempDir dir;
  const fs::path file = dir.path / "chart.png";
  writeExportBytes(file.string(), std::string("\x89PNG\0\r\n", 7));
  EXPECT_EQ(readAll(file), std::string("\x89PNG\0\r\n", 7));
  EXPECT_FALSE(fs::exists(file.string() + ".partial"));
}

// The walk: an SVG, a CSV and a PNG written to a full disk were 0-byte files, two of them reported
// as saved.
TEST(ExportFile, AFullDiskIsAnErrorNamingTheFileAndTheReasonAndLeavesNoFile) {
  TempDir dir;
  const fs::path file = dir.path / "race.svg";
  fillDiskFor(file);
  try {
    writeExportBytes(file.string(), std::string(100000, 'x'));
    FAIL() << "a write to a full disk succeeded";
  } catch (const ExportWriteError& e) {
    EXPECT_EQ(e.path(), file.string());
    EXPECT_EQ(e.reason(), "No space left on device");
    EXPECT_EQ(std::string(e.what()),
              "cannot write '" + file.string() + "': No space left on device");
  }
  EXPECT_FALSE(fs::exists(file));
  EXPECT_FALSE(fs::exists(fs::symlink_status(file.string() + ".partial")));
}

TEST(ExportFile, AFailedWriteKeepsTheEarlierFileWhole) {
  TempDir dir;
  const fs::path file = dir.path / "trials.csv";
  writeExportBytes(file.string(), "earlier\n");
  fillDiskFor(file);
  EXPECT_THROW(writeExportBytes(file.string(), "later\n"), ExportWriteError);
  EXPECT_EQ(readAll(file), "earlier\n");
}

TEST(ExportFile, AMissingFolderOrAFolderInTheWayIsSaidWithItsReason) {
  TempDir dir;
  try {
    writeExportBytes((dir.path / "no" / "such" / "race.png").string(), "x");
    FAIL();
  } catch (const ExportWriteError& e) {
    EXPECT_EQ(e.reason(), "No such file or directory");
  }
  fs::create_directory(dir.path / "race.csv");
  try {
    writeExportBytes((dir.path / "race.csv").string(), "x");
    FAIL();
  } catch (const ExportWriteError& e) {
    EXPECT_EQ(e.reason(), "a folder of that name is in the way");
  }
  EXPECT_TRUE(fs::is_directory(dir.path / "race.csv"));
}

TEST(ExportFile, TextEndsInALineBreakAndGzIsCompressed) {
  TempDir dir;
  writeExportFile((dir.path / "a.json").string(), "{}");
  EXPECT_EQ(readAll(dir.path / "a.json"), "{}\n");
  const std::string big(50000, 'z');
  writeExportFile((dir.path / "b.json.gz").string(), big);
  EXPECT_LT(fs::file_size(dir.path / "b.json.gz"), 1000u);
  EXPECT_EQ(readMaybeGzipped((dir.path / "b.json.gz").string()), big);
}

// Several of gzipBytes' 1 MiB input chunks, of bytes that do not compress to nothing: what
// comes back is every byte (a one-call deflate stopped at 4 GiB without a word).
TEST(ExportFile, GzipRoundTripsAcrossChunks) {
  TempDir dir;
  std::string data(3 * (1 << 20) + 12345, '\0');
  std::uint32_t x = 12345;
  for (char& c : data) {
    x = x * 1664525u + 1013904223u;
    c = static_cast<char>(x >> 24);
  }
  writeExportFile((dir.path / "c.bin.gz").string(), data);
  const std::string back = readMaybeGzipped((dir.path / "c.bin.gz").string());
  EXPECT_EQ(back.size(), data.size());
  EXPECT_TRUE(back == data);            // not EXPECT_EQ: a mismatch would print 3 MiB
  EXPECT_FALSE(gzipBytes("").empty());  // an empty stream still has its header
}

// `opevo export` on a full disk: one file was reported, the others left at 0 bytes.
TEST(ExportFolder, WritesAllOrNone) {
  TempDir dir;
  const fs::path out = dir.path / "export";
  const std::vector<ExportFileContent> files = {
      {"kernel.cpp", "kernel\n"}, {"config.h", "config\n"}, {"build.sh", "#!/bin/sh\n", true}};
  fs::create_directory(out);
  fillDiskFor(out / "config.h");
  try {
    writeExportFolder(out, files);
    FAIL() << "an export to a full disk succeeded";
  } catch (const ExportWriteError& e) {
    EXPECT_EQ(e.path(), (out / "config.h").string());
    EXPECT_EQ(e.reason(), "No space left on device");
  }
  EXPECT_TRUE(fs::is_empty(out)) << "files or temporaries were left";

  // A folder the failed export created is not left behind either.
  const fs::path fresh = dir.path / "fresh";
  EXPECT_THROW(writeExportFolder(fresh, {{"a", "a"}, {"b/c", "c"}}), ExportWriteError);
  EXPECT_FALSE(fs::exists(fresh));

  // A folder in the way of the last file stops the export before any file is written.
  fs::create_directory(out / "build.sh");
  fs::remove(out / "config.h.partial");
  EXPECT_THROW(writeExportFolder(out, files), ExportWriteError);
  EXPECT_FALSE(fs::exists(out / "kernel.cpp"));
  fs::remove(out / "build.sh");

  const std::vector<std::string> written = writeExportFolder(out, files);
  ASSERT_EQ(written.size(), 3u);
  EXPECT_EQ(written[1], (out / "config.h").string());
  EXPECT_EQ(readAll(out / "config.h"), "config\n");
  EXPECT_NE(fs::status(out / "build.sh").permissions() & fs::perms::owner_exec, fs::perms::none);
  EXPECT_EQ(fs::status(out / "kernel.cpp").permissions() & fs::perms::owner_exec, fs::perms::none);
}

// History's Repeat column and compare's progress lines count from 1: so does trials.csv.
TEST(TrialsCsv, TheRepeatColumnIsOneBasedAsTheWindowShowsIt) {
  TrialRecord t;
  t.order = 7;
  t.run = 5;
  t.algorithm = "opevo";
  t.repeat = 0;
  t.seed = 1;
  t.trial = 3;
  EXPECT_EQ(trialsCsvRow(t).rfind("7,5,opevo,1,1,3,", 0), 0u) << trialsCsvRow(t);
  t.repeat = 1;
  EXPECT_EQ(trialsCsvRow(t).rfind("7,5,opevo,2,1,3,", 0), 0u) << trialsCsvRow(t);
}

}  // namespace
}  // namespace opevo
