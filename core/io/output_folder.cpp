#include "io/output_folder.h"

#include <system_error>

#include "common/error.h"

namespace opevo {

void createOutputFolder(const std::filesystem::path& folder) {
  if (folder.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (!ec && !std::filesystem::is_directory(folder, ec))
    ec = std::make_error_code(std::errc::not_a_directory);
  if (ec) throw InputError("cannot create the folder " + folder.string() + ": " + ec.message());
}

}  // namespace opevo
