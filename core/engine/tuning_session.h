#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/measurement.h"
#include "tuners/tuner.h"

namespace opevo {

class Store;

// When a run stops: after a number of trials, a wall-clock time, or on reaching a speed; the
// first that is met ends it. At least one is set.
struct Budget {
  std::optional<int> trials;
  std::optional<double> seconds;
  std::optional<double> targetSpeed;
  std::string toJson() const;
  static Budget fromJson(const std::string& json);
};

struct TrialEvent {
  int seq = 0;  // 1-based
  Config config;
  Measurement measurement;
  double best = 0;
  bool improved = false;
  double elapsedSeconds = 0;
  double etaSeconds = -1;  // -1 when unknown
};

// One tuning run: a tuner proposes, the measurer measures, each trial is stored (committed) as it
// arrives and handed to observers, until the budget is spent, the space is exhausted, or stop()
// is called. restore() rebuilds a run from its stored trials so it resumes where it stopped.
class TuningSession {
 public:
  TuningSession(const SearchSpace& space, std::unique_ptr<Tuner> tuner, Measurer& measurer,
                Budget budget, Store* store = nullptr, std::int64_t runId = 0);

  // Feeds stored trials (in measurement order) to the tuner and counts them against the budget.
  void restore(const std::vector<std::pair<Config, Measurement>>& trials);

  void onTrial(std::function<void(const TrialEvent&)> observer) { m_observers.push_back(std::move(observer)); }

  // Runs to the end of the budget. Returns why it ended: "budget", "target", "time",
  // "exhausted" or "stopped".
  std::string run();
  void stop() { m_stop = true; }

  int trialsDone() const { return m_done; }
  double best() const { return m_best; }
  const std::optional<Config>& bestConfig() const { return m_bestConfig; }
  const Tuner& tuner() const { return *m_tuner; }

 private:
  bool budgetLeft(std::string& reason) const;

  const SearchSpace& m_space;
  std::unique_ptr<Tuner> m_tuner;
  Measurer& m_measurer;
  Budget m_budget;
  Store* m_store;
  std::int64_t m_runId;
  std::vector<std::function<void(const TrialEvent&)>> m_observers;
  std::atomic<bool> m_stop{false};
  int m_done = 0;
  double m_best = 0;
  std::optional<Config> m_bestConfig;
  std::chrono::steady_clock::time_point m_start;
  int m_restoredTrials = 0;
};

}  // namespace opevo
