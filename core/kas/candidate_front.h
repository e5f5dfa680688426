#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "store/records.h"

namespace opevo::kas {

// How a kernel search's stored candidates are judged, in one place for the window and `kas show`.

// Trained, with both an accuracy and a speed-up: a point of the speed-up/accuracy chart.
bool plotted(const KasCandidateRow& c);
// Trained, but its training stopped on a loss that was not finite: its accuracy is chance's, not
// the kernel's, so it is drawn and listed but never a trade-off worth choosing.
bool trainingDiverged(const KasCandidateRow& c);

// The seqs of the plotted candidates that no other plotted one dominates, fastest first; a diverged
// training is neither on the front nor able to push another off it.
std::vector<int> frontSeqs(const std::vector<const KasCandidateRow*>& candidates);

// The fastest plotted candidate whose accuracy is within `maxLoss` (0..1, absolute) of the
// baseline's, diverged ones left out; nullptr when none is.
const KasCandidateRow* bestWithinLoss(const std::vector<const KasCandidateRow*>& candidates,
                                      double baselineAccuracy, double maxLoss);

// The baseline's accuracy (0..1) from a search's record; nullopt until the baseline is trained
// (a search interrupted before, or failed at, its baseline), which read as "0.00%".
std::optional<double> baselineAccuracy(const KasSearchRecord& search);

// One replaced layer's share of a candidate's Kernel ms: kernelMs is the sum of count x
// chosenMs over its layers. chosenMs is the median of the chosen schedule's own timing after
// the tuning; bestTrialMs the fastest trial during it (what the progress printed last), the
// start schedule's included; they differ by the timings' noise.
struct LayerTime {
  std::string layer;
  std::int64_t count = 1;
  double chosenMs = 0;
  std::optional<double> bestTrialMs;  // nullopt: a tuning stored without its curve
  std::string schedule;
  // Its trials' notes, counted (kas::KasTuneResult::notes); empty where each was timed fully, or
  // for a tuning stored before they were kept.
  std::string notes;
};
// The layers of a tuned candidate's tuningJson, in order; empty when it has none.
std::vector<LayerTime> layerTimes(const KasCandidateRow& c);

// The candidates as the functions above take them.
std::vector<const KasCandidateRow*> pointersTo(const std::vector<KasCandidateRow>& candidates);

}  // namespace opevo::kas
