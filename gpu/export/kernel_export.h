#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/error.h"

namespace opevo {

class Store;

struct ExportOptions {
  std::string outDir;
  std::string backend;  // cpu, cuda or hip; empty: the run's own (cpu for replays of other kernels)
  // Replace the files of an earlier export in outDir; without it that is refused
  // (ExistingExportError), as the CLI once silently rewrote all six.
  bool overwrite = false;
};

// outDir already holds files an export writes (kernel.cpp, record.json, build.sh, ...): nothing was
// written. what() names the folder and the files; front ends add how to replace them anyway.
class ExistingExportError : public InputError {
 public:
  ExistingExportError(const std::string& folder, const std::vector<std::string>& files);
  const std::string& folder() const { return m_folder; }
  const std::vector<std::string>& files() const { return m_files; }

 private:
  std::string m_folder;
  std::vector<std::string> m_files;
};

struct ExportResult {
  std::string exported;  // which trial, at what speed, and why it (exportedTrialText)
  std::vector<std::string> files;
  std::string buildCommand;  // how to build and run the self-check
  std::string note;          // e.g. why no kernel came with a replay run
};

// The best kernel of a stored run as exportRun would write it, for a preview before exporting.
struct KernelPreview {
  std::string configuration;  // the best trial's configuration
  double speed = 0;
  std::string speedUnit;
  int trial = 0;
  std::string exported;  // which trial, at what speed, and why it (exportedTrialText)
  std::string backend;   // the kernel's backend (cpu, cuda, hip); empty for a replay
  std::string fileName;  // kernel.cu, kernel.hip or kernel.cpp; empty for a replay
  std::string source;    // what that file will hold; empty for a replay
  std::string summary;   // the tiling in one line, and the launch
  std::string note;      // why there is no kernel (a replay), or that it was tuned elsewhere
};

// The trial an export takes, in words, for the window's heading and the CLI alike: "trial 31,
// 99.08 GFLOP/s (the run's fastest)", or where the side-by-side timing chose another than the
// fastest trial, "trial 8, 95.85 GFLOP/s (chosen side by side over trial 31's 99.08 GFLOP/s)":
// the exported one is then not the run's best as History and `opevo runs` list it.
std::string exportedTrialText(int trial, double speed, const std::string& unit, int fastestTrial,
                              double fastestSpeed);

// Throws InputError for an unknown run or a run with no successful trial.
KernelPreview previewBestKernel(const Store& store, std::int64_t runId,
                                const std::string& backend = {});

// Writes the best configuration of a stored run as a standalone kernel (kernel.cpp / .cu / .hip)
// with a comment header (operator, configuration, device, speed, date), config.h with a #define
// per tiling factor and the launch shape, record.json, a host program (check.cpp / .cu / .hip)
// that runs the kernel and checks it against plain loops, build.sh, and every trial as
// trials.csv. Every file that carries a date carries the same one, the time of writing. Throws
// InputError for an unknown run or a run with no successful trial, ExistingExportError for a
// folder that holds an earlier export's files (unless options.overwrite).
ExportResult exportRun(const Store& store, std::int64_t runId, const ExportOptions& options);

}  // namespace opevo
