#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "../unit/temp_dir.h"
#include "run_process.h"
#include "store/store.h"

namespace opevo {
namespace {

using test::TempDir;

RunRecord aRun() {
  RunRecord r;
  r.operatorName = "MM1";
  r.operatorJson = "{}";
  r.algorithm = "opevo";
  r.settingsJson = "{}";
  r.backend = "cpu";
  r.device = "test cpu";
  r.budgetJson = R"({"trials":10})";
  r.speedUnit = "TFLOPS";
  return r;
}

// Whether another process sees a lock held on the byte range where SQLite's connections hold
// their shared lock on the database file (os_unix.c: SHARED_FIRST, 510 bytes from 1 GiB + 2). A
// connection in WAL mode holds it for as long as it is open: it is how a closing connection
// knows it is not the last one, and so leaves the write-ahead log alone.
bool anotherProcessSeesASharedLock(const std::string& path) {
  const pid_t child = fork();
  if (child == 0) {
    const int fd = ::open(path.c_str(), O_RDWR);
    struct flock lock {};
    lock.l_type = F_WRLCK;
    lock.l_whence = SEEK_SET;
    lock.l_start = 0x40000000 + 2;
    lock.l_len = 510;
    if (fd < 0 || fcntl(fd, F_GETLK, &lock) != 0) _exit(2);
    _exit(lock.l_type == F_UNLCK ? 1 : 0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) != 2) << "the lock could not be asked";
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// Found when a test of the window failed in CI with "switching ... to WAL mode failed: disk I/O
// error": opening a database read its header through a file descriptor of its own, and closing
// it dropped every POSIX lock the process held on the file, those of its connections already
// open too (the window's pages and its engine each open one). Another program opening the file
// then (`opevo tune`, a reader) found no lock, took itself for the last user on closing,
// checkpointed and removed the write-ahead log under the window's connections. Under a load of
// two processes opening a new database from two threads each, 76 rounds of 100 failed that way
// (disk I/O errors, and "corrupt" files with "unable to get the page. error code=522").
TEST(StoreLocks, OpeningTheDatabaseAgainKeepsTheLocksOfTheConnectionsAlreadyOpen) {
  TempDir dir;
  const std::string path = dir.file("opevo.db");
  Store first(path);
  first.createRun(aRun());
  ASSERT_TRUE(anotherProcessSeesASharedLock(path)) << "a WAL connection holds a shared lock";
  {
    Store second(path);
    EXPECT_TRUE(anotherProcessSeesASharedLock(path)) << "opening it again dropped the lock";
    Store reader(path, Store::Opening::ExistingOnly);
    EXPECT_TRUE(anotherProcessSeesASharedLock(path)) << "opening it to read dropped the lock";
  }
  EXPECT_TRUE(anotherProcessSeesASharedLock(path)) << "the first connection's lock is gone";
}

// What the lost lock cost: another program (`opevo runs`), closing the database, took itself for
// its last user and removed the write-ahead log that held this process's commits.
TEST(StoreLocks, AnotherProgramClosingTheDatabaseLeavesThisProcesssWriteAheadLog) {
  TempDir dir;
  const std::string path = dir.file("opevo.db");
  Store first(path);
  const std::int64_t run = first.createRun(aRun());
  { Store second(path, Store::Opening::ExistingOnly); }
  const test::ProcessResult runs = test::runProcess(OPEVO_CLI, {"runs", "--db", path});
  ASSERT_EQ(runs.status, 0) << runs.err;
  EXPECT_TRUE(std::filesystem::exists(path + "-wal")) << "the other program removed the log";
  const std::int64_t later = first.createRun(aRun());
  EXPECT_GT(later, run);
  EXPECT_EQ(Store(path).runs().size(), 2u);
}

}  // namespace
}  // namespace opevo
