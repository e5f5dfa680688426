#include "ui/engine_worker.h"

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include <climits>
#include <exception>
#include <nlohmann/json.hpp>

#include "backends/backend_factory.h"
#include "backends/stored_run.h"
#include "engine/tuning_session.h"
#include "replay/replay_measurer.h"
#include "store/run_operator.h"
#include "store/store.h"
#include "tuners/registry.h"
#include "ui/race_data.h"
#include "ui/race_gate.h"

namespace opevo::ui {
namespace {

// What the store keeps of one run of a race. Core's RunRecord has no notion of a race, so the
// race's key, the repeat, a label and the reference ride in operatorJson beside the operator
// (store/run_operator.h), where the history page finds them.
RunRecord runRecord(const RaceSpec& spec, const MeasurementSetup& setup, const Tuner& tuner,
                    const std::string& raceKey, int repeat, std::uint64_t seed,
                    const std::optional<ReferenceLine>& reference) {
  const Measurer& m = *setup.measurer;
  RunRecord r;
  const std::string label = m.label();
  r.operatorName = setup.operatorName;
  if (spec.dataset) r.operatorName = spec.dataset->kernelName.empty() ? label : spec.dataset->kernelName;
  nlohmann::json op = runOperator(setup.operatorJson);
  op["label"] = label;
  op["race"] = raceKey;
  op["repeat"] = repeat;
  if (reference)
    op["reference"] = {{"library", reference->name.toStdString()}, {"speed", reference->speed}};
  r.operatorJson = op.dump();
  r.algorithm = tuner.name();
  nlohmann::json settings = nlohmann::json::object();
  for (const SettingInfo& s : tuner.settings().all()) settings[s.name] = s.value;
  r.settingsJson = settings.dump();
  r.seed = seed;
  r.backend = setup.backend;
  r.device = m.device();
  Budget b;
  b.trials = spec.trials;
  b.seconds = spec.seconds;
  b.targetSpeed = spec.targetSpeed;
  r.budgetJson = b.toJson();
  r.status = "running";
  r.speedUnit = m.speedUnit();
  return r;
}

// The engine (and the OpenMP threads XGBoost starts from it, which inherit its niceness) yields
// the CPU to the GUI thread: on a two-core machine a busy model fit otherwise starves the window
// for a few hundred milliseconds. Linux's nice is per thread; elsewhere this does nothing.
void lowerEnginePriority() {
#ifdef __linux__
  static thread_local bool done = false;
  if (done) return;
  done = true;
  setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 10);
#endif
}

}  // namespace

void EngineWorker::flush(bool force) {
  if (!force && m_sinceFlush.isValid() && m_sinceFlush.elapsed() < kFlushIntervalMs) return;
  emit updated(std::make_shared<const EngineUpdate>(m_pending));
  m_pending.trials.clear();
  m_sinceFlush.restart();
}

void EngineWorker::run(const RaceSpec& spec) {
  lowerEnginePriority();
  m_pending = EngineUpdate{};
  m_sinceFlush.start();
  RaceOutcome outcome{QStringLiteral("finished"), QString()};
  try {
    std::unique_ptr<Store> store;
    if (!spec.storePath.empty()) {
      try {
        store = std::make_unique<Store>(spec.storePath);
      } catch (const std::exception& e) {
        if (spec.resumeRun) throw;  // nothing to resume from
        // The race is still worth running; the message says why history will not show it.
        outcome.message = QObject::tr("Not recorded in the history: %1").arg(e.what());
      }
    }
    if (spec.resumeRun)
      resume(spec, *store);
    else
      race(spec, store.get());
    if (m_gate.stopped()) outcome.reason = QStringLiteral("stopped");
  } catch (const std::exception& e) {
    outcome.reason = QStringLiteral("failed");
    outcome.message = QString::fromUtf8(e.what());
    flush(true);
  }
  emit finished(outcome);
}

void EngineWorker::announce(Measurer& measurer) {
  m_pending.measuring = QString::fromStdString(measurer.label());
  flush(true);
  m_pending.measuring.clear();
  if (measurer.isReplay() || m_gate.stopped()) return;
  // The vendor library's speed is measured before the first run, so its line is on the chart
  // while the curves grow.
  timeReference(measurer);
}

void EngineWorker::timeReference(Measurer& measurer) {
  // Timed again after every run and the fastest kept: a single timing at the start competes
  // with the window's own start-up work (layouts, distributions) and can read several times too
  // slow, which would flatter the tuned kernels. A missing or failing reference costs the line,
  // not the race.
  try {
    const auto ref = measurer.reference();
    if (!ref || ref->measurement.status != TrialStatus::Ok) return;
    if (m_reference && m_reference->speed >= ref->measurement.speed) return;
    m_reference = ReferenceLine{QString::fromStdString(ref->library), ref->measurement.speed};
    m_pending.reference = m_reference;
    flush(true);
    m_pending.reference.reset();
  } catch (const std::exception&) {
  }
}

EngineWorker::SessionEnd EngineWorker::runSession(TuningSession& session, GatedMeasurer& gated,
                                                  const SearchSpace& space, const SessionPlace& place) {
  RaceProgress& progress = m_pending.progress;
  progress.current = place.title;
  gated.setStopHook([&session] { session.stop(); });
  const double pausedAtStart = m_gate.pausedSeconds();
  double runSeconds = 0;
  bool timeUp = false;
  session.onTrial([&](const TrialEvent& e) {
    runSeconds = std::max(0.0, e.elapsedSeconds - (m_gate.pausedSeconds() - pausedAtStart));
    TrialPoint p;
    p.algorithm = place.algorithm;
    p.repeat = place.repeat;
    p.seq = e.seq;
    p.config = QString::fromStdString(space.format(e.config));
    p.status = e.measurement.status;
    p.message = QString::fromStdString(e.measurement.message);
    p.speed = e.measurement.speed;
    p.best = e.best;
    p.seconds = place.secondsBefore + runSeconds;
    m_pending.trials.push_back(std::move(p));
    ++progress.trialsDone;
    const double spent = place.finishedSeconds + runSeconds;
    double eta = -1;
    if (progress.trialsPlanned > 0)
      eta = spent / double(progress.trialsDone) * double(progress.trialsPlanned - progress.trialsDone);
    if (place.seconds) {
      const double byTime = *place.seconds * (progress.runs - progress.runsDone) - runSeconds;
      eta = eta < 0 ? byTime : std::min(eta, byTime);
    }
    progress.etaSeconds = eta;
    if (place.seconds && runSeconds >= *place.seconds && !timeUp) {
      timeUp = true;
      session.stop();
    }
    flush(false);
  });
  std::string reason = session.run();
  if (timeUp) reason = "time";
  if (m_gate.stopped()) reason = "stopped";
  gated.setStopHook({});
  return {reason, runSeconds};
}

void EngineWorker::race(const RaceSpec& spec, Store* store) {
  const MeasurementSetup setup =
      spec.backend == "replay" ? replayMeasurement(spec.dataset) : makeMeasurement(spec.backend, spec.operatorRef);
  const SearchSpace& space = *setup.space;
  GatedMeasurer gated(*setup.measurer, m_gate, spec.backend == "replay" ? spec.paceMs : 0);
  m_reference.reset();
  announce(*setup.measurer);
  const std::string raceKey = Store::nowUtc();
  const int algorithms = static_cast<int>(spec.algorithms.size());
  RaceProgress& progress = m_pending.progress;
  progress.runs = algorithms * spec.repeats;
  progress.trialsPlanned = spec.trials ? static_cast<long long>(*spec.trials) * progress.runs : 0;
  double finishedSeconds = 0;  // tuning time of the runs already done

  for (int repeat = 0; repeat < spec.repeats && !m_gate.stopped(); ++repeat) {
    for (int a = 0; a < algorithms && !m_gate.stopped(); ++a) {
      const AlgorithmChoice& choice = spec.algorithms[static_cast<std::size_t>(a)];
      const std::uint64_t seed = spec.seed + static_cast<std::uint64_t>(repeat);
      auto tuner = makeTuner(choice.name, space, seed, choice.settings);
      std::int64_t runId = 0;
      if (store) runId = store->createRun(runRecord(spec, setup, *tuner, raceKey, repeat, seed, m_reference));
      // The time budget is kept here, not by core, so that a pause does not spend it.
      Budget budget;
      budget.trials = spec.trials ? *spec.trials : INT_MAX;
      budget.targetSpeed = spec.targetSpeed;
      TuningSession session(space, std::move(tuner), gated, budget, store, runId);
      SessionPlace place;
      place.algorithm = a;
      place.repeat = repeat;
      place.title = QObject::tr("%1, repeat %2 of %3")
                        .arg(QString::fromStdString(choice.name))
                        .arg(repeat + 1)
                        .arg(spec.repeats);
      place.seconds = spec.seconds;
      place.finishedSeconds = finishedSeconds;
      const SessionEnd end = runSession(session, gated, space, place);
      if (store) store->setRunStatus(runId, end.reason == "stopped" ? "interrupted" : "finished", true);
      finishedSeconds += end.seconds;
      ++progress.runsDone;
      flush(true);
      if (!setup.measurer->isReplay() && !m_gate.stopped()) timeReference(*setup.measurer);
    }
  }
}

void EngineWorker::resume(const RaceSpec& spec, Store& store) {
  ResumedRun r = resumeStoredRun(store, *spec.resumeRun);
  const SearchSpace& space = *r.setup.space;
  GatedMeasurer gated(*r.setup.measurer, m_gate, 0);
  m_reference.reset();
  announce(*r.setup.measurer);
  // The stored trials first, so the curve continues where the run stopped.
  m_pending.trials = storedTrialPoints(r.run, r.rows, 0, 0);
  double before = 0;
  for (const TrialPoint& p : m_pending.trials) before = std::max(before, p.seconds);
  RaceProgress& progress = m_pending.progress;
  progress.runs = 1;
  progress.trialsDone = static_cast<long long>(r.restored.size());
  progress.trialsPlanned = r.budget.trials ? *r.budget.trials : 0;
  flush(true);
  SessionPlace place;
  place.title = QObject::tr("%1, run %2 resumed").arg(QString::fromStdString(r.run.algorithm)).arg(r.run.id);
  place.secondsBefore = before;
  // As in a race, time is kept here so a pause does not spend it; a resumed run gets its whole
  // time budget again, since the time between the kill and now is not tuning time.
  place.seconds = r.budget.seconds;
  r.budget.seconds.reset();
  TuningSession session(space, std::move(r.tuner), gated, r.budget, &store, r.run.id);
  session.restore(r.restored);
  const SessionEnd end = runSession(session, gated, space, place);
  store.setRunStatus(r.run.id, end.reason == "stopped" ? "interrupted" : "finished", true);
  progress.runsDone = 1;
  flush(true);
}

}  // namespace opevo::ui
