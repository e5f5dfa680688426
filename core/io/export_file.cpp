#include "io/export_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "common/error.h"
#include "io/gzip_file.h"

namespace opevo {

void writeExportFile(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".partial";
  {
    // Opening first gives a clear reason (no such folder, permission) naming the user's path.
    std::ofstream probe(temporary, std::ios::binary);
    if (!probe)
      throw InputError("cannot write '" + path +
                       "': " + (errno ? std::strerror(errno) : "cannot create the file"));
  }
  const bool gzip = path.size() >= 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  try {
    if (gzip) {
      writeGzipped(temporary, text);
    } else {
      std::ofstream out(temporary, std::ios::binary);
      out << text << '\n';
      out.close();
      if (!out) throw InputError("cannot write '" + path + "': the write failed (disk full?)");
    }
  } catch (...) {
    std::filesystem::remove(temporary);
    throw;
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) {
    std::filesystem::remove(temporary);
    throw InputError("cannot write '" + path + "': " + ec.message());
  }
}

}  // namespace opevo
