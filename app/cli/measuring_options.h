#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "backends/backend_factory.h"
#include "kas/kas_measurer.h"

namespace opevo::cli {

// How kernels are built and timed, as `opevo tune` and `opevo net tune` take it: the same for
// the CPU and the GPU backends (shareMeasuringChoices).
struct MeasuringArgs {
  int compileThreads = 2;
  std::optional<double> timeout;  // default: the backend's (10 s on the CPU, 20 s on a GPU)
  double minTimeMs = 100, slowCutoff = 10;
};

// timeoutDefault: how --timeout's help says its default.
void addMeasuringOptions(CLI::App* cmd, MeasuringArgs& a,
                         const std::string& timeoutDefault =
                             "10 on the CPU, 20 on a GPU, whose fresh worker pays for the "
                             "runtime's start");

// How `opevo kas tune` and `kas search` build and time a Canvas kernel's schedules: a's choices
// over KAS's defaults (its own timeout, kasTimeoutText), checked (kas::checkMeasuring).
kas::KasMeasurerOptions kasMeasuring(const MeasuringArgs& a);
// The other way: a stored search's choices as the command line gives them, for measuringArgsText
// (a search's header names those that differ from the defaults).
MeasuringArgs measuringArgsOf(const kas::KasMeasurerOptions& o);
// KAS's default timeout, as --timeout's help says it ("20").
std::string kasTimeoutText();

// Sets every backend's measuring options in o from a.
void applyMeasuringArgs(const MeasuringArgs& a, BackendOptions& o);

// The options of a that differ from their defaults, as a command line writes them (" --timeout 5
// --min-time-ms 10"): a run does not store them, so a resume hint repeats them, or the resumed
// trials would be timed differently from the run's first ones.
std::string measuringArgsText(const MeasuringArgs& a);

}  // namespace opevo::cli
