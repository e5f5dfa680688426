// The lock a process holds on the runs it tunes (core/store/run_lock.h), within one process:
// held once whatever the database is called, let go with its holder. Another process is refused
// by KillAndResume.ARunTunedElsewhereIsNotResumedBesideIt.

#include "store/run_lock.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace opevo
