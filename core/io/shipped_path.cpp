#include "io/shipped_path.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace opevo {
namespace fs = std::filesystem;
namespace {

const char* folderName(ShippedKind kind) {
  return kind == ShippedKind::Datasets ? "datasets" : "measurements";
}

// The folder of the running program; empty when /proc/self/exe cannot be read.
fs::path programFolder() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : self.parent_path();
}

// The source tree a build folder lies in (build/NAME/bin/opevo: three levels up), found by its
// CMakeLists.txt beside resources/datasets; empty for an installed copy.
fs::path sourceTree(const fs::path& programDir) {
  std::error_code ec;
  fs::path dir = programDir;
  for (int up = 0; up < 4 && !dir.empty(); ++up, dir = dir.parent_path()) {
    if (fs::is_regular_file(dir / "CMakeLists.txt", ec) &&
        fs::is_directory(dir / "resources" / "datasets", ec))
      return dir;
    if (dir == dir.parent_path()) break;
  }
  return {};
}

bool isFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// "resources/datasets/gemm/x" -> "gemm/x" when `path` begins with resources/<folder>/.
std::optional<fs::path> below(const fs::path& path, ShippedKind kind) {
  auto it = path.begin();
  if (it == path.end() || *it != "resources") return std::nullopt;
  if (++it == path.end() || *it != folderName(kind)) return std::nullopt;
  fs::path rest;
  for (++it; it != path.end(); ++it) rest /= *it;
  if (rest.empty()) return std::nullopt;
  return rest;
}

}  // namespace

std::vector<std::string> shippedFolders(ShippedKind kind) {
  std::vector<std::string> folders;
  if (kind == ShippedKind::Datasets)
    if (const char* env = std::getenv("OPEVO_DATASETS"); env && *env) folders.push_back(env);
  const fs::path program = programFolder();
  if (!program.empty()) {
    folders.push_back(
        (program.parent_path() / "share" / "opevo-studio" / folderName(kind)).string());
    if (const fs::path source = sourceTree(program); !source.empty())
      folders.push_back((source / "resources" / folderName(kind)).string());
  }
  return folders;
}

ShippedLookup findDataFile(const std::string& path) {
  ShippedLookup lookup;
  if (path.empty() || isFile(path)) {
    lookup.found = path;
    return lookup;
  }
  const fs::path given(path);
  if (given.is_absolute()) return lookup;  // a place of its own: nothing else is meant
  // resources/datasets/X names X among the datasets alone; a bare X is tried in both.
  std::vector<std::pair<ShippedKind, fs::path>> wanted;
  for (const ShippedKind kind : {ShippedKind::Datasets, ShippedKind::Measurements})
    if (const auto rest = below(given, kind)) wanted.emplace_back(kind, *rest);
  if (wanted.empty()) wanted = {{ShippedKind::Datasets, given}, {ShippedKind::Measurements, given}};
  for (const auto& [kind, name] : wanted)
    for (const std::string& folder : shippedFolders(kind)) {
      const fs::path candidate = fs::path(folder) / name;
      lookup.tried.push_back(candidate.lexically_normal().string());
      if (isFile(candidate)) {
        std::error_code ec;
        const fs::path canonical = fs::weakly_canonical(candidate, ec);
        lookup.found = (ec ? candidate : canonical).string();
        return lookup;
      }
    }
  return lookup;
}

std::string resolveDataFile(const std::string& path) {
  return findDataFile(path).found.value_or(path);
}

std::string missingDataFileText(const std::string& path) {
  std::error_code ec;
  if (path.empty() || fs::exists(path, ec)) return {};
  const ShippedLookup lookup = findDataFile(path);
  if (lookup.found) return {};
  if (lookup.tried.empty()) return {};  // an absolute path: the reader says why it cannot open it
  std::string text =
      "cannot open '" + path + "': no such file here, nor among the shipped files (looked for ";
  for (std::size_t i = 0; i < lookup.tried.size(); ++i) text += (i ? ", " : "") + lookup.tried[i];
  return text + "; set OPEVO_DATASETS to the datasets folder)";
}

}  // namespace opevo
