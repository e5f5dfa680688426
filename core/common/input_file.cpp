#include "common/input_file.h"

#include <filesystem>
#include <system_error>

namespace opevo {

std::optional<std::string> deviceInsteadOfFile(const std::string& path) {
  std::error_code ec;
  const auto type = std::filesystem::status(path, ec).type();
  if (ec) return std::nullopt;
  if (type != std::filesystem::file_type::character && type != std::filesystem::file_type::block)
    return std::nullopt;
  return "'" + path + "' is a device, not a file";
}

}  // namespace opevo
