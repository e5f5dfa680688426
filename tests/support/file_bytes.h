#pragma once

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace opevo::test {

// A file's whole content, bytes as they are (empty where it cannot be read): tests compare a
// database's bytes before and after what must not change it.
inline std::string fileBytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace opevo::test
