#include "io/export_file.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <set>
#include <thread>

#include "file_bytes.h"
#include "file_size_limit.h"
#include "io/gzip_file.h"
#include "io/trials_csv.h"

namespace opevo {
namespace {

namespace fs = std::filesystem;
using test::FileSizeLimit;
using test::namesIn;
using Names = std::set<std::string>;

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
  EXPECT_EQ(test::fileBytes(file), std::string("\x89PNG\0\r\n", 7));
  EXPECT_EQ(namesIn(dir.path), Names{"chart.png"});
}

// An export named at a pipe (or a device: `export-t4 1 --out /dev/full` run as root left /dev/full
// a text file) is refused: the rename put the export in its place.
TEST(ExportFile, APipeOrADeviceIsNotReplaced) {
  TempDir dir;
  const fs::path pipe = dir.path / "results.json";
  ASSERT_EQ(mkfifo(pipe.c_str(), 0600), 0);
  try {
    writeExportFile(pipe.string(), "{}");
    ADD_FAILURE() << "written";
  } catch (const ExportWriteError& e) {
    EXPECT_EQ(e.reason(), "it is a pipe or a socket, not a file (the export would take its place)");
    EXPECT_EQ(e.path(), pipe.string());
  }
  EXPECT_TRUE(fs::is_fifo(pipe));
  EXPECT_EQ(namesIn(dir.path), Names{"results.json"});
}

// A name of 250 bytes is a name the user may give; its temporary (16 bytes longer) was not, and the
// export failed with "File name too long".
TEST(ExportFile, ANameNearTheLimitIsWrittenAndLeavesNoTemporary) {
  TempDir dir;
  const std::string name = std::string(246, 'k') + ".cu";
  ASSERT_EQ(name.size(), 249u);
  const fs::path file = dir.path / name;
  writeExportFile(file.string(), "__global__ void k() {}");
  EXPECT_EQ(test::fileBytes(file), "__global__ void k() {}\n");
  EXPECT_EQ(namesIn(dir.path), Names{name});
}

// The walk: an SVG, a CSV and a PNG written to a full disk were 0-byte files, two of them reported
// as saved.
TEST(ExportFile, AFullDiskIsAnErrorNamingTheFileAndTheReasonAndLeavesNoFile) {
  TempDir dir;
  const fs::path file = dir.path / "race.svg";
  try {
    FileSizeLimit full(4096);
    writeExportBytes(file.string(), std::string(100000, 'x'));
    FAIL() << "a write to a full disk succeeded";
  } catch (const ExportWriteError& e) {
    EXPECT_EQ(e.path(), file.string());
    EXPECT_EQ(e.reason(), "File too large");
    EXPECT_EQ(std::string(e.what()), "cannot write '" + file.string() + "': File too large");
  }
  EXPECT_TRUE(fs::is_empty(dir.path)) << "the file or its temporary was left";
}

// The temporary was "FILE.partial", opened through whatever stood there: a link planted under
// that name in a shared folder such as /tmp made an export overwrite the file it pointed to.
TEST(ExportFile, ALinkPlantedBesideTheFileIsNeverWrittenThrough) {
  TempDir dir;
  const fs::path victim = dir.path / "notes.txt";
  writeExportBytes(victim.string(), "mine\n");
  const fs::path file = dir.path / "race.svg";
  fs::create_symlink(victim, file.string() + ".partial");
  writeExportBytes(file.string(), "<svg/>");
  EXPECT_EQ(test::fileBytes(victim), "mine\n");
  EXPECT_EQ(test::fileBytes(file), "<svg/>");
  EXPECT_EQ(namesIn(dir.path), (Names{"notes.txt", "race.svg", "race.svg.partial"}));
}

// Each export writes its own temporary: two of one file at once do not mix their bytes.
TEST(ExportFile, TwoExportsOfOneFileAtOnceEachWriteWhole) {
  TempDir dir;
  const fs::path file = dir.path / "trials.csv";
  const std::string a(300000, 'a'), b(200000, 'b');
  std::thread other([&] { writeExportBytes(file.string(), a); });
  writeExportBytes(file.string(), b);
  other.join();
  const std::string result = test::fileBytes(file);
  EXPECT_TRUE(result == a || result == b) << "a mix of " << result.size() << " bytes";
  EXPECT_EQ(namesIn(dir.path), Names{"trials.csv"});
}

TEST(ExportFile, AFailedWriteKeepsTheEarlierFileWhole) {
  TempDir dir;
  const fs::path file = dir.path / "trials.csv";
  writeExportBytes(file.string(), "earlier\n");
  {
    FileSizeLimit full(4);
    EXPECT_THROW(writeExportBytes(file.string(), "later\n"), ExportWriteError);
  }
  EXPECT_EQ(test::fileBytes(file), "earlier\n");
  EXPECT_EQ(namesIn(dir.path), Names{"trials.csv"});
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
  EXPECT_EQ(test::fileBytes(dir.path / "a.json"), "{}\n");
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
  // config.h is the one too large for the disk left.
  const std::vector<ExportFileContent> files = {{"kernel.cpp", "kernel\n"},
                                                {"config.h", std::string(20000, 'c')},
                                                {"build.sh", "#!/bin/sh\n", true}};
  fs::create_directory(out);
  try {
    FileSizeLimit full(4096);
    writeExportFolder(out, files);
    FAIL() << "an export to a full disk succeeded";
  } catch (const ExportWriteError& e) {
    EXPECT_EQ(e.path(), (out / "config.h").string());
    EXPECT_EQ(e.reason(), "File too large");
  }
  EXPECT_TRUE(fs::is_empty(out)) << "files or temporaries were left";

  // A folder the failed export created is not left behind either.
  const fs::path fresh = dir.path / "fresh";
  EXPECT_THROW(writeExportFolder(fresh, {{"a", "a"}, {"b/c", "c"}}), ExportWriteError);
  EXPECT_FALSE(fs::exists(fresh));

  // A folder in the way of the last file stops the export before any file is written.
  fs::create_directory(out / "build.sh");
  EXPECT_THROW(writeExportFolder(out, files), ExportWriteError);
  EXPECT_FALSE(fs::exists(out / "kernel.cpp"));
  fs::remove(out / "build.sh");

  const std::vector<std::string> written = writeExportFolder(out, files);
  ASSERT_EQ(written.size(), 3u);
  EXPECT_EQ(written[1], (out / "config.h").string());
  EXPECT_EQ(test::fileBytes(out / "config.h"), files[1].bytes);
  EXPECT_EQ(namesIn(out), (Names{"build.sh", "config.h", "kernel.cpp"}));
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
  DeviceClock device;
  const std::string first = trialsCsvRow(t, device);
  EXPECT_EQ(first.rfind("7,5,opevo,1,1,3,", 0), 0u) << first;
  t.repeat = 1;
  const std::string second = trialsCsvRow(t, device);
  EXPECT_EQ(second.rfind("7,5,opevo,2,1,3,", 0), 0u) << second;
}

}  // namespace
}  // namespace opevo
