#pragma once

#include <cstdint>
#include <string>

#include "engine/measurement.h"

namespace opevo {

// One measured trial as every consumer sees it: the engine's observers, trials.csv, the
// summaries of a race. Plain values, so it is copied across threads and into files freely.
struct TrialRecord {
  long long order = 0;   // 1-based order in which the engine measured it, across all its runs
  std::int64_t run = 0;  // the run's id in the store, or its 1-based place in the engine
  std::string algorithm;
  int repeat = 0;  // 0-based
  std::uint64_t seed = 0;
  int trial = 0;       // 1-based within its run
  std::string config;  // SearchSpace::format text
  Measurement measurement;
  double bestSoFar = 0;     // best speed of its run after this trial
  double seconds = 0;       // tuning time of its run at this trial (pauses excluded)
  double tunerSeconds = 0;  // the tuner's time to propose this trial's batch (model fits
                            // included), shared evenly
  // What its run tuned, as layout::runModeName says it ("loop", "joint", "winograd", "replay"):
  // one race may tune several spaces, whose runs of one algorithm are otherwise told apart by
  // their run ids alone. Empty where not known.
  std::string space;
};

}  // namespace opevo
