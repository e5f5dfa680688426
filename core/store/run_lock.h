#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace opevo {

// What a lock holds: a tuning run, a network run (whose task runs are runs too), or a kernel
// search (Canvas's loop).
enum class LockedKind { Run, Network, KasSearch };

// A run of a database held by this process while it tunes it, so that a second process resuming
// the same run (a `tune --resume` typed twice, the window's Resume while the command line still
// runs it) is refused instead of measuring beside it and failing on the first trial both commit.
// One byte of the file DB-runs.lock beside the database, locked with fcntl: the lock goes with
// the process however it ends, kill -9 included, so a run whose program died resumes at once.
// Within one process a run is held once too (the window's pages tune side by side).
class RunLock {
 public:
  // Takes the lock, or throws InputError naming the run, the database and the process holding
  // it. Not locked: an in-memory database, one whose folder this process cannot write to (it
  // could store nothing there), and one on a file system without fcntl locks.
  RunLock(const std::string& databasePath, LockedKind kind, std::int64_t id);
  ~RunLock();
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

  // Whether a process (this one included) holds the run now. A run stored "running" that nobody
  // holds was left by a program that died (kill -9, a power cut): it reads as interrupted. False
  // where no lock can exist (an in-memory database, no lock file); nullopt where the file system
  // cannot say (no fcntl locks there: runs are tuned without them).
  static std::optional<bool> isHeld(const std::string& databasePath, LockedKind kind,
                                    std::int64_t id);

 private:
  std::string m_path;  // the lock file; empty when nothing is held
  std::int64_t m_byte = 0;
  int m_fd = -1;
};

}  // namespace opevo
