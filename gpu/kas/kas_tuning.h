#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "kas/kas_measurer.h"

namespace opevo::kas {

// A kernel's schedule at one layer tuned on the engine, beside the schedule it starts from and the
// standard convolution it replaces, all timed in the same process one after another.
struct KasTuneResult {
  std::string algorithm;
  int trials = 0;
  std::string bestSchedule;
  double bestMs = 0;     // the best schedule known: tuned, or the start one when faster (0: none)
  double defaultMs = 0;  // the start schedule
  // The convolution (oneDNN, or the plain loop nest): the faster of two timings here, or the
  // caller's figure (KasTuneOptions::referenceMs).
  double referenceMs = 0;
  std::string referenceLibrary;
  std::vector<double> bestCurveMs;  // best kernel time after each trial
  std::string bestSource;
  double speedup() const { return bestMs > 0 && referenceMs > 0 ? referenceMs / bestMs : 0; }
};

struct KasTuneOptions {
  std::string algorithm = "opevo-m";
  int trials = 24;
  std::uint64_t seed = 1;
  // Called after each trial with the trials so far and the best time (live views).
  std::function<void(int, double)> progress;
  // The convolution's time when the caller has it already (a search's shared figure, timed once
  // for every candidate): it is then not timed here.
  std::optional<double> referenceMs;
  std::string referenceLibrary;
};

KasTuneResult tuneKasLayer(KasMeasurer& measurer, const KasTuneOptions& options);

}  // namespace opevo::kas
