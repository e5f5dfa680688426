#pragma once

#include <CLI/CLI.hpp>
#include <optional>

#include "backends/backend_factory.h"

namespace opevo::cli {

// How kernels are built and timed, as `opevo tune` and `opevo net tune` take it: the same for
// the CPU and the GPU backends (shareMeasuringChoices).
struct MeasuringArgs {
  int compileThreads = 2;
  std::optional<double> timeout;  // default: the backend's (10 s on the CPU, 20 s on a GPU)
  double minTimeMs = 100, slowCutoff = 10;
};

void addMeasuringOptions(CLI::App* cmd, MeasuringArgs& a);

// Sets every backend's measuring options in o from a.
void applyMeasuringArgs(const MeasuringArgs& a, BackendOptions& o);

}  // namespace opevo::cli
