#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/sweep.h"
#include "io/replay_dataset.h"

namespace opevo {

class EngineObserver;

// A sweep raced on a measured dataset, as `opevo sweep` and the window's Sweep dialog run it.
struct ReplaySweep {
  std::vector<SweepCell> cells;
  std::vector<int> budgets;       // those summarized: the usual ones and `at`
  std::optional<double> optimum;  // the dataset's best, when it is complete
  std::string measuredBy;         // "replay of ... (real measurements)"
  std::string speedUnit;
  HeatMap map;           // the cells at `at`
  std::string failure;   // the engine's message when the race failed (nothing else set)
  bool stopped = false;  // stopped on request before its end (nothing else set)
};

// What a caller on another thread may watch and ask of a sweep in progress.
struct SweepControl {
  std::atomic<long long> trialsDone{0};
  std::atomic<long long> trialsPlanned{0};
  std::atomic<bool> stop{false};  // set to end the sweep early
};

// Throws InputError for a bad plan or `at`, before anything is measured. observer (optional) sees
// the engine's events, e.g. for progress.
ReplaySweep runReplaySweep(const std::shared_ptr<const ReplayDataset>& dataset,
                           const SweepPlan& plan, int at, EngineObserver* observer = nullptr,
                           SweepControl* control = nullptr);

}  // namespace opevo
