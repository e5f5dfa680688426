#pragma once

#include <string>

namespace opevo {

// The files opening a database in WAL mode may make: the database itself (where there was none),
// its write-ahead log (PATH-wal) and the log's shared-memory index (PATH-shm). SQLite removes the
// last two when its last connection closes after a checkpoint, which a read-only connection (the
// store's check of an existing file) or a refused file (damaged, another program's, a full disk)
// never reaches: each refusal left a new -wal and -shm beside the file.
//
// Noted before opening; what was there then is never removed, since another program (or another
// connection of this one) may hold it.
class FilesBeside {
 public:
  explicit FilesBeside(std::string path);

  // Removes what was not there when noted and that no process holds now: a file with a lock on it
  // (any process's, this one's included, as /proc/locks lists them; SQLite locks the -shm for as
  // long as a connection has it mapped) stays, and so does all of it when the locks cannot be
  // read. The -wal goes only while empty (a log with commits is someone's), the database only
  // while empty (no page of it was written). Call it once this process's connection is closed.
  void removeWhatWasMade() const;

 private:
  std::string m_path;
  bool m_database = false, m_wal = false, m_shm = false;  // there when noted
};

}  // namespace opevo
