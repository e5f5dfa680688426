// The lock a process holds on the runs it tunes (core/store/run_lock.h), within one process:
// held once whatever the database is called, let go with its holder. Another process is refused
// by KillAndResume.ARunTunedElsewhereIsNotResumedBesideIt.

#include "store/run_lock.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "common/error.h"
#include "temp_dir.h"

namespace opevo {
namespace {

TEST(RunLock, ARunIsHeldOnceHoweverTheDatabaseIsNamed) {
  test::TempDir dir;
  const std::filesystem::path db = dir.path / "runs.db";
  const std::filesystem::path other = dir.path / "." / "runs.db";
  {
    RunLock held(db.string(), LockedKind::Run, 3);
    try {
      RunLock again(other.string(), LockedKind::Run, 3);
      ADD_FAILURE() << "run 3 was taken twice";
    } catch (const InputError& e) {
      EXPECT_NE(
          std::string(e.what()).find("run 3 of " + other.string() + " is being tuned here already"),
          std::string::npos)
          << e.what();
    }
    // Another run, and a network run of the same number, are other locks.
    RunLock second(db.string(), LockedKind::Run, 4);
    RunLock network(db.string(), LockedKind::Network, 3);
    EXPECT_TRUE(std::filesystem::exists(db.string() + "-runs.lock"));
  }
  // Let go with its holder.
  RunLock after(other.string(), LockedKind::Run, 3);
  // An in-memory database locks nothing.
  RunLock memory(":memory:", LockedKind::Run, 3);
  RunLock memoryAgain(":memory:", LockedKind::Run, 3);
}

// Whether a run is held, asked in the process holding it and in another: asking must not drop the
// lock (closing any descriptor of the lock file drops every fcntl lock the process has on it).
TEST(RunLock, AskingWhetherARunIsHeldKeepsTheLocksHeld) {
  test::TempDir dir;
  const std::string db = (dir.path / "runs.db").string();
  EXPECT_EQ(RunLock::isHeld(db, LockedKind::Run, 1), false);  // no lock file yet
  EXPECT_FALSE(std::filesystem::exists(db + "-runs.lock"));   // and asking made none
  RunLock held(db, LockedKind::Run, 1);
  EXPECT_EQ(RunLock::isHeld(db, LockedKind::Run, 1), true);
  EXPECT_EQ(RunLock::isHeld(db, LockedKind::Run, 2), false);
  EXPECT_EQ(RunLock::isHeld(db, LockedKind::Network, 1), false);
  // Another process sees run 1 held, after the asks above, and run 2 free.
  const pid_t child = fork();
  if (child == 0) {
    const int fd = ::open((db + "-runs.lock").c_str(), O_RDONLY);
    flock who{};
    who.l_type = F_WRLCK;
    who.l_whence = SEEK_SET;
    who.l_start = 1;
    who.l_len = 1;
    const bool one = fd >= 0 && ::fcntl(fd, F_GETLK, &who) == 0 && who.l_type != F_UNLCK;
    _exit(one ? 0 : 1);
  }
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "run 1's lock was dropped";
}

}  // namespace
}  // namespace opevo
