#include "ui/controller/engine_worker.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <map>
#include <memory>
#include <set>

#include "backends/backend_factory.h"
#include "backends/run_context.h"
#include "backends/stored_run.h"
#include "cluster/cluster_run.h"
#include "cluster/cluster_session.h"
#include "common/error.h"
#include "common/machine_load.h"
#include "engine/interleaved_engines.h"
#include "engine/race.h"
#include "engine/side_by_side_json.h"
#include "engine/speed_unit.h"
#include "engine/store_recorder.h"
#include "engine/trial_failures.h"
#include "layout/conv2d_layout.h"
#include "ops/operator_json.h"
#include "replay/replay_measurer.h"
#include "space/text.h"
#include "store/store.h"
#include "ui/controller/engine_priority.h"
#include "ui/controller/race_control.h"
#include "ui/controller/race_data.h"
#include "ui/controller/race_definition.h"
#include "ui/controller/resumed_race.h"

namespace opevo::ui {
namespace {

// Two sentences of the race's outcome, either of which may be empty.
QString joined(const QString& a, const QString& b) {
  return a.isEmpty() ? b : b.isEmpty() ? a : a + QLatin1Char(' ') + b;
}

}  // namespace

void EngineWorker::flush(bool force) {
  if (!force && m_sinceFlush.isValid() && m_sinceFlush.elapsed() < kFlushIntervalMs) return;
  emit updated(std::make_shared<const EngineUpdate>(m_pending));
  m_pending.trials.clear();
  m_pending.runsEnded.clear();
  m_pending.measuring.clear();
  m_pending.reference.reset();
  m_pending.notices.clear();
  m_pending.notStored = false;
  m_sinceFlush.restart();
}

void EngineWorker::run(const RaceSpec& spec) {
  lowerEnginePriority();
  m_pending = EngineUpdate{};
  m_sinceFlush.start();
  RaceOutcome outcome;
  QString storeProblem;
  try {
    std::unique_ptr<Store> store;
    if (!spec.storePath.empty()) {
      try {
        store = std::make_unique<Store>(spec.storePath);
      } catch (const std::exception& e) {
        if (spec.resumeRun) throw;  // nothing to resume from
        // The race is still worth running; the message says why history will not show it.
        storeProblem = QObject::tr("Not recorded in the history: %1").arg(e.what());
        m_pending.notStored = true;  // sent with the first update, before any trial
      }
    }
    outcome = spec.resumeRun ? resume(spec, *store) : race(spec, store.get());
  } catch (const InputError& e) {
    // Thrown before the first trial (the engine reports what goes wrong later as its failure).
    outcome.end = RaceOutcome::End::Refused;
    outcome.message = QString::fromUtf8(e.what());
  } catch (const std::exception& e) {
    outcome.end = RaceOutcome::End::Failed;
    outcome.message = QString::fromUtf8(e.what());
  }
  m_measurer = nullptr;
  m_engines = nullptr;
  m_recorders.clear();
  if (!storeProblem.isEmpty())
    outcome.message = outcome.message.isEmpty() ? storeProblem
                                                : outcome.message + QLatin1Char(' ') + storeProblem;
  flush(true);
  emit finished(outcome);
}

void EngineWorker::announce(Measurer& measurer) {
  m_pending.measuring = QString::fromStdString(measurer.label());
  flush(true);
  if (measurer.isReplay() || m_control.stopped()) return;
  // The vendor library's speed is measured before the first trial, so its line is on the chart
  // while the curves grow.
  timeReference(measurer);
}

void EngineWorker::timeReference(Measurer& measurer) {
  // Timed again whenever a run ends and the fastest kept: a single timing at the start competes
  // with the window's own start-up work (layouts, distributions) and can read several times too
  // slow, which would flatter the tuned kernels. A missing or failing reference costs the line,
  // not the race.
  try {
    const auto ref = measurer.reference();
    if (!ref || ref->measurement.status != TrialStatus::Ok) return;
    ++m_referenceTimings;
    if (!m_reference || m_reference->speed < ref->measurement.speed) {
      m_reference = referenceLineOf(ref->library, ref->measurement.speed);
      m_storedReferenceOf = 0;  // this race's own timing now
      for (StoreRecorder* recorder : m_recorders)
        recorder->setReference(ref->library, ref->measurement.speed);
    }
    // The legend says which timing the line is, so its count changes too.
    m_reference->origin = referenceOrigin();
    m_pending.reference = m_reference;
    flush(true);
  } catch (const std::exception&) {
  }
}

void EngineWorker::setProgress(const EngineProgress& p) {
  RaceProgress& progress = m_pending.progress;
  progress.runs = p.runs;
  progress.runsDone = p.runsEnded;
  progress.trialsDone = p.trialsDone;
  progress.trialsPlanned = p.trialsPlanned;
  progress.etaSeconds = p.etaSeconds;
}

void EngineWorker::trialMeasured(const TrialEvent& e, const EngineProgress& p) {
  const TrialRecord& t = e.record;
  const RunPlan& plan = e.run->plan;
  TrialPoint point;
  point.algorithm = plan.algorithmIndex;
  point.repeat = plan.repeat;  // a resumed run keeps its own repeat: tables and exports show it
  point.seq = t.trial;
  point.order = t.order;
  point.run = t.run;
  point.seed = t.seed;
  point.config = QString::fromStdString(t.config);
  point.status = t.measurement.status;
  m_statuses.push_back(t.measurement.status);
  point.message = QString::fromStdString(t.measurement.message);
  point.agent = QString::fromStdString(t.measurement.agent);
  point.speed = t.measurement.speed;
  point.best = t.bestSoFar;
  point.seconds = t.seconds;
  point.medianMs = t.measurement.medianMs;
  point.compileMs = t.measurement.compileMs;
  point.measureMs = t.measurement.measureMs;
  point.verifyMs = t.measurement.verifyMs;
  point.reused = t.measurement.reused;
  point.tunerSeconds = t.tunerSeconds;
  // A replay's trials are charted on what they cost the device by the file, whatever clock its
  // budget counts (a run stored before budgets counted device time goes on on tuning time).
  if (m_measurer && m_measurer->isReplay()) point.deviceSeconds = e.run->deviceSeconds;
  m_pending.trials.push_back(std::move(point));
  setProgress(m_engines ? m_engines->progress() : p);
  // Short: it follows "NN% of the race; now " in the status bar's progress bar.
  m_pending.progress.current = m_resumed ? QObject::tr("%1, repeat %2 (run %3)")
                                               .arg(curveName(plan))
                                               .arg(plan.repeat + 1)
                                               .arg(e.run->storeId)
                                         : QObject::tr("%1, repeat %2 of %3")
                                               .arg(curveName(plan))
                                               .arg(plan.repeat + 1)
                                               .arg(m_repeats);
  flush(false);
}

void EngineWorker::runEnded(const RunState& run, const EngineProgress& p) {
  m_pending.runsEnded.emplace_back(run.plan.algorithmIndex, run.plan.repeat);
  setProgress(m_engines ? m_engines->progress() : p);
  flush(true);
  // The last run's end is timed too: it is the one moment nothing else of the race competes for the
  // device, and a race of one run would otherwise keep only the timing taken beside the window's
  // start-up (once 50x too slow on a loaded CPU). A stopped or failed race ends at once.
  const bool endedWell = run.end != EndReason::Stopped && run.end != EndReason::Failed;
  if (m_measurer && !m_measurer->isReplay() && endedWell) timeReference(*m_measurer);
}

QString EngineWorker::curveName(const RunPlan& plan) const {
  return m_curveNames.value(plan.algorithmIndex, QString::fromStdString(plan.algorithm));
}

RaceOutcome EngineWorker::drive(InterleavedEngines& engines) {
  for (Engine* engine : engines.engines()) engine->addObserver(*this);
  m_engines = &engines;
  m_control.attach(&engines);
  // Detached however the run ends: a control left attached to engines gone would reach them.
  struct Detach {
    RaceControl& control;
    ~Detach() { control.attach(nullptr); }
  } detach{m_control};
  engines.run();
  RaceOutcome outcome;
  if (const std::string failure = engines.failure(); !failure.empty()) {
    outcome.end = RaceOutcome::End::Failed;
    outcome.message =
        QObject::tr("%1. Every trial measured before it is kept; resume its runs from History.")
            .arg(QString::fromStdString(failure));
  } else if (m_control.stopped()) {
    outcome.end = RaceOutcome::End::Stopped;
  }
  return outcome;
}

BackendOptions EngineWorker::backendOptions(const RaceSpec& spec) {
  BackendOptions options;
  if (!spec.cluster) return options;
  cluster::ClusterSessionOptions session;
  session.cancel = m_control.cancelFlag();
  // Called on this thread, from inside the measurer: the notice joins the next update.
  session.notice = [this](const std::string& text) {
    m_pending.notices << QString::fromStdString(text);
    flush(false);
  };
  options.cluster = openClusterSession(*spec.cluster, std::move(session));
  return options;
}

RaceOutcome EngineWorker::race(const RaceSpec& spec, Store* store) {
  const bool replay = spec.backend == "replay";
  if (!spec.alsoIn.empty() && (replay || spec.cluster))
    throw InputError(replay
                         ? "A replay races in its dataset's one space."
                         : acrossSpacesThroughTheCluster(AcrossSpacesRefusal::Race).toStdString());
  const BackendOptions backend = backendOptions(spec);
  // Each space's measurer and engine: the first space's measurer times the library.
  std::vector<MeasurementSetup> setups;
  for (const RaceSpace& space : racedSpaces(spec))
    setups.push_back(replay ? replayMeasurement(spec.dataset, backend)
                            : makeOperatorMeasurement(
                                  spec.backend, raceDefinition(inSpace(spec, space)), backend));
  const MeasurementSetup& setup = setups.front();
  // Before its runs are stored: a missing worker or compiler failed each at its first trial.
  requireMeasuringPrograms(setup.backend, backend);
  EngineOptions options;
  options.schedule = spec.schedule;
  options.scheduleSeed = spec.seed;
  options.paceMs = replay ? spec.paceMs : 0;
  RacePlan plan;
  plan.algorithms = spec.algorithms;
  plan.repeats = spec.repeats;
  plan.budget = {spec.trials, spec.seconds, spec.targetSpeed, std::nullopt};  // clock: the engine's
  plan.seed = spec.seed;
  std::vector<std::unique_ptr<Engine>> engines;
  std::vector<Engine*> stepped;
  for (std::size_t i = 0; i < setups.size(); ++i) {
    engines.push_back(std::make_unique<Engine>(*setups[i].space, *setups[i].measurer, options));
    // A bad setting fails here, before anything is measured; the algorithms of the next space
    // are numbered after the first's, as raceCurveNames names them.
    addRace(*engines.back(), plan, static_cast<int>(i * spec.algorithms.size()));
    stepped.push_back(engines.back().get());
  }
  InterleavedEngines interleaved(stepped, spec.schedule, spec.seed);
  m_repeats = spec.repeats;
  m_resumed = false;
  m_curveNames = raceCurveNames(spec);
  m_measurer = setup.measurer.get();
  m_statuses.clear();
  m_reference.reset();
  m_referenceTimings = 0;
  m_storedReferenceOf = 0;

  std::vector<std::unique_ptr<StoreRecorder>> recorders;
  if (store) {
    for (std::size_t i = 0; i < engines.size(); ++i) {
      RunContext context = runContextOf(setups[i]);
      context.operatorJson = withReplayPace(context.operatorJson, options.paceMs);
      recorders.push_back(std::make_unique<StoreRecorder>(*store, *engines[i], std::move(context)));
      // First: a trial is committed before the GUI hears of it.
      engines[i]->addObserver(*recorders.back());
      m_recorders.push_back(recorders.back().get());
    }
    // The spaces' runs are one race, stored as one, all or none: a second space refused after
    // the first's runs were stored left them "running" with no trial, never to be run.
    store->inTransaction([&] {
      const std::int64_t raceId =
          engines.size() > 1 ? store->createRace(spec.schedule, spec.seed) : 0;
      for (const auto& recorder : recorders) {
        if (raceId) recorder->joinRace(raceId);
        recorder->createRuns();
      }
    });
  }
  if (const std::string busy = spec.backend == "cpu" ? busyMachineNote() : std::string();
      !busy.empty())
    m_pending.notices << QObject::tr("Note: %1.").arg(QString::fromStdString(busy));
  // Where the race tunes layouts too, the note's advice is taken already.
  if (const std::string loops =
          spec.backend == "cpu" && setup.definition && spec.alsoIn.empty()
              ? layout::depthwiseLoopNote(*setup.definition, "\"Layouts and loops (ALT joint)\"")
              : std::string();
      !loops.empty())
    m_pending.notices << QObject::tr("Note: %1.").arg(QString::fromStdString(loops));
  announce(*setup.measurer);
  setProgress(interleaved.progress());
  flush(true);
  RaceOutcome outcome = drive(interleaved);
  if (outcome.end == RaceOutcome::End::Finished) timeBesideLibrary(interleaved, store);
  if (outcome.end == RaceOutcome::End::Finished || outcome.end == RaceOutcome::End::Stopped)
    outcome.message = joined(
        outcome.message, nothingWorkedNote(interleaved, setup.backend, backend,
                                           setup.definition ? setup.definition->op.flops() : 0));
  m_recorders.clear();
  m_engines = nullptr;
  return outcome;
}

RaceOutcome EngineWorker::resume(const RaceSpec& spec, Store& store) {
  std::vector<std::int64_t> ids{*spec.resumeRun};
  ids.insert(ids.end(), spec.resumeWith.begin(), spec.resumeWith.end());
  // A cluster's run resumed with no cluster connected would be measured here under the
  // cluster's label, as `opevo tune --resume` refuses to: refused (an InputError: Refused).
  std::set<std::string> storedSpaces;  // the operator JSON of each space the runs tuned
  for (const std::int64_t id : ids)
    if (const auto run = store.run(id)) {
      storedSpaces.insert(run->operatorJson);
      // As a new race across spaces is refused (the spaces' measurers would share one session).
      if (storedSpaces.size() > 1 && spec.cluster)
        throw InputError(acrossSpacesThroughTheCluster(AcrossSpacesRefusal::Resume).toStdString());
      if (const auto problem = cluster::clusterResumeProblem(*run, spec.cluster.has_value(), false))
        throw InputError(*problem +
                         " (connect to it on the Cluster page and tick \"Through the cluster's "
                         "agents\")");
      // Before the runs are marked running (and given a new total), as the command line checks:
      // a missing worker or compiler failed them at their first trial, their budget changed. One
      // race measures on one backend.
      if (!spec.cluster && id == ids.front())
        requireMeasuringPrograms(run->backend, BackendOptions());
    }
  // The runs are held from here to the end of the resume: the new total is stored with the
  // resume, in the window's words when it is refused, and measured as the spec says (a cluster).
  const BackendOptions backend = backendOptions(spec);
  std::vector<ResumedRun> race =
      resumeStoredRace(store, ids, backend, spec.newBudget, BudgetAskedBy::Window);
  std::vector<RunRecord> records;
  for (const ResumedRun& r : race) records.push_back(r.run);
  // Named as the Runs page names them (its race-mates from History's list): by the whole race,
  // so a joint run resumed alone is still "random (joint)" in the progress and the library note.
  std::vector<RunRecord> stored;
  std::set<std::int64_t> races;
  for (const RunRecord& r : records)
    if (r.raceId && races.insert(r.raceId).second)
      for (RunRecord& m : store.raceRuns(r.raceId)) stored.push_back(std::move(m));
  const ResumedRace places = resumedRaceOf(records, raceMatesOf(records, stored));
  const ResumedRun& first = race.front();
  EngineOptions options;
  options.firstOrder = first.nextOrder;  // the race's, the same for each of its runs
  // The race's pace, so the resumed runs are watched as the race was; their time budget counts
  // device time (a replay's) from their stored trials on, which no pace changes.
  options.paceMs = first.paceMs;
  // Under the race's schedule (a shuffled race went on round-robin, its first run measured first
  // in every round). Its seed moved on by where the race stopped: the race's own seed again would
  // draw, after every resume, the orders the race began with.
  options.schedule = first.run.raceSchedule;
  options.scheduleSeed = first.run.raceScheduleSeed + static_cast<std::uint64_t>(first.nextOrder);
  // An engine per space the race tuned (its runs' operator, as stored: one for a race in one
  // space), each on the measurer of the first of its runs, interleaved as the race was.
  std::vector<std::string> spaces;
  std::vector<std::unique_ptr<Engine>> engines;
  std::vector<std::unique_ptr<StoreRecorder>> recorders;
  const auto engineOf = [&](const ResumedRun& r) -> Engine& {
    const auto it = std::find(spaces.begin(), spaces.end(), r.run.operatorJson);
    if (it != spaces.end()) return *engines[static_cast<std::size_t>(it - spaces.begin())];
    spaces.push_back(r.run.operatorJson);
    engines.push_back(std::make_unique<Engine>(*r.setup.space, *r.setup.measurer, options));
    recorders.push_back(std::make_unique<StoreRecorder>(store, *engines.back(), RunContext{}));
    engines.back()->addObserver(*recorders.back());
    m_recorders.push_back(recorders.back().get());
    return *engines.back();
  };
  m_pending.trials.clear();
  m_statuses.clear();
  for (ResumedRun& r : race) {
    // Drawn and listed where the window's list of the resumed race puts it (resumedRaceOf).
    const auto [algorithm, repeat] = places.places.at(r.run.id);
    r.plan.algorithmIndex = algorithm;
    addResumedRun(engineOf(r), r);
    // The stored trials first, so the curve continues where the run stopped.
    for (TrialPoint& p : storedTrialPoints(r.run, r.rows, algorithm, repeat)) {
      m_statuses.push_back(p.status);
      m_pending.trials.push_back(std::move(p));
    }
  }
  std::vector<Engine*> stepped;
  for (const auto& engine : engines) stepped.push_back(engine.get());
  InterleavedEngines interleaved(stepped, options.schedule, options.scheduleSeed);
  m_repeats = places.repeats;
  m_resumed = true;
  m_curveNames = places.algorithms;
  m_measurer = first.setup.measurer.get();
  // The runs' stored timing of the library is where the line starts: a new timing replaces it
  // (in the store too) only when it is faster, as during the race, so a resume on a busier
  // machine neither overwrites 118.5 with 104 nor draws a kernel against a slow line.
  m_reference.reset();
  m_referenceTimings = 0;
  m_storedReferenceOf = 0;
  for (const RunRecord& run : records)
    if (run.referenceSpeed && (!m_reference || m_reference->speed < *run.referenceSpeed)) {
      m_reference = referenceLineOf(run.referenceLibrary, *run.referenceSpeed);
      m_storedReferenceOf = run.id;
    }
  if (m_reference) {
    m_reference->origin = referenceOrigin();
    m_pending.reference = m_reference;
  }
  announce(*first.setup.measurer);
  setProgress(interleaved.progress());
  flush(true);
  RaceOutcome outcome = drive(interleaved);
  if (outcome.end == RaceOutcome::End::Finished) timeBesideLibrary(interleaved, &store);
  if (outcome.end == RaceOutcome::End::Finished || outcome.end == RaceOutcome::End::Stopped)
    outcome.message =
        joined(outcome.message,
               nothingWorkedNote(interleaved, first.setup.backend, backend,
                                 first.setup.definition ? first.setup.definition->op.flops() : 0));
  m_recorders.clear();
  m_engines = nullptr;
  return outcome;
}

QString EngineWorker::nothingWorkedNote(const InterleavedEngines& engines,
                                        const std::string& backend, const BackendOptions& options,
                                        double flops) const {
  if (m_statuses.empty()) return {};
  for (const Engine* engine : engines.engines())
    for (const RunState& run : engine->runs())
      if (run.bestConfig) return {};
  const TrialFailures failures = countFailures(m_statuses);
  std::string note =
      "None of its " + counted(failures.trials, "trial", "trials") + " worked: " + failures.text();
  if (failures.byStatus.count(TrialStatus::Timeout)) {
    if (const std::optional<double> limit = trialTimeLimit(backend, options))
      note += " (a trial is given up after " + formatNumber(*limit) +
              " s here; opevo tune --timeout sets a longer limit)";
    if (m_reference && m_reference->speed > 0 && flops > 0 && m_measurer &&
        !m_measurer->isReplay() && flopsPerSecondIn(m_measurer->speedUnit()) > 0)
      // The library's time a run: the speed of a run of 1 ms over its own (speedIn's inverse).
      note +=
          "; " + libraryRunText(m_reference->name.toStdString(),
                                speedIn(m_measurer->speedUnit(), flops, 1.0) / m_reference->speed);
  }
  return QString::fromStdString(note + ".");
}

void EngineWorker::timeBesideLibrary(const InterleavedEngines& engines, Store* store) {
  if (!m_measurer || m_measurer->isReplay() || !m_reference || m_control.stopped()) return;
  // The space whose run reached the best speed: its measurer times its kernels (a kernel of
  // another space is no configuration of its space).
  Engine* best = nullptr;
  double bestSpeed = 0;
  for (Engine* engine : engines.engines())
    for (const RunState& run : engine->runs())
      if (run.bestConfig && run.best > bestSpeed) best = engine, bestSpeed = run.best;
  if (!best) return;
  Engine& engine = *best;
  // Each algorithm's fastest kernel of the race, fastest first, as many as `opevo tune` times.
  std::map<int, const RunState*> bestOf;
  for (const RunState& run : engine.runs()) {
    if (!run.bestConfig || !(run.best > 0)) continue;
    const RunState*& best = bestOf[run.plan.algorithmIndex];
    if (!best || best->best < run.best) best = &run;
  }
  std::vector<const RunState*> picked;
  for (const auto& [algorithm, run] : bestOf) picked.push_back(run);
  std::sort(picked.begin(), picked.end(), [](auto* a, auto* b) { return a->best > b->best; });
  if (picked.size() > kSideBySideKernels) picked.resize(kSideBySideKernels);
  if (picked.empty()) return;
  std::vector<Config> candidates;
  for (const RunState* run : picked) candidates.push_back(*run->bestConfig);
  m_pending.progress.current = QObject::tr("timing side by side");
  flush(true);
  std::optional<SideBySide> side;
  try {
    // Stop ends it after the round in hand; the rounds run so far are reported.
    side = timeSideBySide(engine.measurer(), candidates, kSideBySideRounds,
                          std::chrono::milliseconds(300), m_control.cancelFlag());
  } catch (const std::exception&) {
    // A figure beside the race: a measurer failing now costs the figure, not the race.
  }
  if (!side) return;
  SideBySideFigure figure;
  figure.library = QString::fromStdString(withoutHowChosen(side->library));
  figure.bestAlgorithm = curveName(picked[side->chosen]->plan);
  figure.rounds = side->rounds;
  figure.roundsRun = side->roundsRun;
  figure.roundsAsked = kSideBySideRounds;
  figure.bestSpeed = side->bestSpeed;
  figure.referenceSpeed = side->referenceSpeed;
  m_reference->sideBySide = figure;
  m_pending.reference = m_reference;
  flush(true);
  // Kept with the run whose kernel it timed, as `opevo tune` keeps its own: History and `opevo
  // show` give the figure later, where the run's stored best alone can be a lucky timing (2x
  // the library by the trial's, 0.91x side by side on a loaded CPU).
  if (store && picked[side->chosen]->storeId > 0) {
    try {
      store->setRunSideBySide(
          picked[side->chosen]->storeId,
          sideBySideJson(*side, engine.space().format(candidates[side->chosen]), kSideBySideRounds)
              .dump());
    } catch (const std::exception&) {
      // A figure beside the race: a store that refuses it loses no trial.
    }
  }
}

QString EngineWorker::referenceOrigin() const {
  const auto timings = [](int n) {
    return n == 1 ? QObject::tr("1 timing") : QObject::tr("%1 timings").arg(n);
  };
  if (m_storedReferenceOf) {
    const QString stored =
        QObject::tr("stored with run %1").arg(static_cast<qlonglong>(m_storedReferenceOf));
    return m_referenceTimings == 0
               ? stored
               : QObject::tr("%1, faster than %2 since").arg(stored, timings(m_referenceTimings));
  }
  // The first timing is taken before the trials, the others as runs end.
  return m_referenceTimings == 1 ? QObject::tr("timed once, before the trials")
                                 : QObject::tr("fastest of %1, before the trials and as runs ended")
                                       .arg(timings(m_referenceTimings));
}

}  // namespace opevo::ui
