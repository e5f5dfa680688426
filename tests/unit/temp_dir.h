#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

namespace opevo::test {

// A fresh folder under /tmp for a test's files (real SQLite databases, exported runs), removed
// with everything in it when the test ends.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    char pattern[] = "/tmp/opevo-test-XXXXXX";
    path = mkdtemp(pattern);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string file(const std::string& name) const { return (path / name).string(); }
};

}  // namespace opevo::test
