#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/measurement.h"
#include "engine/trial_record.h"
#include "store/store.h"
#include "tuners/tuner.h"

namespace opevo {

// One earlier trial, as a new run may use it.
struct HistoryTrial {
  std::string config;  // as stored
  Measurement measurement;
  std::int64_t run = 0;
  int seq = 0;  // the trial's number in its run
};

// Earlier trials of the same operator (same space) on the same backend and device (on the CPU,
// with the same label: weights timed warm or cold): what a new
// run may reuse instead of measuring again, and what a cost model may warm-start from.
// Failures the environment caused (environmentalFailure: a timeout under a shorter limit, a
// worker killed from outside, agents lost) are in neither: a new run measures them again.
struct History {
  // configuration text -> its latest reusable measurement, and the run it came from
  std::unordered_map<std::string, std::pair<Measurement, std::int64_t>> byConfig;
  std::vector<HistoryTrial> inOrder;  // every usable trial, oldest run first
  std::size_t environmental = 0;      // trials left out as the environment's failures
};

struct HistoryOptions {
  // The trial time limit of the run that uses the history (environmentalFailure); nullopt for a
  // replay, whose timeouts are its dataset's answers.
  std::optional<double> timeLimitSeconds;
  // 0: every earlier run; else only the newest runs that hold this many distinct configurations
  // (a warm start's, kWarmStartLimit), so that what is read does not grow with the database.
  std::size_t latestConfigs = 0;
};

// A stored trial's measurement, as the engine saw it.
Measurement measurementOf(const TrialRow& t);

// A stored run's trials as records (its best so far, order and tuning time), for trials.csv, the
// charts and exports.
std::vector<TrialRecord> trialRecords(const RunRecord& run, const std::vector<TrialRow>& rows);

// Whether two runs measured the same thing, so that one's trials answer the other's (and, drawn
// together, their curves are repeats of one: store/run_curves.h): one operator (runOperatorKey:
// a replay's dataset is in its operator JSON), one backend, one device, and for a CPU run with a
// label (cold or warm weights, a network's tasks) the same label.
bool sameMeasurement(const RunRecord& like, const RunRecord& other);

// Whether two runs tuned the same problem on the same device (sameMeasurement but for how the
// space was built, runProblemKey): their curves compare two ways of tuning it, as loops alone
// against ALT's layouts and loops, or Winograd's template against the direct one. Their trials
// do not answer each other's (another space, another kernel).
bool sameProblem(const RunRecord& like, const RunRecord& other);

// The earlier runs that measured what `like` measures (sameMeasurement).
History loadHistory(const Store& store, const RunRecord& like, std::int64_t excludeRun,
                    const HistoryOptions& options = {});

// The most a warm start teaches a cost model: this many distinct configurations, each with its
// latest measurement, the most recent first. Its cost grew with the database (a 300-trial
// opevo-m replay took 7.8 s over 125 earlier runs, 1.3 s without them), while a few thousand
// points already cover what a model of this kind learns of one operator.
constexpr std::size_t kWarmStartLimit = 2000;

struct WarmStart {
  std::vector<Observation> observations;  // failures as fitness 0, oldest first
  // One line per run with trials whose configuration text the space cannot read (a byte
  // overwritten on disk), naming the database, the run, the trials and the column: those trials
  // are left out, and the warm start goes on without them.
  std::vector<std::string> unreadable;
};

// What a warm start learns from: the latest measurement of the `limit` most recently measured
// distinct configurations. `database` is named in the unreadable lines.
WarmStart warmStartFrom(const History& history, const SearchSpace& space,
                        const std::string& database, std::size_t limit = kWarmStartLimit);

// Answers configurations found in the history from it (message "from history: run N", N the run
// that measured it) and measures only the rest with the wrapped measurer.
class HistoryMeasurer final : public Measurer {
 public:
  // Also finds a trial stored before a parameter joined the space (a GPU template's split_k) under
  // the text the space writes now, where that parameter reads as its value when absent.
  HistoryMeasurer(Measurer& inner, const SearchSpace& space, History history);

  std::string label() const override { return m_inner.label() + ", reusing stored trials"; }
  std::string device() const override { return m_inner.device(); }
  bool isReplay() const override { return m_inner.isReplay(); }
  std::string speedUnit() const override { return m_inner.speedUnit(); }
  std::vector<Measurement> measure(const std::vector<Config>& configs) override;
  void measureEach(const std::vector<Config>& configs, const TrialCallback& done) override;
  std::optional<Reference> reference() override { return m_inner.reference(); }
  int reused() const { return m_reused; }
  const History& history() const { return m_history; }

 private:
  Measurer& m_inner;
  const SearchSpace& m_space;
  History m_history;
  int m_reused = 0;
};

// The message of a trial reused from run `run`: one "from history: run N" note, N the run that
// measured it (a message that already carries notes, reused again, keeps its innermost one),
// before the measurement's own message.
std::string reusedMessage(const std::string& message, std::int64_t run);
// Whether a stored trial's message says it was reused (reusedMessage's note): the store keeps no
// other mark of it.
bool reusedFromHistory(const std::string& message);

}  // namespace opevo
