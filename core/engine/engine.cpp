#include "engine/engine.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <stdexcept>

#include "common/error.h"
#include "engine/device_time.h"
#include "layout/operand_layouts.h"
#include "tuners/joint_layout_tuner.h"
#include "tuners/registry.h"

namespace opevo {
namespace {

double secondsSince(EngineGate::Clock::time_point t) {
  return std::chrono::duration<double>(EngineGate::Clock::now() - t).count();
}

}  // namespace

Engine::Engine(const SearchSpace& space, Measurer& measurer, EngineOptions options)
    : m_space(space),
      m_measurer(measurer),
      m_options(options),
      m_clock(opevo::budgetClock(measurer.isReplay())),
      m_scheduleRng(options.scheduleSeed),
      m_nextOrder(std::max(1LL, options.firstOrder)) {}

Engine::~Engine() = default;

std::unique_ptr<Tuner> tunerForPlan(const SearchSpace& space, const RunPlan& plan) {
  plan.budget.check();
  if (plan.batch && *plan.batch == 0) throw InputError("the batch size must be at least 1, got 0");
  if (layout::isLayoutSpace(space)) {
    // A joint layout space is tuned in ALT's two stages by the chosen algorithm.
    TunerSettings joint = jointSettings();
    joint.apply(kJointSettingsOwner, jointPart(plan.settings));
    return std::make_unique<JointLayoutTuner>(
        space, plan.algorithm, algorithmPart(plan.settings), plan.seed,
        jointStagePlan(joint, plan.plannedTrials ? plan.plannedTrials : plan.budget.trials,
                       plan.budget.seconds));
  }
  if (const auto joint = jointPart(plan.settings); !joint.empty())
    throw InputError("setting '" + joint.begin()->first +
                     "' applies only when layouts are tuned with the loops (--mode joint); this "
                     "run tunes the loops of the plain layouts");
  return makeTuner(plan.algorithm, space, plan.seed, plan.settings);
}

void checkRunPlan(const SearchSpace& space, const RunPlan& plan) {
  (void)tunerForPlan(space, plan);
}

std::unique_ptr<Tuner> Engine::buildTuner(const RunPlan& plan) const {
  return tunerForPlan(m_space, plan);
}

int Engine::addRun(RunPlan plan) {
  if (!plan.budget.clock) plan.budget.clock = m_clock;
  m_tuners.push_back(buildTuner(plan));
  RunState state;
  state.index = static_cast<int>(m_runs.size());
  state.clock = *plan.budget.clock;
  state.plan = std::move(plan);
  m_runs.push_back(std::move(state));
  return m_runs.back().index;
}

void Engine::rebuildTuner(int index) {
  const RunState& run = m_runs.at(static_cast<std::size_t>(index));
  if (run.trials > 0)
    throw std::logic_error("engine: a run's tuner is rebuilt before its first trial only");
  m_tuners[static_cast<std::size_t>(index)] = buildTuner(run.plan);
}

void Engine::restore(int index, const std::vector<std::pair<Config, Measurement>>& trials,
                     double secondsBefore) {
  RunState& run = m_runs.at(static_cast<std::size_t>(index));
  std::vector<Observation> observations;
  double deviceMsBefore = 0;
  for (const auto& [config, m] : trials) {
    deviceMsBefore += deviceMs(m);
    const double fitness = m.status == TrialStatus::Ok ? m.speed : 0.0;
    observations.push_back({config, fitness});
    if (fitness > run.best) {
      run.best = fitness;
      run.bestConfig = config;
    }
  }
  m_tuners[static_cast<std::size_t>(index)]->observe(observations);
  run.trials = static_cast<int>(trials.size());
  run.restored = run.trials;
  run.seconds = secondsBefore;
  // What the stored trials cost the device: a resumed replay's time budget goes on from there, as
  // its uninterrupted run's would have (its tuning time before is this machine's, and a replay's
  // budget does not count it).
  run.deviceSeconds = deviceMsBefore / 1e3;
}

void Engine::setStoreId(int index, std::int64_t id) {
  m_runs.at(static_cast<std::size_t>(index)).storeId = id;
}

void Engine::addObserver(EngineObserver& observer) {
  m_observers.push_back(&observer);
}

double Engine::runSeconds(const RunState& run) const {
  if (run.index != m_active) return run.seconds;
  const double paused = m_gate.pausedSeconds() - m_activePausedAtStart;
  return run.seconds + std::max(0.0, secondsSince(m_activeSince) - paused);
}

double Engine::budgetSeconds(const RunState& run) const {
  return run.clock == BudgetClock::Device ? run.deviceSeconds : runSeconds(run);
}

EndReason Engine::spent(const RunState& run) const {
  const Budget& b = run.plan.budget;
  if (b.trials && run.trials >= *b.trials) return EndReason::Trials;
  if (b.targetSpeed && run.best >= *b.targetSpeed) return EndReason::Target;
  if (b.seconds && budgetSeconds(run) >= *b.seconds) return EndReason::Time;
  return EndReason::None;
}

bool Engine::done() const {
  return std::all_of(m_runs.begin(), m_runs.end(), [](const RunState& r) { return r.ended(); });
}

EngineProgress Engine::progress() const {
  EngineProgress p;
  p.runs = static_cast<int>(m_runs.size());
  bool everyTrialBudget = true;
  for (const RunState& r : m_runs) {
    p.runsEnded += r.ended() ? 1 : 0;
    p.trialsDone += r.trials;
    p.seconds += runSeconds(r);
    if (r.ended())
      p.trialsPlanned += r.trials;
    else if (r.plan.budget.trials)
      p.trialsPlanned += *r.plan.budget.trials;
    else
      everyTrialBudget = false;
  }
  if (!everyTrialBudget) p.trialsPlanned = 0;

  // The runs share one pipeline, so the time left is the sum of each run's: its trials left at
  // the mean time per trial measured here, or its tuning time left, whichever ends it first. A
  // replay's budget counts device time: the trials it still buys, at the mean device time per
  // trial, take the mean tuning time each.
  double measured = m_measuredSeconds;
  if (m_active >= 0)
    measured += runSeconds(m_runs[static_cast<std::size_t>(m_active)]) -
                m_runs[static_cast<std::size_t>(m_active)].seconds;
  const double perTrial = m_measuredHere > 0 ? measured / double(m_measuredHere) : -1;
  const double devicePerTrial =
      m_measuredHere > 0 ? m_measuredDeviceSeconds / double(m_measuredHere) : 0;
  double eta = 0;
  for (const RunState& r : m_runs) {
    if (r.ended()) continue;
    std::optional<double> left;
    if (r.plan.budget.trials && perTrial >= 0)
      left = double(*r.plan.budget.trials - r.trials) * perTrial;
    if (r.plan.budget.seconds) {
      const double timeLeft = std::max(0.0, *r.plan.budget.seconds - budgetSeconds(r));
      std::optional<double> byTime;
      if (r.clock == BudgetClock::Tuning)
        byTime = timeLeft;
      else if (perTrial >= 0 && devicePerTrial > 0)
        byTime = timeLeft / devicePerTrial * perTrial;
      if (byTime) left = left ? std::min(*left, *byTime) : *byTime;
    }
    if (!left) return p;  // unknown: a run with only a target, or nothing measured yet
    eta += *left;
  }
  p.etaSeconds = eta;
  return p;
}

int Engine::nextRun() {
  // Only the runs furthest behind in trials are candidates, so the runs of a race advance
  // together whatever each tuner's batch (AutoTVM's 64 against OpEvo's 8): a live comparison is
  // made at equal trials, and drift falls on every run alike.
  int fewest = -1;
  for (const RunState& r : m_runs)
    if (!r.ended() && (fewest < 0 || r.trials < fewest)) fewest = r.trials;
  if (fewest < 0) return -1;
  std::vector<int> candidates;
  for (const RunState& r : m_runs)
    if (!r.ended() && r.trials == fewest) candidates.push_back(r.index);
  if (m_options.schedule == Schedule::Shuffle)
    return candidates[static_cast<std::size_t>(m_scheduleRng.below(candidates.size()))];
  // In turn: the first candidate after the run stepped last.
  for (int c : candidates)
    if (c > m_lastStepped) return c;
  return candidates.front();
}

bool Engine::step() {
  const int next = nextRun();
  if (next < 0) return false;
  step(next);
  return true;
}

void Engine::setBatch(int run, std::optional<std::size_t> batch) {
  m_runs.at(static_cast<std::size_t>(run)).plan.batch = batch;
}

bool Engine::step(int index) {
  return stepWith(index, nullptr);
}

bool Engine::step(int index, const std::vector<Config>& configs) {
  for (const Config& c : configs)
    if (!m_space.contains(c) || !m_space.satisfies(c))
      throw std::logic_error("engine: a given configuration is not a valid point of the space");
  return stepWith(index, &configs);
}

bool Engine::stepWith(int index, const std::vector<Config>* given) {
  RunState& run = m_runs.at(static_cast<std::size_t>(index));
  if (run.ended()) return false;
  m_lastStepped = index;
  // A run whose budget is spent has finished, whatever stops the engine after its last trial: a
  // stop that came with the last trial (the window's "Stop and quit") stored a run of 30 of 30
  // trials as interrupted, and its resume measured nothing.
  const auto stopAll = [this] {
    for (RunState& r : m_runs)
      if (!r.ended()) {
        const EndReason reason = spent(r);
        end(r, reason != EndReason::None ? reason : EndReason::Stopped);
      }
  };
  if (!m_gate.waitWhilePaused()) {
    stopAll();
    return false;
  }
  if (const EndReason reason = spent(run); reason != EndReason::None) {
    end(run, reason);
    return false;
  }
  try {
    measureBatch(run, given);
  } catch (const std::exception& e) {
    fail(run, e.what());
    return false;
  }
  if (m_gate.stopped())
    stopAll();
  else if (!run.ended())
    // Ended at once, not at its next turn, so observers hear of it right after its last trial.
    if (const EndReason reason = spent(run); reason != EndReason::None) end(run, reason);
  return true;
}

void Engine::run() {
  while (step()) {
  }
}

void Engine::measureBatch(RunState& run, const std::vector<Config>* given) {
  Tuner& tuner = *m_tuners[static_cast<std::size_t>(run.index)];
  m_active = run.index;
  m_activeSince = EngineGate::Clock::now();
  m_activePausedAtStart = m_gate.pausedSeconds();
  // However the batch ends, its time is the run's (and the engine's), pauses excluded.
  struct Settle {
    Engine& e;
    RunState& r;
    ~Settle() {
      const double now = e.runSeconds(r);
      e.m_measuredSeconds += now - r.seconds;
      r.seconds = now;
      e.m_active = -1;
    }
  } settle{*this, run};

  std::size_t want = given            ? given->size()
                     : run.plan.batch ? *run.plan.batch
                                      : tuner.preferredBatch();
  if (run.plan.budget.trials)
    want = std::min<std::size_t>(want, std::size_t(*run.plan.budget.trials - run.trials));
  if (run.plan.budget.seconds) want = std::min(want, trialsThatFit(run));
  // A share of a time budget ends the joint layout stage.
  if (auto* joint = dynamic_cast<JointLayoutTuner*>(&tuner))
    joint->setTuningSeconds(budgetSeconds(run));
  const auto t0 = EngineGate::Clock::now();
  const std::vector<Config> batch =
      given
          ? std::vector<Config>(given->begin(), given->begin() + static_cast<std::ptrdiff_t>(want))
          : tuner.propose(want);
  const double proposeSeconds = secondsSince(t0);
  if (batch.empty()) {
    // Given none, the tuner was not asked: its space is not known to be used up.
    if (!given) end(run, EndReason::Exhausted);
    return;
  }
  std::vector<Observation> observations;
  const auto take = [&](std::size_t i, const Measurement& m) {
    m_gate.pace(m_options.paceMs);
    const double fitness = m.status == TrialStatus::Ok ? m.speed : 0.0;
    TrialEvent e;
    e.run = &run;
    e.config = batch[i];
    e.improved = fitness > run.best;
    if (e.improved) {
      run.best = fitness;
      run.bestConfig = batch[i];
    }
    ++run.trials;
    // Before any observer hears of the trial, and before spent() below: the trial that reaches
    // a replay's time budget ends its run.
    const double device = deviceMs(m) / 1e3;
    run.deviceSeconds += device;
    if (!m.reused) {
      ++m_measuredHere;
      m_measuredDeviceSeconds += device;
    }
    TrialRecord& t = e.record;
    t.order = m_nextOrder++;
    t.run = run.recordId();
    t.algorithm = run.plan.algorithm;
    t.repeat = run.plan.repeat;
    t.seed = run.plan.seed;
    t.trial = run.trials;
    t.config = m_space.format(batch[i]);
    t.measurement = m;
    t.bestSoFar = run.best;
    t.seconds = runSeconds(run);
    t.tunerSeconds = proposeSeconds / double(batch.size());
    observations.push_back({batch[i], fitness});
    const EngineProgress p = progress();
    for (EngineObserver* o : m_observers) o->trialMeasured(e, p);
    if (!m_gate.waitWhilePaused() || spent(run) != EndReason::None) throw BatchCut{};
  };
  // A replay's measurements are its file's whatever order they come back in, but a cluster hands
  // them back as its agents finish, which differs from one run to the next; where a budget cuts
  // the batch (device time, a target speed), that order decides which trials the run keeps. Taken
  // in the batch's order, a replay's run is the same on a cluster as here, and every time.
  std::vector<std::optional<Measurement>> early(m_measurer.isReplay() ? batch.size() : 0);
  std::size_t next = 0;
  bool taking = false;  // an error thrown while a trial is taken is an observer's, not the batch's
  const auto takeNext = [&] {
    taking = true;
    take(next, *early[next]);
    taking = false;
  };
  // What came back past a trial that never did (a cluster cancelled, or failing midway) is
  // taken all the same, in order: a measurement handed to the engine is committed.
  const auto takeTheRest = [&] {
    for (; next < early.size(); ++next)
      if (early[next]) takeNext();
  };
  try {
    m_measurer.measureEach(batch, [&](std::size_t i, const Measurement& m) {
      if (early.empty()) return take(i, m);
      early.at(i) = m;
      for (; next < early.size() && early[next]; ++next) takeNext();
    });
    takeTheRest();
  } catch (const BatchCut&) {
    // A stop or a spent budget: the rest of the batch is not measured.
  } catch (...) {
    if (!taking) {
      try {
        takeTheRest();
      } catch (const BatchCut&) {
      }
    }
    tuner.observe(observations);
    throw;
  }
  tuner.observe(observations);
}

std::size_t Engine::trialsThatFit(const RunState& run) const {
  // A time budget is checked between trials, but the CPU measurers build a whole batch before
  // timing its first kernel: eight C2 builds took 10 s of a 5 s budget before any trial was
  // timed. So the batch is what fits in the time left at the mean time per trial so far, and
  // before any trial a batch of two (both default compilers busy) finds that pace. Trials
  // answered from history take no time and are not counted: after 40 of them the pace read as
  // nothing, and the next batch was the tuner's whole batch.
  // A replay's budget counts device time, which its trials carry one at a time and a pace does
  // not change: checked after each trial, it cuts the batch at the trial that reaches it, so the
  // run measures what the same run without a time budget would have, up to that trial (a batch
  // sized by this machine's pace would change the tuner's batches, and with them the run, from
  // one machine to the next).
  if (run.clock == BudgetClock::Device) return std::numeric_limits<std::size_t>::max();
  if (m_measuredHere == 0) return 2;
  const double perTrial = m_measuredSeconds / double(m_measuredHere);
  const double left = *run.plan.budget.seconds - runSeconds(run);
  if (perTrial <= 0) return std::numeric_limits<std::size_t>::max();
  return static_cast<std::size_t>(std::clamp(left / perTrial, 1.0, 1e9));
}

void Engine::end(RunState& run, EndReason reason, const std::string& message) {
  run.end = reason;
  run.message = message;
  const EngineProgress p = progress();
  for (EngineObserver* o : m_observers) {
    try {
      o->runEnded(run, p);
    } catch (const std::exception& e) {
      if (m_failure.empty()) m_failure = e.what();
    }
  }
}

void Engine::fail(RunState& run, const std::string& message) {
  const std::string what = "run " + std::to_string(run.recordId()) + " (" + run.plan.algorithm +
                           ", repeat " + std::to_string(run.plan.repeat + 1) + "): " + message;
  if (m_failure.empty()) m_failure = what;
  end(run, EndReason::Failed, message);
  // The runs share the pipeline and the store that failed: none of them can go on safely. They
  // did nothing wrong, so they are stopped (interrupted, to be resumed), not failed: a store
  // locked by another program marked the run beside the one that met the lock failed, while that
  // one, whose own status could not be written, read as interrupted.
  for (RunState& r : m_runs)
    if (!r.ended()) end(r, EndReason::Stopped, "stopped after " + what);
}

}  // namespace opevo
