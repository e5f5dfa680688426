#include "store/run_lock.h"

#include <fcntl.h>
#include <unistd.h>

#include <map>
#include <mutex>
#include <tuple>

#include "common/error.h"

namespace opevo {
namespace {

// The lock files' descriptors stay open for the process's life: closing any descriptor of a file
// drops every fcntl lock the process holds on it, so one per file, never closed.
struct Registry {
  std::mutex mutex;
  std::map<std::string, int> files;                       // path -> descriptor (-1: none)
  std::map<std::tuple<std::string, off_t>, int> holders;  // (path, byte) -> holders here
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: locks may outlive static destruction
  return *r;
}

off_t byteOf(LockedKind kind, std::int64_t id) {
  // Network runs after every tuning run a database could hold.
  return static_cast<off_t>(id) + (kind == LockedKind::Network ? (off_t{1} << 40) : 0);
}

flock lockAt(short type, off_t byte) {
  flock l{};
  l.l_type = type;
  l.l_whence = SEEK_SET;
  l.l_start = byte;
  l.l_len = 1;
  return l;
}

}  // namespace

RunLock::RunLock(const std::string& databasePath, LockedKind kind, std::int64_t id) {
  Registry& r = registry();
  std::lock_guard guard(r.mutex);
  const std::string path = databasePath + "-runs.lock";
  auto file = r.files.find(path);
  if (file == r.files.end())
    file = r.files.emplace(path, ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)).first;
  if (file->second < 0) return;  // a folder nobody can write to: no one else tunes there either
  const off_t byte = byteOf(kind, id);
  int& holders = r.holders[{path, byte}];
  if (holders == 0) {
    flock l = lockAt(F_WRLCK, byte);
    if (::fcntl(file->second, F_SETLK, &l) != 0) {
      flock who = lockAt(F_WRLCK, byte);
      const bool known = ::fcntl(file->second, F_GETLK, &who) == 0 && who.l_type != F_UNLCK;
      r.holders.erase({path, byte});
      throw InputError(std::string(kind == LockedKind::Network ? "network run " : "run ") +
                       std::to_string(id) + " of " + databasePath +
                       " is being tuned by another process" +
                       (known ? " (pid " + std::to_string(who.l_pid) + ")" : std::string()) +
                       ": wait for it to end, or stop it, before resuming it here");
    }
  }
  ++holders;
  m_path = path;
  m_byte = byte;
  m_fd = file->second;
}

RunLock::~RunLock() {
  if (m_path.empty()) return;
  Registry& r = registry();
  std::lock_guard guard(r.mutex);
  const off_t byte = static_cast<off_t>(m_byte);
  const auto it = r.holders.find({m_path, byte});
  if (it == r.holders.end() || --it->second > 0) return;
  r.holders.erase(it);
  flock l = lockAt(F_UNLCK, byte);
  ::fcntl(m_fd, F_SETLK, &l);
}

}  // namespace opevo
