#include "store/run_lock.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <tuple>

#include "common/error.h"

namespace opevo {
namespace {

// The lock files' descriptors stay open for the process's life: closing any descriptor of a file
// drops every fcntl lock the process holds on it, so one per file, never closed.
struct Registry {
  std::mutex mutex;
  std::map<std::string, int> files;               // canonical path -> descriptor (-1: none)
  std::set<std::tuple<std::string, off_t>> held;  // (path, byte) held by this process
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: locks may outlive static destruction
  return *r;
}

off_t byteOf(LockedKind kind, std::int64_t id) {
  // Network runs after every tuning run a database could hold, kernel searches after them.
  const off_t base = kind == LockedKind::Network     ? (off_t{1} << 40)
                     : kind == LockedKind::KasSearch ? (off_t{2} << 40)
                                                     : 0;
  return static_cast<off_t>(id) + base;
}

flock lockAt(short type, off_t byte) {
  flock l{};
  l.l_type = type;
  l.l_whence = SEEK_SET;
  l.l_start = byte;
  l.l_len = 1;
  return l;
}

// One lock file however the database is named ("a.db", "./a.db", a linked folder); empty for a
// database that is no file another process could open.
std::string lockFileOf(const std::string& databasePath) {
  if (databasePath.empty() || databasePath == ":memory:" || databasePath.rfind("file:", 0) == 0)
    return {};
  std::error_code ec;
  const std::filesystem::path canonical = std::filesystem::weakly_canonical(databasePath, ec);
  return (ec ? std::filesystem::path(databasePath) : canonical).string() + "-runs.lock";
}

}  // namespace

std::optional<bool> RunLock::isHeld(const std::string& databasePath, LockedKind kind,
                                    std::int64_t id) {
  const std::string path = lockFileOf(databasePath);
  if (path.empty()) return false;
  const off_t byte = byteOf(kind, id);
  Registry& r = registry();
  std::lock_guard guard(r.mutex);  // no lock of this process is taken while it looks
  if (r.held.count({path, byte})) return true;
  flock who = lockAt(F_WRLCK, byte);
  // F_GETLK names another process's lock. Through the registry's descriptor when this process
  // has one: closing any descriptor of the file would drop every lock the process holds on it.
  int fd = -1;
  bool own = false;
  if (const auto file = r.files.find(path); file != r.files.end()) {
    if (file->second < 0) return std::nullopt;  // not even this process could open it
    fd = file->second;
  } else {
    // Else this process holds none there, and a read-only look creates nothing.
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT ? std::optional<bool>(false) : std::nullopt;
    own = true;
  }
  const bool asked = ::fcntl(fd, F_GETLK, &who) == 0;
  if (own) ::close(fd);
  if (!asked) return std::nullopt;
  return who.l_type != F_UNLCK;
}

RunLock::RunLock(const std::string& databasePath, LockedKind kind, std::int64_t id) {
  const std::string path = lockFileOf(databasePath);
  if (path.empty()) return;
  const std::string what = std::string(kind == LockedKind::Network     ? "network run "
                                       : kind == LockedKind::KasSearch ? "kernel search "
                                                                       : "run ") +
                           std::to_string(id) + " of " + databasePath;
  const std::string doing = kind == LockedKind::KasSearch ? "run" : "tuned";
  Registry& r = registry();
  std::lock_guard guard(r.mutex);
  auto file = r.files.find(path);
  if (file == r.files.end())
    file = r.files.emplace(path, ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)).first;
  if (file->second < 0) return;  // a folder this process cannot write to: it stores nothing there
  const off_t byte = byteOf(kind, id);
  // This process tunes it already (the window's Runs and Networks pages, or a second resume).
  if (r.held.count({path, byte}))
    throw InputError(what + " is being " + doing + " here already: wait for it to end, or stop it");
  flock l = lockAt(F_WRLCK, byte);
  if (::fcntl(file->second, F_SETLK, &l) != 0) {
    // Only a lock held elsewhere refuses the run; a file system without locks (some network
    // mounts) tunes without one, as before locks existed.
    if (errno != EACCES && errno != EAGAIN) return;
    flock who = lockAt(F_WRLCK, byte);
    const bool known = ::fcntl(file->second, F_GETLK, &who) == 0 && who.l_type != F_UNLCK;
    throw InputError(what + " is being " + doing + " by another process" +
                     (known ? " (pid " + std::to_string(who.l_pid) + ")" : std::string()) +
                     ": wait for it to end, or stop it, before resuming it here");
  }
  r.held.insert({path, byte});
  m_path = path;
  m_byte = byte;
  m_fd = file->second;
}

RunLock::~RunLock() {
  if (m_path.empty()) return;
  Registry& r = registry();
  std::lock_guard guard(r.mutex);
  const off_t byte = static_cast<off_t>(m_byte);
  r.held.erase({m_path, byte});
  flock l = lockAt(F_UNLCK, byte);
  ::fcntl(m_fd, F_SETLK, &l);
}

}  // namespace opevo
