#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace opevo::fuzz {

// The fuzzer's bytes as JSON, as a file would be read; nullopt for text that is not JSON (which
// the readers refuse before anything of ours runs).
inline std::optional<nlohmann::json> jsonOf(const std::uint8_t* data, std::size_t size) {
  nlohmann::json j =
      nlohmann::json::parse(std::string(reinterpret_cast<const char*>(data), size), nullptr, false);
  if (j.is_discarded()) return std::nullopt;
  return j;
}

// A folder of this process's own, in memory where the system offers it (/dev/shm), removed when
// the process exits normally: for the readers that take a path.
inline const std::filesystem::path& tempDir() {
  struct Dir {
    std::filesystem::path path;
    Dir() {
      const std::string base = std::filesystem::is_directory("/dev/shm") ? "/dev/shm" : "/tmp";
      std::string pattern = base + "/opevo-fuzz-XXXXXX";
      std::vector<char> name(pattern.begin(), pattern.end());
      name.push_back('\0');
      if (!mkdtemp(name.data())) std::abort();
      path = name.data();
    }
    ~Dir() {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  };
  static const Dir dir;
  return dir.path;
}

// Writes the fuzzer's bytes to the file `name` of tempDir(), replacing it; returns its path.
inline std::string writeTemp(const std::string& name, const std::uint8_t* data, std::size_t size) {
  const std::string path = (tempDir() / name).string();
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out) std::abort();
  return path;
}

}  // namespace opevo::fuzz
