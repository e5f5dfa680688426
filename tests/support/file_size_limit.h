#pragma once

#include <sys/resource.h>

#include <csignal>
#include <filesystem>
#include <set>
#include <string>

namespace opevo::test {

// A full disk without a full disk, for root and users alike: while one of these lives, this
// process and the programs it starts cannot write a regular file past `bytes`. Such a write fails
// with EFBIG ("File too large") where a full disk says ENOSPC; the export code takes both the same
// way. SIGXFSZ, which would end the writer, is ignored meanwhile (programs started inherit that).
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    ::getrlimit(RLIMIT_FSIZE, &m_old);
    rlimit limit = m_old;
    limit.rlim_cur = bytes;
    ::setrlimit(RLIMIT_FSIZE, &limit);
    m_oldHandler = std::signal(SIGXFSZ, SIG_IGN);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &m_old);
    std::signal(SIGXFSZ, m_oldHandler);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  rlimit m_old{};
  void (*m_oldHandler)(int) = SIG_DFL;
};

// The names in a folder, hidden ones too: an export's temporary files (".NAME.XXXXXX.partial")
// left behind show here.
inline std::set<std::string> namesIn(const std::filesystem::path& folder) {
  std::set<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(folder))
    names.insert(entry.path().filename().string());
  return names;
}

}  // namespace opevo::test
