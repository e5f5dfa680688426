#include "store/files_beside.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace opevo {
namespace {

bool there(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) return true;
  // A file that cannot be looked at counts as there: it is never removed.
  return errno != ENOENT && errno != ENOTDIR;
}

enum class Held { No, Yes, Unknown };

// Whether any process holds a lock on the file, as the kernel lists them in /proc/locks: lines
// such as "3: POSIX  ADVISORY  READ 4711 00:2d:1234 128 128", the file as major:minor:inode
// (the first two in hex). Read rather than asked with fcntl: a descriptor of our own, closed
// again, would drop every POSIX lock this process holds on the file.
Held heldByAnyone(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return Held::Unknown;
  std::ifstream locks("/proc/locks");
  if (!locks) return Held::Unknown;
  std::string line;
  while (std::getline(locks, line)) {
    std::istringstream words(line);
    std::string word;
    while (words >> word) {
      unsigned major = 0, minor = 0;
      unsigned long long inode = 0;
      char end = 0;
      if (std::sscanf(word.c_str(), "%x:%x:%llu%c", &major, &minor, &inode, &end) == 3 &&
          major == ::major(st.st_dev) && minor == ::minor(st.st_dev) && inode == st.st_ino)
        return Held::Yes;
    }
  }
  return locks.eof() ? Held::No : Held::Unknown;
}

// Removes `path` when it is a plain file no process holds a lock on, empty where `emptyOnly`.
void removeIfUnheld(const std::string& path, bool emptyOnly) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(std::filesystem::symlink_status(path, ec))) return;
  if (emptyOnly && std::filesystem::file_size(path, ec) != 0) return;
  if (ec || heldByAnyone(path) != Held::No) return;
  std::filesystem::remove(path, ec);  // a folder that cannot be written keeps it: nothing to do
}

}  // namespace

FilesBeside::FilesBeside(std::string path)
    : m_path(std::move(path)),
      m_database(there(m_path)),
      m_wal(there(m_path + "-wal")),
      m_shm(there(m_path + "-shm")) {}

void FilesBeside::removeWhatWasMade() const {
  const std::string shm = m_path + "-shm", wal = m_path + "-wal";
  // While the index is there and held, a program has the database and its log open.
  if (there(shm) && heldByAnyone(shm) != Held::No) return;
  if (!m_shm) removeIfUnheld(shm, false);
  if (!m_wal) removeIfUnheld(wal, true);
  if (!m_database && !there(wal) && !there(shm)) removeIfUnheld(m_path, true);
}

}  // namespace opevo
