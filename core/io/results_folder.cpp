#include "io/results_folder.h"

#include <system_error>

#include "common/error.h"
#include "io/export_file.h"

namespace opevo {
namespace fs = std::filesystem;

std::vector<std::string> earlierResults(const fs::path& folder,
                                        const std::vector<std::string>& names) {
  std::vector<std::string> found;
  std::error_code ignored;
  // Files only: a folder or a device in a result's place is no earlier result, and writing the
  // result there fails with its own reason.
  for (const std::string& name : names)
    if (fs::is_regular_file(folder / name, ignored)) found.push_back(name);
  return found;
}

void claimResultsFolder(const fs::path& folder, const std::vector<std::string>& names, bool replace,
                        const std::string& what) {
  const std::vector<std::string> earlier = earlierResults(folder, names);
  if (earlier.empty()) return;
  std::string list;
  for (const std::string& name : earlier) list += (list.empty() ? "" : ", ") + name;
  if (!replace)
    throw InputError("'" + folder.string() + "' already holds " + what + " (" + list +
                     "): nothing was run; give another --out, or add --force to replace them");
  for (const std::string& name : earlier) {
    std::error_code ec;
    fs::remove(folder / name, ec);
    if (ec) throw InputError("cannot replace " + (folder / name).string() + ": " + ec.message());
  }
}

void publishResult(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  fs::rename(from, to, ec);
  if (ec) throw ExportWriteError(to.string(), ec.message());
}

}  // namespace opevo
