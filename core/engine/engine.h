#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/rng.h"
#include "engine/budget.h"
#include "engine/engine_gate.h"
#include "engine/measurement.h"
#include "engine/run_status.h"
#include "engine/schedule.h"
#include "engine/trial_record.h"
#include "tuners/tuner.h"

namespace opevo {

// One run: an algorithm with its settings and seed, a budget, and its place in a race.
struct RunPlan {
  std::string algorithm;
  std::map<std::string, std::string> settings;  // the values that differ from the defaults
  std::uint64_t seed = 1;
  Budget budget;
  int algorithmIndex = 0;            // its algorithm's place in the race
  int repeat = 0;                    // 0-based
  std::optional<std::size_t> batch;  // unset: the tuner's own batch
  // A run sharing its budget with others (a network's task, whose budget is the network's) and
  // expected to get about this many trials: plans that depend on the budget (the joint layout
  // stage) are made on it. Unset: on budget.trials.
  std::optional<int> plannedTrials;
};

// A run as it goes; observers read it.
struct RunState {
  int index = 0;  // place in the engine, 0-based
  RunPlan plan;
  std::int64_t storeId = 0;  // its id in the store, 0 when it is not stored
  int trials = 0;            // measured so far, restored ones included
  int restored = 0;          // trials it resumed with
  double best = 0;
  std::optional<Config> bestConfig;
  double seconds = 0;  // tuning time (pauses excluded), the time before a resume included
  // What its trials cost the device that measured them (device_time.h: compile + measurement; a
  // replay's, by its file), its restored trials included: what a replay's time budget counts.
  double deviceSeconds = 0;
  // What its time budget counts (plan.budget.clock: the engine's budgetClock() for a new run, the
  // stored one for a resumed run): observers say its "time" end in those words (endReasonText).
  BudgetClock clock = BudgetClock::Tuning;
  EndReason end = EndReason::None;
  std::string message;  // why it failed
  bool ended() const { return end != EndReason::None; }
  // The id its records carry: the store's when stored, else 1 + its place.
  std::int64_t recordId() const { return storeId ? storeId : index + 1; }
};

struct TrialEvent {
  const RunState* run = nullptr;
  Config config;
  TrialRecord record;
  bool improved = false;
};

struct EngineProgress {
  int runs = 0;
  int runsEnded = 0;
  long long trialsDone = 0;     // every run's, restored included
  long long trialsPlanned = 0;  // 0 unless every run has a trial budget
  double seconds = 0;           // tuning time of all runs
  double etaSeconds = -1;       // -1 when unknown (a target-only budget)
};

// The tuner a plan runs with on `space` (ALT's two stages on a joint layout space). Throws
// InputError for a bad budget or batch, an unknown algorithm or setting, or an algorithm that
// cannot take the space's parameters.
std::unique_ptr<Tuner> tunerForPlan(const SearchSpace& space, const RunPlan& plan);
// tunerForPlan's checks alone: for a command that refuses a bad plan before it opens a database.
void checkRunPlan(const SearchSpace& space, const RunPlan& plan);

// What observers are told, on the thread that steps the engine. The store commits a trial in
// trialMeasured before later observers hear of it; an exception thrown there (a full disk) ends
// the engine cleanly, as failed, with that message.
class EngineObserver {
 public:
  virtual ~EngineObserver() = default;
  virtual void trialMeasured(const TrialEvent& /*trial*/, const EngineProgress& /*progress*/) {}
  // Its end reason is set. Errors here are reported in the engine's failure() and lose nothing.
  virtual void runEnded(const RunState& /*run*/, const EngineProgress& /*progress*/) {}
};

struct EngineOptions {
  Schedule schedule = Schedule::RoundRobin;
  std::uint64_t scheduleSeed = 1;
  // A replay's pace: each trial takes this long (tuning time; its time budget counts device
  // time, which a pace does not change).
  int paceMs = 0;
  long long firstOrder = 1;  // the order of the first trial (a resumed race continues)
};

// The one tuning loop of the product. A race is N algorithms x R repeats of runs on one space and
// one measurer; the engine interleaves them batch by batch on that measurement pipeline, so on a
// real device drift (heat, other load) falls on every algorithm alike. Budgets, pause, resume,
// stop, the ETA and each run's end reason live here. step() measures one batch for one run and
// returns: `run()` is a loop of them, and a scheduler of its own (a network's tasks) may call
// step(run) in any order.
class Engine {
 public:
  Engine(const SearchSpace& space, Measurer& measurer, EngineOptions options = {});
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Builds the run's tuner. Throws InputError for an unknown algorithm, a bad setting or budget.
  int addRun(RunPlan plan);
  // Before the run's first trial: its tuner built again, over the engine's space as it is now.
  // For a caller that owns the space and narrowed it in place (SearchSpace::replace: a network
  // task whose output layout an earlier task chose); the tuner built by addRun had copied what it
  // needed of the space before. Throws std::logic_error once the run has trials.
  void rebuildTuner(int run);
  // A resumed run's stored trials, in measurement order, and its tuning time before them. Its
  // device time goes on from theirs (compile + measurement of each, device_time.h).
  void restore(int run, const std::vector<std::pair<Config, Measurement>>& trials,
               double secondsBefore = 0);
  void setStoreId(int run, std::int64_t id);
  // The size of the run's next batches (unset: its tuner's own): a scheduler of its own (a
  // network's task scheduler) sizes each unit it hands out, the last one to what is left.
  void setBatch(int run, std::optional<std::size_t> batch);
  // Observers are told in the order they were added; the engine does not own them.
  void addObserver(EngineObserver& observer);

  // One batch of the run the schedule picks. False when nothing is left: every run ended.
  bool step();
  // One batch of this run (ends it instead when its budget is spent). False when it has ended.
  bool step(int run);
  // One batch of these configurations instead of the tuner's proposals, as many as its budget
  // takes, each valid in the space and not yet measured by the run (the caller's to ensure): a
  // network's task measuring the best configurations its twin tasks found (net/twin_tasks.h).
  // Recorded and observed as any trial, its tuner's included, so it never proposes them again.
  bool step(int run, const std::vector<Config>& configs);
  // Steps until every run has ended (stopped and failed runs included).
  void run();

  // From any thread. A stop ends every run at the next trial: the trial in hand is committed,
  // the rest of its batch is dropped, and each run ends as Stopped (resumable); a run whose budget
  // is already spent ends for that reason instead (finished).
  void pause() { m_gate.pause(); }
  void resume() { m_gate.resume(); }
  void stop() { m_gate.stop(); }
  // From a signal handler (Ctrl-C): async-signal-safe.
  void stopFromSignal() { m_gate.stopFromSignal(); }
  bool paused() const { return m_gate.paused(); }
  bool stopping() const { return m_gate.stopped(); }

  const SearchSpace& space() const { return m_space; }
  Measurer& measurer() { return m_measurer; }
  const EngineOptions& options() const { return m_options; }
  const std::vector<RunState>& runs() const { return m_runs; }
  const Tuner& tuner(int run) const { return *m_tuners.at(static_cast<std::size_t>(run)); }
  // Before the run's first step: a warm start feeds a cost model earlier runs' trials.
  Tuner& tuner(int run) { return *m_tuners.at(static_cast<std::size_t>(run)); }
  EngineProgress progress() const;
  // What a new run's time budget counts: budgetClock(the measurer is a replay). A resumed run
  // keeps the clock its stored budget says (Budget::clock).
  BudgetClock budgetClock() const { return m_clock; }
  // The run's time as its time budget counts it: its tuning time so far (the batch in hand
  // included), or a replay's device time.
  double budgetSeconds(const RunState& run) const;
  bool done() const;
  // The first error that ended the engine; empty when none did.
  const std::string& failure() const { return m_failure; }
  long long nextOrder() const { return m_nextOrder; }
  // The order of the next trial measured: engines interleaved on one device (InterleavedEngines)
  // keep one order of measurement across them.
  void setNextOrder(long long order) { m_nextOrder = order; }

 private:
  struct BatchCut {};  // thrown from a trial callback to drop the rest of a batch

  std::unique_ptr<Tuner> buildTuner(const RunPlan& plan) const;
  int nextRun();
  // The reason the run must end now, None when it may go on. Not Stopped: a stop is the gate's.
  EndReason spent(const RunState& run) const;
  // given: the configurations to measure (step(run, configs)); null: the tuner proposes.
  void measureBatch(RunState& run, const std::vector<Config>* given);
  bool stepWith(int run, const std::vector<Config>* given);
  std::size_t trialsThatFit(const RunState& run) const;
  void end(RunState& run, EndReason reason, const std::string& message = {});
  void fail(RunState& run, const std::string& message);
  double runSeconds(const RunState& run) const;

  const SearchSpace& m_space;
  Measurer& m_measurer;
  EngineOptions m_options;
  BudgetClock m_clock;
  EngineGate m_gate;
  std::vector<RunState> m_runs;
  std::vector<std::unique_ptr<Tuner>> m_tuners;
  std::vector<EngineObserver*> m_observers;
  int m_lastStepped = -1;
  Rng m_scheduleRng;
  long long m_nextOrder;
  // Trials measured by this engine (not restored, not answered from history): its pace.
  long long m_measuredHere = 0;
  double m_measuredSeconds = 0;        // tuning time those took
  double m_measuredDeviceSeconds = 0;  // and their device time
  std::string m_failure;
  // The run being stepped: its time so far is its seconds plus the clock since this started,
  // less the pauses since.
  int m_active = -1;
  EngineGate::Clock::time_point m_activeSince;
  double m_activePausedAtStart = 0;
};

}  // namespace opevo
