#pragma once

#include <optional>
#include <string>
#include <vector>

namespace opevo {

// The folders the program's shipped data files may be in, in the order they are tried, for the
// datasets (`resources/datasets` in the source tree) or the GPU measurements
// (`resources/measurements`): for the datasets $OPEVO_DATASETS first (the window's variable);
// then the copy installed beside the program (PREFIX/bin/../share/opevo-studio/datasets or
// .../measurements); then the source tree of a build run from its build folder (a parent of the
// program's folder, up to three levels, holding CMakeLists.txt and resources/datasets).
enum class ShippedKind { Datasets, Measurements };
std::vector<std::string> shippedFolders(ShippedKind kind);

// Where a data file named on the command line is: `path` itself when it exists; otherwise, for a
// relative path, the shipped file it names: "resources/datasets/X" and "resources/measurements/X"
// (the README's names, from the source tree) are looked for as X in those folders, a bare
// "gemm/RTX_2080_Ti.json.gz" among the datasets and then the measurements. `tried` lists every
// place looked at, for the message when none holds it.
struct ShippedLookup {
  std::optional<std::string> found;
  std::vector<std::string> tried;
};
ShippedLookup findDataFile(const std::string& path);

// findDataFile's answer, or `path` as given when it exists or is found nowhere; for the readers
// that report a missing file themselves, with missingDataFileText.
std::string resolveDataFile(const std::string& path);
// "cannot open 'P': no such file here, nor among the shipped files (looked for A, B, C; set
// OPEVO_DATASETS to the datasets folder)"; empty when `path` exists or is found, and for an
// absolute path, which names no shipped file (the reader's own message says why it fails).
std::string missingDataFileText(const std::string& path);

}  // namespace opevo
