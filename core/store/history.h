#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/measurement.h"
#include "engine/trial_record.h"
#include "store/store.h"

namespace opevo {

// Earlier trials of the same operator (same space) on the same backend and device (on the CPU,
// with the same label: weights timed warm or cold): what a new
// run may reuse instead of measuring again, and what a cost model may warm-start from.
struct History {
  // configuration text -> its latest measurement, and the run it came from
  std::unordered_map<std::string, std::pair<Measurement, std::int64_t>> byConfig;
  std::vector<std::pair<std::string, Measurement>> inOrder;  // every trial, oldest run first
};

// A stored trial's measurement, as the engine saw it.
Measurement measurementOf(const TrialRow& t);

// A stored run's trials as records (its best so far, order and tuning time), for trials.csv, the
// charts and exports.
std::vector<TrialRecord> trialRecords(const RunRecord& run, const std::vector<TrialRow>& rows);

History loadHistory(const Store& store, const RunRecord& like, std::int64_t excludeRun);

// Answers configurations found in the history from it (message "from history: run N") and
// measures only the rest with the wrapped measurer.
class HistoryMeasurer final : public Measurer {
 public:
  HistoryMeasurer(Measurer& inner, const SearchSpace& space, History history)
      : m_inner(inner), m_space(space), m_history(std::move(history)) {}

  std::string label() const override { return m_inner.label() + ", reusing stored trials"; }
  std::string device() const override { return m_inner.device(); }
  bool isReplay() const override { return m_inner.isReplay(); }
  std::string speedUnit() const override { return m_inner.speedUnit(); }
  std::vector<Measurement> measure(const std::vector<Config>& configs) override;
  void measureEach(const std::vector<Config>& configs, const TrialCallback& done) override;
  std::optional<Reference> reference() override { return m_inner.reference(); }
  int reused() const { return m_reused; }

 private:
  Measurer& m_inner;
  const SearchSpace& m_space;
  History m_history;
  int m_reused = 0;
};

}  // namespace opevo
