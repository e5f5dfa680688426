#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace opevo {

class Store;

struct ExportOptions {
  std::string outDir;
  std::string backend;  // cpu, cuda or hip; empty: the run's own (cpu for replays of other kernels)
};

struct ExportResult {
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
  std::string backend;        // the kernel's backend (cpu, cuda, hip); empty for a replay
  std::string fileName;       // kernel.cu, kernel.hip or kernel.cpp; empty for a replay
  std::string source;         // what that file will hold; empty for a replay
  std::string summary;        // the tiling in one line, and the launch
  std::string note;           // why there is no kernel (a replay), or that it was tuned elsewhere
};

// Throws InputError for an unknown run or a run with no successful trial.
KernelPreview previewBestKernel(const Store& store, std::int64_t runId, const std::string& backend = {});

// Writes the best configuration of a stored run as a standalone kernel (kernel.cpp / .cu / .hip)
// with a comment header (operator, configuration, device, speed, date), config.h with a #define
// per tiling factor and the launch shape, record.json, a host program (check.cpp / .cu / .hip)
// that runs the kernel and checks it against plain loops, build.sh, and every trial as
// trials.csv. Throws InputError for an unknown run or a run with no successful trial.
ExportResult exportRun(const Store& store, std::int64_t runId, const ExportOptions& options);

}  // namespace opevo
