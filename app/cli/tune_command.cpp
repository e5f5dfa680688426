#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "backends/backend_factory.h"
#include "backends/run_context.h"
#include "backends/stored_run.h"
#include "cli/cluster_cli.h"
#include "cli/commands.h"
#include "cli/interrupt_notice.h"
#include "cli/measuring_options.h"
#include "cli/option_checks.h"
#include "cli/progress_printer.h"
#include "cluster/cluster_run.h"
#include "common/error.h"
#include "common/machine_load.h"
#include "engine/device_time.h"
#include "engine/engine.h"
#include "engine/side_by_side_json.h"
#include "engine/speed_unit.h"
#include "engine/store_recorder.h"
#include "engine/trial_failures.h"
#include "io/run_import.h"
#include "layout/conv2d_layout.h"
#include "layout/operand_layouts.h"
#include "layout/tuning_mode.h"
#include "ops/operator_json.h"
#include "ops/presets.h"
#include "space/text.h"
#include "store/history.h"
#include "store/store.h"
#include "tuners/joint_layout_tuner.h"
#include "tuners/model_based_tuner.h"
#include "tuners/registry.h"

namespace opevo::cli {
namespace {

struct TuneArgs {
  std::string op, algo = tunerRegistry().defaultTuner().name, backend, db, mode;
  std::string kernelTemplate;  // empty: as the operator says (the direct templates by default)
  std::optional<int> trials;
  std::optional<double> seconds, target;
  std::uint64_t seed = 1;
  std::vector<std::string> settings;
  std::optional<std::int64_t> resume;
  bool here = false;  // with resume: a cluster's run goes on on this machine
  bool json = false;
  bool historyOn = false, historyOff = false;  // neither: on for replay, off for devices
  bool warmStart = true;
  MeasuringArgs measuring;
  int sideBySide = 5;
  int sideBySideTop = 3;
  ClusterChoice cluster;
};

std::atomic<Engine*> g_engine{nullptr};

void onInterrupt() {
  // Only sets a flag: the engine commits the trial in hand and stops.
  if (Engine* e = g_engine.load()) e->stopFromSignal();
  cancelClusterFromSignal();
}

// Set by a second Ctrl-C, which abandons the trial in hand: its worker and compilers are killed
// and the run is stored stopped, then the program exits. What the killed trial comes back as (a
// runtime fault, a compile error) is no measurement of its configuration: the thread that would
// store it, or store the run failed, waits here for that exit instead.
std::atomic<bool> g_abandoned{false};

void waitIfAbandoned() {
  while (g_abandoned.load()) std::this_thread::sleep_for(std::chrono::seconds(1));
}

// Added before the store's recorder: an abandoned trial is never committed.
class AbandonGate : public EngineObserver {
 public:
  void trialMeasured(const TrialEvent&, const EngineProgress&) override { waitIfAbandoned(); }
};

// The second Ctrl-C's work, on the notice's thread: the trial in hand is dropped (nothing of it
// is stored), the run keeps its committed trials exactly and reads stopped (interrupted), as a
// first Ctrl-C leaves it, so that --resume goes on from there.
void abandonRun(const std::string& db, std::int64_t id) {
  g_abandoned = true;
  storeAbandonedRunsStopped(db, {id});
}

std::map<std::string, std::string> parseSettings(const std::vector<std::string>& items,
                                                 const std::string& algorithm) {
  std::map<std::string, std::string> out;
  for (const std::string& item : items) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("--set '" + item + "' is not of the form setting=value (e.g. q=0.6)");
    out[settingOf(item.substr(0, eq), algorithm)] = item.substr(eq + 1);
  }
  return out;
}

// The tensors' layouts of a joint configuration, as ALT primitive sequences.
nlohmann::json bestLayouts(const OperatorDefinition& def, const Config& best) {
  const layout::OperandLayouts l = layout::operandLayouts(def.op, def.space, best);
  const auto names = layout::operandNames(def.op);
  return {{names[0], l.a.describe()}, {names[1], l.b.describe()}, {names[2], l.c.describe()}};
}

// A finished run has spent its budget: resumed as it is, it has nothing to do. Said with the
// command that gives it more (its budget is a total: the count to give is above what it has).
void refuseFinishedRun(const Store& store, std::int64_t id, const std::string& db) {
  const std::optional<RunRecord> run = store.run(id);
  if (!run || run->status != RunStatus::Finished) return;  // resumeStoredRun says what is wrong
  for (const NetworkRecord& n : store.networks())
    if (std::find(n.taskRuns.begin(), n.taskRuns.end(), id) != n.taskRuns.end()) return;
  const std::string reason = endReasonText(run->endReason, budgetClockOf(*run));
  const auto trials = static_cast<long long>(store.trials(id).size());
  throw InputError("run " + std::to_string(id) + " already finished (" +
                   (reason.empty() ? std::string("budget spent") : reason) + "; budget " +
                   run->budgetJson + ", " + counted(trials, "trial", "trials") +
                   "). To go on, give it a larger budget, a new total: opevo tune --resume " +
                   std::to_string(id) + " --trials " + std::to_string(trials + 100) +
                   databaseHint(db) + " (or --seconds S, --target SPEED)");
}

void runTune(const TuneArgs& a) {
  BackendOptions options;
  applyMeasuringArgs(a.measuring, options);
  // Outages and lost trials are said on standard error even with --json: they are warnings.
  options.cluster = openClusterSession(a.cluster, false);
  options.clusterDevice = a.cluster.device;
  std::optional<ResumedRun> resumed;
  MeasurementSetup fresh;
  if (!a.resume) {
    if (!a.trials && !a.seconds && !a.target)
      throw InputError("give a budget: --trials N, --seconds S or --target SPEED");
    const std::string backend = a.backend.empty() ? defaultBackend() : a.backend;
    if (backend.rfind("replay:", 0) == 0 && !a.op.empty())
      throw InputError("a replay tunes its dataset's own space and operator: drop --op " + a.op);
    if (backend.rfind("replay:", 0) == 0) {
      if (!a.mode.empty())
        throw InputError("--mode needs an operator to build kernels for; a replay has its space");
      if (!a.kernelTemplate.empty())
        throw InputError(
            "--template needs an operator to build kernels for; a replay has its "
            "space");
      fresh = makeMeasurement(backend, a.op, options);
    } else {
      if (a.op.empty())
        throw InputError("--op is required (a preset such as MM1, or an operator file)");
      // Read for the --mode given: a file's space overrides are checked against that mode's
      // template, not the file's own (unroll_c, a joint-template parameter, was refused under
      // --mode joint with the loop template's list).
      OperatorDefinition def = loadOperator(
          a.op,
          a.mode.empty() ? std::nullopt : std::optional(layout::parseTuningMode(a.mode, "--mode")));
      if (a.kernelTemplate == "winograd" || a.kernelTemplate == "matvec") {
        if (def.mode != layout::TuningMode::Loop)
          throw InputError("--template " + a.kernelTemplate +
                           " tunes loops over the plain layouts: drop --mode " +
                           std::string(layout::tuningModeName(def.mode)));
        const SpaceTarget target =
            a.kernelTemplate == "winograd" ? SpaceTarget::Winograd : SpaceTarget::MatVec;
        requireTemplateFits(def.op, target, "--template " + a.kernelTemplate);
        def = withSpaceTarget(std::move(def), target);
      } else if (a.kernelTemplate == "direct") {
        // An operator file may name another template; the backend's direct space follows from
        // the common one (runDefinition).
        def = withSpaceTarget(std::move(def), SpaceTarget::Common);
      }
      fresh = makeOperatorMeasurement(backend, std::move(def), options);
    }
    requireMeasuringPrograms(fresh.backend, options);
  }
  // Opened once a new run's operator, backend, algorithm and settings are known to be good, so
  // that a refused command leaves no database behind.
  RunPlan plan;
  if (!a.resume) {
    plan.algorithm = a.algo;
    plan.settings = parseSettings(a.settings, a.algo);
    plan.seed = a.seed;
    plan.budget = {a.trials, a.seconds, a.target, std::nullopt};  // clock: the engine's
    checkRunPlan(*fresh.space, plan);
  }
  Store store(a.resume ? existingDatabase(a.db) : a.db.empty() ? Store::defaultPath() : a.db);
  if (a.resume) {
    // A budget given with --resume replaces the run's (a total, checked against what it spent).
    std::optional<Budget> newBudget;
    if (a.trials || a.seconds || a.target)
      newBudget = Budget{a.trials, a.seconds, a.target, std::nullopt};
    if (!newBudget) refuseFinishedRun(store, *a.resume, a.db);
    // A cluster's run resumed without --cluster was measured on with this machine's device, its
    // label still saying the cluster's.
    if (const auto stored = store.run(*a.resume)) {
      if (const auto problem =
              cluster::clusterResumeProblem(*stored, options.cluster != nullptr, a.here))
        throw InputError(*problem);
      // Before resumeStoredRun marks it running and stores a new budget: a missing worker left a
      // finished run "running" with its budget changed (the review).
      requireMeasuringPrograms(stored->backend, options);
    }
    resumed = resumeStoredRun(store, *a.resume, options, ResumeAs::Run, newBudget);
  }
  MeasurementSetup& setup = resumed ? resumed->setup : fresh;
  RunContext context = runContextOf(setup);

  // Earlier runs of the same operator on the same backend and device.
  RunRecord like;
  like.operatorJson = context.operatorJson;
  like.backend = context.backend;
  like.device = context.device;
  like.label = context.label;
  HistoryOptions historyOptions;
  historyOptions.timeLimitSeconds = trialTimeLimit(setup.backend, options);
  const std::int64_t excluded = resumed ? resumed->run.id : 0;
  const bool reuse = a.historyOn || (!a.historyOff && setup.measurer->isReplay());
  std::unique_ptr<HistoryMeasurer> reusing;
  if (reuse)
    reusing = std::make_unique<HistoryMeasurer>(*setup.measurer, *setup.space,
                                                loadHistory(store, like, excluded, historyOptions));
  Measurer& measurer = reuse ? static_cast<Measurer&>(*reusing) : *setup.measurer;
  // Said before the first trial: a replay reuses by default, and a run whose first trial is
  // already near the optimum read as the algorithm's doing.
  if (reusing && !reusing->history().byConfig.empty() && !a.json)
    std::fprintf(stderr,
                 "history: %s measured by earlier runs in this database will be answered from "
                 "the store, not measured (--no-history measures every one)\n",
                 counted(static_cast<long long>(reusing->history().byConfig.size()),
                         "configuration", "configurations")
                     .c_str());
  // Failures the environment caused are not the configuration's: measured again, and said so, or
  // a user who counted the earlier trials wonders why some were not reused.
  if (reusing && reusing->history().environmental > 0 && !a.json)
    std::fprintf(stderr,
                 "history: %s of earlier runs set aside (a timeout under a shorter limit, a worker "
                 "killed, an agent lost: the environment's, not the configuration's); their "
                 "configurations are measured again\n",
                 counted(static_cast<long long>(reusing->history().environmental), "failed trial",
                         "failed trials")
                     .c_str());

  EngineOptions engineOptions;
  if (resumed) {
    engineOptions.firstOrder = resumed->nextOrder;
    // A replay the window paced goes on at its race's pace: its time budget, and the tuning
    // time each trial stores, mean what they meant for its first trials.
    engineOptions.paceMs = resumed->paceMs;
  }
  Engine engine(*setup.space, measurer, engineOptions);
  StoreRecorder recorder(store, engine, context);
  const int index = resumed ? addResumedRun(engine, *resumed) : engine.addRun(std::move(plan));
  // The run's history excludes itself; only runs before it warm the cost model. Made before a
  // new run is stored: what fails here leaves no run behind.
  std::size_t warmStartTrials = 0;
  if (auto* model = dynamic_cast<ModelBasedTuner*>(&engine.tuner(index)); model && a.warmStart) {
    // The whole history when trials are reused from it, else only the newest runs it needs.
    History recent;
    if (!reusing) {
      HistoryOptions latest = historyOptions;
      latest.latestConfigs = kWarmStartLimit;
      recent = loadHistory(store, like, excluded, latest);
    }
    const History& history = reusing ? reusing->history() : recent;
    const WarmStart warm =
        warmStartFrom(history, *setup.space, a.db.empty() ? Store::defaultPath() : a.db);
    // Warnings, said even with --json: the trials they name are left out, and the run goes on.
    for (const std::string& line : warm.unreadable)
      std::fprintf(stderr, "warning: %s\n", line.c_str());
    const std::vector<Observation>& prior = warm.observations;
    if (!prior.empty()) {
      model->addPriorObservations(prior);
      warmStartTrials = prior.size();
      // Said with what was left out: each configuration's latest measurement, and at most
      // kWarmStartLimit of them, so that its cost does not grow with the database.
      if (!a.json)
        std::fprintf(stderr,
                     "warm start: the cost model also learns from %zu earlier trials (each "
                     "configuration's latest, at most the %zu most recent)\n",
                     prior.size(), kWarmStartLimit);
    }
  }
  const std::string unit = setup.measurer->speedUnit();
  const bool terminal = isatty(STDERR_FILENO);
  ProgressPrinter printer(unit, ProgressPrinter::Lines::PerTrial, terminal);
  AbandonGate abandonGate;
  engine.addObserver(abandonGate);  // before the recorder: an abandoned trial is not committed
  if (!resumed) recorder.createRuns();
  const RunState& run = engine.runs()[static_cast<std::size_t>(index)];
  // With what the store does not keep and would change how the rest is timed or closed.
  const TuneArgs defaults;
  const std::string resume =
      "opevo tune --resume " + std::to_string(run.storeId) + databaseHint(a.db) +
      clusterHint(a.cluster) + measuringArgsText(a.measuring) +
      (a.sideBySide != defaults.sideBySide ? " --side-by-side " + std::to_string(a.sideBySide)
                                           : "") +
      (a.sideBySideTop != defaults.sideBySideTop
           ? " --side-by-side-top " + std::to_string(a.sideBySideTop)
           : "") +
      (a.warmStart ? "" : " --no-warm-start") + (a.historyOn ? " --history" : "") +
      (a.historyOff ? " --no-history" : "");
  // Ctrl-C during the side-by-side timing ends it after the round in hand (declared before the
  // notice, whose handler holds it).
  std::atomic<bool> stopSideBySide{false};
  // Ctrl-C (SIGTERM, SIGHUP) stops the run after the trial in hand, which may take a while (a
  // batch of builds, a slow kernel): said at once, with how to abandon it instead.
  g_engine = &engine;
  std::optional<InterruptNotice> notice(std::in_place, "run " + std::to_string(run.storeId));
  notice->rearm(
      "run " + std::to_string(run.storeId) + " is stored " +
          std::string(runStatusName(statusAfter(EndReason::Stopped))) +
          " with the trials it committed; the trial in hand was abandoned; resume with " + resume,
      onInterrupt,
      firstStopText(a.cluster, "stopping after the trial in hand (Ctrl-C again to abandon it)"),
      [db = store.path(), id = run.storeId] { abandonRun(db, id); });
  // From here the run is stored: what stops the command before the engine ends the run (the
  // engine ends its own errors) stores it failed, not "running" as if its program were killed.
  try {
    engine.addObserver(recorder);  // after the gate: a trial is committed before anyone hears
    if (!a.json) {
      engine.addObserver(printer);
      std::fprintf(stderr, "run %lld: %s on %s, %s%s\n", static_cast<long long>(run.storeId),
                   run.plan.algorithm.c_str(), context.operatorName.c_str(), context.label.c_str(),
                   run.restored ? (", resuming after " +
                                   counted(run.restored, "stored trial", "stored trials"))
                                      .c_str()
                                : "");
      if (const std::string note =
              setup.backend == "cpu" && setup.definition
                  ? layout::depthwiseLoopNote(*setup.definition, "--mode joint")
                  : std::string();
          !note.empty())
        std::fprintf(stderr, "note: %s\n", note.c_str());
      if (const std::string busy = setup.backend == "cpu" ? busyMachineNote() : std::string();
          !busy.empty())
        std::fprintf(stderr,
                     "note: %s; the side-by-side timing after the run compares in one window\n",
                     busy.c_str());
    }
    engine.run();
  } catch (...) {
    g_engine = nullptr;
    waitIfAbandoned();
    if (run.end == EndReason::None) {
      std::string failure;  // kept with the run: opevo show says why it failed
      try {
        throw;
      } catch (const std::exception& e) {
        failure = e.what();
      } catch (...) {
      }
      try {
        store.setRunStatus(run.storeId, RunStatus::Failed, EndReason::Failed, failure);
      } catch (const std::exception&) {
        // The store failed too: the run reads as its program's end, and resumes all the same.
      }
    }
    throw;
  }
  g_engine = nullptr;
  waitIfAbandoned();
  printer.finish();

  // "device time" for a replay whose time budget ended it (its budget counts the file's device
  // time); JSON keeps the stored name.
  const std::string ended = endReasonText(run.end, run.clock);
  const bool closed = statusAfter(run.end) == RunStatus::Finished;
  // A run the store failed counted the trial whose commit failed: the trials kept are what a
  // resume finds, so those are reported.
  // Its best likewise: the trial whose commit failed (a full disk) may have been the fastest.
  int kept = run.trials;
  double best = run.best;
  std::optional<std::string> bestConfig;
  if (run.bestConfig) bestConfig = setup.space->format(*run.bestConfig);
  if (run.end == EndReason::Failed) {
    try {
      const std::vector<TrialRow> rows = store.trials(run.storeId);
      kept = static_cast<int>(rows.size());
      best = 0;
      bestConfig.reset();
      for (const TrialRow& t : rows)
        if (t.status == TrialStatus::Ok && t.speed > best) {
          best = t.speed;
          bestConfig = t.config;
        }
    } catch (const std::exception&) {
      // Unreadable too: the engine's count is all there is.
    }
  }
  // The reference timing cannot stop midway; the run is stored as it ended.
  const std::string stored = "run " + std::to_string(run.storeId) + " is stored " +
                             std::string(runStatusName(statusAfter(run.end))) +
                             " with its trials; ";
  notice->rearm(stored + "the reference timing was cut (opevo show " + std::to_string(run.storeId) +
                databaseHint(a.db) + " lists the run)");
  // A run the user stopped, or an error ended, is left as it is: its resume times the library.
  std::optional<Measurer::Reference> reference;
  if (closed) {
    reference = setup.measurer->reference();
    if (reference && reference->measurement.status == TrialStatus::Ok) {
      try {
        recorder.setReference(reference->library, reference->measurement.speed);
      } catch (const std::exception&) {
        // The reference is a figure beside the run; a store that refuses it loses no trial.
      }
    }
  }
  // A finished run with no working configuration produced nothing usable: why its trials failed,
  // counted, and a status that says so (it exited 0 with "no configuration succeeded").
  std::optional<TrialFailures> failures;
  if (closed && !bestConfig) {
    // Read as stored; a store that cannot be read says so (an empty list would read "measured no
    // trial").
    std::vector<TrialStatus> statuses;
    for (const TrialRow& t : store.trials(run.storeId)) statuses.push_back(t.status);
    failures = countFailures(statuses);
  }
  // Trials of this command answered from the store, not measured (--history).
  const int reused = reusing ? reusing->reused() : 0;
  nlohmann::json out{{"run", run.storeId},
                     {"algorithm", run.plan.algorithm},
                     {"operator", context.operatorName},
                     {"backend", context.backend},
                     {"mode", setup.definition ? layout::tuningModeName(setup.definition->mode)
                                               : std::string_view("replay")},
                     {"device", context.device},
                     {"trials", kept},
                     {"ended", std::string(endReasonName(run.end))},
                     {"status", std::string(runStatusName(statusAfter(run.end)))},
                     {"speed_unit", unit},
                     {"replay", setup.measurer->isReplay()},
                     {"best_speed", best},
                     {"tuning_seconds", run.seconds},
                     {"budget_clock", std::string(budgetClockToken(run.clock))},
                     {"reused_from_history", reused}};
  // Earlier failed trials the reuse set aside as the environment's (measured again if proposed).
  if (reusing) out["history_set_aside"] = reusing->history().environmental;
  // What its trials cost the device by the file, restored ones included: what its time budget
  // counts.
  if (run.clock == BudgetClock::Device) out["device_seconds"] = run.deviceSeconds;
  if (bestConfig) out["best_config"] = *bestConfig;
  // Earlier trials its cost model learnt from (0: none, or --no-warm-start): a run with a warm
  // start depends on the database as well as on its seed.
  out["warm_start_trials"] = warmStartTrials;
  if (const auto* joint = dynamic_cast<const JointLayoutTuner*>(&engine.tuner(index))) {
    out["stage_boundary_trial"] =
        joint->stageBoundary() ? nlohmann::json(*joint->stageBoundary()) : nlohmann::json(nullptr);
    out["layouts_tried"] = joint->layoutsTried();
    // Of the best kept (a failed run's engine may hold one whose commit failed).
    const std::optional<Config> kept =
        bestConfig ? std::optional<Config>(setup.space->parse(*bestConfig)) : std::nullopt;
    if (kept) out["best_layouts"] = bestLayouts(*setup.definition, *kept);
    // Whether the search moved off the template's start blocking, where every fresh run begins
    // (a blocked layout wherever the shapes allow one, so not the operator's plain layouts).
    if (const auto& start = setup.space->startPoint(); start && kept)
      out["best_layout_is_start"] = joint->layoutOf(*start) == joint->layoutOf(*kept);
  }
  if (reference) {
    out["reference_library"] = reference->library;
    out["reference_speed"] = reference->measurement.speed;
  }
  std::optional<SideBySide> sideBySide;
  std::vector<Config> candidates;
  if (reference && reference->measurement.status == TrialStatus::Ok && run.bestConfig &&
      !setup.measurer->isReplay() && a.sideBySide > 0) {
    // The run's best configurations, fastest first, distinct and successful (the run's best
    // first, also for a resumed run).
    candidates.push_back(*run.bestConfig);
    const Tuner& tuner = engine.tuner(index);
    for (std::size_t i : tuner.ranking()) {
      if (static_cast<int>(candidates.size()) >= a.sideBySideTop) break;
      const Observation& o = tuner.history()[i];
      if (o.fitness > 0 &&
          std::find(candidates.begin(), candidates.end(), o.config) == candidates.end())
        candidates.push_back(o.config);
    }
    notice->rearm(stored + "the side-by-side timing was cut", &stopSideBySide,
                  "ending the side-by-side timing after the round in hand");
    if (!a.json)
      std::fprintf(stderr, "timing %s and %s side by side, %s...\n",
                   candidates.size() == 1
                       ? "the run's best"
                       : (std::to_string(candidates.size()) + " of the run's best").c_str(),
                   reference->library.c_str(), counted(a.sideBySide, "round", "rounds").c_str());
    sideBySide = timeSideBySide(*setup.measurer, candidates, a.sideBySide,
                                std::chrono::milliseconds(300), &stopSideBySide);
  }
  if (sideBySide)
    out["side_by_side"] = sideBySideJson(
        *sideBySide, setup.space->format(candidates[sideBySide->chosen]), a.sideBySide);
  // The run's best timed again beside the library: far from what the run stored, the machine's
  // load changed between the two (another program's build, say), and the run's figures say more
  // about that than about the kernels.
  const double drift =
      sideBySide && best > 0 && !sideBySide->speeds.empty() && sideBySide->speeds.front() > 0
          ? sideBySide->speeds.front() / best
          : 1.0;
  const bool drifted = drift > 3 || drift < 1.0 / 3;
  if (sideBySide) {
    out["side_by_side"]["best_again_over_run_best"] = drift;
    // Kept with the run: show prints it, and export takes the configuration fastest here.
    try {
      store.setRunSideBySide(run.storeId, out["side_by_side"].dump());
    } catch (const std::exception& e) {
      // A figure beside the run; a store that refuses it loses no trial.
      std::fprintf(stderr, "the side-by-side timing was not stored: %s\n", e.what());
    }
  }
  notice.reset();
  if (!engine.failure().empty()) out["error"] = engine.failure();
  std::string nothingUsable;
  if (failures) {
    nlohmann::json counts = nlohmann::json::object();
    for (const auto& [status, count] : failures->byStatus) counts[statusName(status)] = count;
    out["failed_trials"] = counts;
    nothingUsable = failures->trials == 0 ? "run " + std::to_string(run.storeId) +
                                                " measured no trial (" + ended + ")"
                                          : "all " + counted(failures->trials, "trial", "trials") +
                                                " failed: " + failures->text();
    if (failures->byStatus.count(TrialStatus::Timeout)) {
      const std::optional<double> limit = trialTimeLimit(setup.backend, options);
      nothingUsable += a.measuring.timeout
                           ? " (--timeout " + formatNumber(*a.measuring.timeout) + " s)"
                       : limit ? " (the backend's trial timeout of " + formatNumber(*limit) +
                                     " s; --timeout sets it)"
                               : " (the backend's trial timeout; --timeout sets it)";
      // How long a run of this operator takes here, which the failures cannot tell: C2 on a
      // 2-core CPU, whose library takes 2.45 s a run and whose loop kernels 30 s to 252 s,
      // timed out at every limit under that.
      if (reference && reference->measurement.status == TrialStatus::Ok &&
          reference->measurement.medianMs > 0)
        nothingUsable += "; " + libraryRunText(reference->library, reference->measurement.medianMs);
    }
    out["error"] = nothingUsable;
  }
  if (options.cluster) out["cluster"] = clusterJson(*options.cluster);
  if (a.json) {
    std::cout << out.dump(2) << "\n";
  } else {
    std::printf("run %lld %s after %s (%s)\n", static_cast<long long>(run.storeId),
                std::string(runStatusName(statusAfter(run.end))).c_str(),
                counted(kept, "trial", "trials").c_str(), ended.c_str());
    if (run.clock == BudgetClock::Device)
      std::printf(
          "device time: %s by the file (what its trials cost the device that measured "
          "it; a replay's time budget counts this)\n",
          deviceTimeText(run.deviceSeconds).c_str());
    if (reused > 0)
      std::printf(
          "answered from the store: %d of its trials (configurations earlier runs "
          "measured; --no-history measures every one)\n",
          reused);
    if (bestConfig)
      std::printf("best: %s %s  %s\n", speedNumber(best).c_str(), unit.c_str(),
                  bestConfig->c_str());
    else
      std::printf("best: no configuration succeeded%s\n",
                  nothingUsable.empty() ? "" : ("; " + nothingUsable).c_str());
    if (reference)
      std::printf("reference (%s): %s %s\n", reference->library.c_str(),
                  speedNumber(reference->measurement.speed).c_str(), unit.c_str());
    if (sideBySide) {
      std::printf("%s", sideBySideText(out["side_by_side"], unit).c_str());
      if (drifted)
        std::printf(
            "  note: the run's best timed %.3g times %s side by side than during the run: the "
            "machine's load changed while it ran, so the run's own figures (and its choice of "
            "best) are unreliable; the side-by-side ratio was taken in one window\n",
            drift > 1 ? drift : 1 / drift, drift > 1 ? "faster" : "slower");
    }
  }
  // Every committed trial is kept and the run can be resumed; the exit status says it did not
  // finish (a script tells an interrupted run from a finished one, as with `net tune`): the
  // signal's (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP) when one stopped it, else 1.
  if (!engine.failure().empty())
    throw RunFailed(engine.failure() + "; every trial committed before it is kept: resume with " +
                    resume);
  if (!nothingUsable.empty())
    throw RunFailed("run " + std::to_string(run.storeId) +
                    " is stored finished, with no working configuration: " + nothingUsable);
  if (run.end == EndReason::Stopped)
    throw Interrupted("run " + std::to_string(run.storeId) + " is stored " +
                      std::string(runStatusName(statusAfter(run.end))) + " after " +
                      counted(kept, "trial", "trials") + "; resume with " + resume);
  if (!closed)
    throw RunFailed("run " + std::to_string(run.storeId) + " was interrupted after " +
                    counted(kept, "trial", "trials") + "; resume with " + resume);
  if (stopSideBySide.load())
    throw Interrupted(
        stored + "the side-by-side timing was stopped" +
        (sideBySide ? " (the rounds it ran are reported above)" : " before it had a result"));
}

}  // namespace

void addTuneCommand(CLI::App& app) {
  auto a = std::make_shared<TuneArgs>();
  auto* cmd =
      app.add_subcommand("tune", "Tune an operator: measured trials, stored as they arrive");
  CLI::Option* op = cmd->add_option("--op", a->op, "Preset (MM1, C2, ...) or operator file (JSON)");
  CLI::Option* algo = cmd->add_option("--algo", a->algo,
                                      "Algorithm (default " + a->algo +
                                          "; opevo, autotvm, ansor, random, ...: see "
                                          "opevo tuners)");
  CLI::Option* mode = cmd->add_option(
      "--mode", a->mode,
      "loop: tune the template's loops over plain layouts (default); joint: tune the "
      "tensors' layouts and the loops together (ALT; Conv2D, MatMul and "
      "BatchMatMul)");
  CLI::Option* kernelTemplate =
      cmd->add_option(
             "--template", a->kernelTemplate,
             "direct: the TVM-style templates (the default, unless an operator file "
             "names another); winograd: Winograd's F(m x m, r x r) (e.g. F(4x4, 5x5)) for "
             "stride-1 Conv2Ds; matvec: the matrix-vector template for products with at most "
             "16 rows of A and B stored m x k (dense layers at small batches); both on cpu, "
             "cuda and hip")
          ->check(CLI::IsMember({"direct", "winograd", "matvec"}));
  CLI::Option* backend = cmd->add_option("--backend", a->backend,
                                         "cpu, cuda, hip or replay:FILE (default: the best found)");
  cmd->add_option("--trials", a->trials, "Budget in trials (with --resume: the run's new total)")
      ->check(wholeIn(1, 1000000000));
  cmd->add_option(
         "--seconds", a->seconds,
         "Budget in tuning time (pauses excluded): checked after each trial, so the trial in "
         "hand finishes (at most --timeout); the reference and side-by-side timings follow. On "
         "a replay, in device time by the file instead: what its trials cost the device that "
         "measured it, the same on every machine")
      ->check(positiveFinite());
  cmd->add_option("--target", a->target, "Stop on reaching this speed")->check(positiveFinite());
  CLI::Option* seed = cmd->add_option("--seed", a->seed, "Seed (default 1)");
  CLI::Option* set = cmd->add_option(
      "--set", a->settings,
      "A setting of the algorithm, name=value or algorithm.name=value (repeatable)");
  // A resumed run goes on as it was stored: what would change it is refused, not ignored.
  CLI::Option* resume =
      cmd->add_option("--resume", a->resume,
                      "Continue an interrupted run to its budget, with its operator, algorithm, "
                      "settings, seed and backend; with --trials, --seconds or --target, to that "
                      "new budget instead (the run's total, above what it has spent), which also "
                      "lets a finished run go on")
          ->excludes(op)
          ->excludes(algo)
          ->excludes(mode)
          ->excludes(kernelTemplate)
          ->excludes(backend)
          ->excludes(seed)
          ->excludes(set);
  cmd->add_flag("--here", a->here,
                "With --resume: measure the rest of a run that was measured on a cluster on this "
                "machine instead")
      ->needs(resume);
  cmd->add_option("--db", a->db, "Database file (default: " + Store::defaultPath() + ")");
  addMeasuringOptions(cmd, a->measuring);
  cmd->add_option("--side-by-side", a->sideBySide,
                  "After the run, time the best kernel and the reference library in turns, this "
                  "many rounds each, for a ratio from one window of the machine (default 5; 0: "
                  "off; devices only)")
      ->check(atLeast(0));
  cmd->add_option("--side-by-side-top", a->sideBySideTop,
                  "How many of the run's best configurations take turns with the library; the "
                  "fastest by median is reported (default 3: the run's best was its luckiest "
                  "timing, and the next may be faster)")
      ->check(wholeIn(1, 1000));
  addClusterOptions(cmd, a->cluster);
  cmd->add_flag("--json", a->json, "Print one JSON object at the end, no progress");
  cmd->add_flag("--history", a->historyOn,
                "Answer configurations measured before (same operator, backend, device) from the "
                "store (the default for replay; devices measure afresh unless this is given). A "
                "replay's results therefore depend on the database: to compare algorithms, give "
                "--no-history --no-warm-start, or a fresh --db");
  cmd->add_flag("--no-history", a->historyOff, "Measure every configuration, even known ones")
      ->excludes("--history");
  cmd->add_flag("!--no-warm-start", a->warmStart,
                "Do not train the cost model (opevo-m, autotvm, ansor) on the earlier runs of this "
                "operator, backend and device: a run then depends on its seed alone, whatever the "
                "database holds (with --no-history for a replay, which also reuses them)");
  cmd->callback([a] { runTune(*a); });
}

}  // namespace opevo::cli
