#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/sweep.h"
#include "engine/trial_record.h"
#include "io/replay_dataset.h"

namespace opevo {

class EngineObserver;

// One race of a sweep on a measured dataset (a repeat of every cell: core's raceSweepByRepeats
// hands the plans out, and sweepResult summarizes what they measured), as `opevo sweep` and the
// window's Sweep dialog run it.
struct ReplaySweep {
  std::vector<TrialRecord> trials;  // every trial, in order
  std::optional<double> optimum;    // the dataset's best, when it is complete
  std::string measuredBy;           // "replay of ... (real measurements)"
  std::string speedUnit;
  std::string failure;   // the engine's message when the race failed (nothing else set)
  bool stopped = false;  // a run stopped on request short of its budget (nothing else set)
};

// What a caller on another thread may watch and ask of a sweep in progress.
struct SweepControl {
  std::atomic<long long> trialsDone{0};
  std::atomic<long long> trialsPlanned{0};
  std::atomic<bool> stop{false};  // set to end the sweep early
};

// Throws InputError for a bad plan, before anything is measured. observer (optional) sees the
// engine's events, e.g. for progress.
ReplaySweep runReplaySweep(const std::shared_ptr<const ReplayDataset>& dataset,
                           const SweepPlan& plan, EngineObserver* observer = nullptr,
                           SweepControl* control = nullptr);

}  // namespace opevo
