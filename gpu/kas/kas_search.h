#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "kas/conv_baseline.h"
#include "kas/kas_measurer.h"
#include "kas/kas_training.h"
#include "store/run_lock.h"
#include "store/store.h"

namespace opevo::kas {

// Everything a search is run with; stored with it, so a resume needs only its id.
struct KasSearchSettings {
  std::string network = "resnet18";  // whose convolutions are timed
  Budget budget;
  std::int64_t groups = 0;  // 0: tried in a seeded order
  int candidates = 50;      // kernels evaluated
  double seconds = 0;       // wall-clock limit; 0: none
  std::uint64_t seed = 1;
  std::size_t minPrimitives = 3, maxPrimitives = 9;
  std::string algorithm = "opevo-m";  // tunes each kernel's schedule
  int trials = 8;                     // schedules measured per replaced layer
  double minSpeedup = 0;              // a kernel slower than this is timed but not trained
  TrainRequest training;              // the schedule every candidate and the baseline train on
  // How schedules and the convolutions are timed (its compile threads, timeout, minimum time and
  // slow cut-off; measuringJson); a search stored before it was has the defaults.
  KasMeasurerOptions measuring;

  nlohmann::json toJson() const;
  // Throws InputError naming the option at fault, with the words the other kas commands use
  // (kas/kas_checks.h).
  void check() const;
  // Throws InputError naming the field at fault.
  static KasSearchSettings fromJson(const nlohmann::json& j);
};

// What a running search reports, from the thread that runs it.
class KasSearchObserver {
 public:
  virtual ~KasSearchObserver() = default;
  virtual void baselineTrained(const TrainResult&) {}
  // The convolutions every candidate is compared with, timed (or read back on a resume).
  virtual void convolutionTimed(const ConvBaseline&) {}
  // A candidate stored (again) after a step: sampled, tuned, trained or failed.
  virtual void candidateUpdated(const KasCandidateRow&) {}
  // A stored candidate a resumed search goes on with, as it was stored, before its next step.
  virtual void candidateResumed(const KasCandidateRow&) {}
  virtual void note(const std::string&) {}
  // Progress inside a step (a layer's tuning trial, say), for live views.
  virtual void stepProgress(int /*seq*/, const std::string& /*what*/) {}
};

// Canvas's loop (seed 004, Figure 1) on this machine: kernels sampled and solved for both the
// network (speed) and the training backbone (accuracy) with one group count; each one's fused
// schedule tuned per replaced layer on the engine and compared with the convolution (timed once
// per search, its fastest timing shared by every candidate: core/kas/conv_baseline.h); then
// trained in its own process, cut early by Canvas's rule against the best accuracy curve so far.
// Every step of every candidate is committed to the store as it ends, so a killed search resumes
// where it stopped (sampling is deterministic for the seed).
class KasSearch {
 public:
  // A new search, stored at once once its settings are checked (InputError before that).
  KasSearch(Store& store, KasSearchSettings settings);
  // A stored search, to run on from where it stopped. Throws InputError if there is none.
  KasSearch(Store& store, std::int64_t searchId);

  std::int64_t id() const { return m_id; }
  const KasSearchSettings& settings() const { return m_settings; }

  // Runs to the budget, or until `stop` is set (the search is then interrupted, resumable).
  // Returns the search's final status.
  RunStatus run(KasSearchObserver* observer = nullptr, const std::atomic<bool>* stop = nullptr);

 private:
  Store& m_store;
  KasSearchSettings m_settings;
  std::int64_t m_id = 0;
  // Held while this object lives: a second process resuming the same search (a `kas search
  // --resume` beside the window's Resume) is refused, and a search whose program died reads as
  // interrupted rather than running (store/live_status.h).
  std::unique_ptr<RunLock> m_lock;
};

}  // namespace opevo::kas
