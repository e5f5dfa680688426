#include "common/kernel_cache.h"

#include <cstdlib>
#include <filesystem>

#include "common/error.h"

namespace opevo {

std::string defaultKernelCacheDir(std::string_view leaf) {
  std::filesystem::path base;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    base = xdg;
  else if (const char* home = std::getenv("HOME"); home && *home)
    base = std::filesystem::path(home) / ".cache";
  else
    base = std::filesystem::temp_directory_path();
  return (base / "opevo-studio" / leaf).string();
}

void makeKernelCacheDir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    throw InputError("cannot make the kernel cache folder '" + dir + "': " + ec.message() +
                     " (set XDG_CACHE_HOME to a folder of yours)");
}

}  // namespace opevo
