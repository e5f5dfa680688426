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
  // The schedule the kernel runs on: the tuner's best, or the start one when faster. Its time is
  // the median of a timing of its own taken after the tuning (the start schedule's: its first),
  // so it may differ a little from the trial that chose it (0: none).
  double bestMs = 0;
  // The fastest single trial's median, the start schedule's included: what the progress said
  // last ("best trial"). Not the figure a speed-up divides by: bestMs is.
  double bestTrialMs = 0;
  double defaultMs = 0;  // the start schedule
  // The convolution (oneDNN, or the plain loop nest): the faster of two timings here, or the
  // caller's figure (KasTuneOptions::referenceMs).
  double referenceMs = 0;
  std::string referenceLibrary;
  // The best trial after each trial, the start schedule's time counted from the first.
  std::vector<double> bestCurveMs;
  std::string bestSource;
  // What the trials' notes said, counted: "of 24 trials: 3 timed by one run alone (over the slow
  // cut-off); 2 gave a wrong result". Empty where every trial was verified and timed fully. KAS
  // keeps no trial, so this is the one word a tuning gives of trials timed by fewer runs than
  // asked (a trial's limit may cut the best's) or failed. The start schedule and the chosen one's
  // timing after the tuning are not trials.
  std::string notes;
  double speedup() const { return bestMs > 0 && referenceMs > 0 ? referenceMs / bestMs : 0; }
};

struct KasTuneOptions {
  std::string algorithm = "opevo-m";
  int trials = 24;
  std::uint64_t seed = 1;
  // Called after each trial with the trials so far and the best trial's time, the start
  // schedule's included (live views).
  std::function<void(int, double)> progress;
  // The convolution's time when the caller has it already (a search's shared figure, timed once
  // for every candidate): it is then not timed here.
  std::optional<double> referenceMs;
  std::string referenceLibrary;
};

KasTuneResult tuneKasLayer(KasMeasurer& measurer, const KasTuneOptions& options);

}  // namespace opevo::kas
