// A database `opevo` refuses keeps nothing beside it that the command made: a damaged file, and
// any database on a full disk, left a new empty -wal and a -shm; a new database on a full disk
// was left as an empty file. The disk is a real one: a 200 KiB tmpfs, filled, in a mount
// namespace of its own (unshare -m).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "../unit/temp_dir.h"
#include "run_process.h"

namespace opevo::test {
namespace {

namespace fs = std::filesystem;

const std::string kDataset = std::string(OPEVO_DATASETS_DIR) + "/gemm/RTX_2080_Ti.json.gz";

std::string listing(const fs::path& folder) {
  std::string names;
  for (const auto& e : fs::directory_iterator(folder)) names += e.path().filename().string() + " ";
  return names;
}

// A real database: a replay's run of 3 trials.
void storeARun(const std::string& db) {
  const auto r = runProcess(
      OPEVO_CLI, {"tune", "--backend", "replay:" + kDataset, "--trials", "3", "--db", db});
  ASSERT_EQ(r.status, 0) << r.err;
}

TEST(CliRefusedDb, ADamagedDatabaseKeepsNothingBesideIt) {
  TempDir dir;
  const std::string real = dir.file("real.db");
  ASSERT_NO_FATAL_FAILURE(storeARun(real));
  fs::resize_file(real, 3 * 4096 + 100);
  fs::remove(real + "-runs.lock");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"runs", "--db", real},
        {"tune", "--backend", "replay:" + kDataset, "--trials", "2", "--db", real}}) {
    const auto r = runProcess(OPEVO_CLI, args);
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_NE(r.err.find("is damaged"), std::string::npos) << r.err;
    EXPECT_EQ(listing(dir.path), "real.db ") << args[0];
  }
}

TEST(CliRefusedDb, AFullDiskKeepsNothingBesideTheDatabase) {
  TempDir dir;
  const std::string real = dir.file("real.db");
  ASSERT_NO_FATAL_FAILURE(storeARun(real));
  const std::string disk = dir.file("disk");
  fs::create_directories(disk);
  const std::string mount = "mount -t tmpfs -o size=200k tmpfs " + shellQuote(disk);
  if (const auto probe = runProcess("unshare", {"-m", "sh", "-c", mount}); probe.status != 0)
    GTEST_SKIP() << "cannot mount a small disk here (unshare -m and mount need root or user "
                    "namespaces): "
                 << probe.err;
  const std::string cli = shellQuote(OPEVO_CLI);
  const std::string tune = cli + " tune --backend replay:" + shellQuote(kDataset) + " --trials 2";
  // Everything in the namespace, whose disk goes with it: what each command said, then what the
  // disk holds.
  const std::string script =
      mount + " && cd " + shellQuote(disk) + " && cp " + shellQuote(real) +
      " real.db && (dd if=/dev/zero of=filler bs=1k count=400 2>/dev/null; true) && " + cli +
      " runs --db real.db; " + tune + " --db real.db; " + tune + " --db new.db; ls -A";
  const auto r = runProcess("unshare", {"-m", "sh", "-c", script});
  EXPECT_NE(r.err.find("'real.db' cannot be opened: the disk holding it is full"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("'new.db' to WAL mode failed: the disk is full"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.out, "filler\nreal.db\n") << r.err;
}

}  // namespace
}  // namespace opevo::test
