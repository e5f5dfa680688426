#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "backends/backend_factory.h"
#include "backends/stored_run.h"
#include "cli/commands.h"
#include "common/error.h"
#include "engine/tuning_session.h"
#include "store/history.h"
#include "store/store.h"
#include "tuners/model_based_tuner.h"
#include "tuners/registry.h"

namespace opevo::cli {
namespace {

struct TuneArgs {
  std::string op, algo = "opevo", backend, db;
  std::optional<int> trials;
  std::optional<double> seconds, target;
  std::uint64_t seed = 1;
  std::vector<std::string> settings;
  std::optional<std::int64_t> resume;
  bool json = false;
  bool historyOn = false, historyOff = false;  // neither: on for replay, off for devices
  bool warmStart = true;
  int compileThreads = 2;
  double timeout = 10, minTimeMs = 100;
};

std::atomic<TuningSession*> g_session{nullptr};

void onInterrupt(int) {
  // Only sets a flag: the session finishes the trial in hand, commits it and stops.
  if (TuningSession* s = g_session.load()) s->stop();
}

std::map<std::string, std::string> parseSettings(const std::vector<std::string>& items) {
  std::map<std::string, std::string> out;
  for (const std::string& item : items) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("--set '" + item + "' is not of the form setting=value (e.g. q=0.6)");
    out[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return out;
}

nlohmann::json settingsJson(const Tuner& tuner) {
  nlohmann::json j = nlohmann::json::object();
  for (const SettingInfo& s : tuner.settings().all()) j[s.name] = s.value;
  return j;
}

void runTune(const TuneArgs& a) {
  BackendOptions options;
  options.cpu.compileThreads = a.compileThreads;
  options.cpu.timeoutSeconds = a.timeout;
  options.cpu.timing.minTotalMs = a.minTimeMs;
  Store store(a.db.empty() ? Store::defaultPath() : a.db);

  RunRecord run;
  MeasurementSetup setup;
  std::unique_ptr<Tuner> tuner;
  std::vector<std::pair<Config, Measurement>> restored;
  Budget budget;
  if (a.resume) {
    ResumedRun resumed = resumeStoredRun(store, *a.resume, options);
    run = resumed.run;
    setup = std::move(resumed.setup);
    tuner = std::move(resumed.tuner);
    budget = resumed.budget;
    restored = std::move(resumed.restored);
  } else {
    if (!a.trials && !a.seconds && !a.target)
      throw InputError("give a budget: --trials N, --seconds S or --target SPEED");
    setup = makeMeasurement(a.backend.empty() ? defaultBackend() : a.backend, a.op, options);
    tuner = makeTuner(a.algo, *setup.space, a.seed, parseSettings(a.settings));
    budget = {a.trials, a.seconds, a.target};
    run.operatorName = setup.operatorName;
    run.operatorJson = setup.operatorJson;
    run.algorithm = a.algo;
    run.settingsJson = settingsJson(*tuner).dump();
    run.seed = a.seed;
    run.backend = setup.backend;
    run.device = setup.measurer->device();
    run.budgetJson = budget.toJson();
    run.speedUnit = setup.measurer->speedUnit();
  }
  if (!a.resume) run.id = store.createRun(run);
  // Earlier runs of the same operator on the same backend and device.
  const History history = loadHistory(store, run, run.id);
  if (auto* model = dynamic_cast<ModelBasedTuner*>(tuner.get()); model && a.warmStart && !history.inOrder.empty()) {
    std::vector<Observation> prior;
    for (const auto& [text, m] : history.inOrder)
      prior.push_back({setup.space->parse(text), m.status == TrialStatus::Ok ? m.speed : 0.0});
    model->addPriorObservations(prior);
    if (!a.json) std::fprintf(stderr, "warm start: the cost model also learns from %zu earlier trials\n", prior.size());
  }
  const bool reuse = a.historyOn || (!a.historyOff && setup.measurer->isReplay());
  std::unique_ptr<HistoryMeasurer> reusing;
  if (reuse) reusing = std::make_unique<HistoryMeasurer>(*setup.measurer, *setup.space, history);
  Measurer& measurer = reuse ? static_cast<Measurer&>(*reusing) : *setup.measurer;
  TuningSession session(*setup.space, std::move(tuner), measurer, budget, &store, run.id);
  session.restore(restored);
  const bool tty = isatty(STDERR_FILENO);
  const std::string unit = setup.measurer->speedUnit();
  if (!a.json)
    std::fprintf(stderr, "run %lld: %s on %s, %s%s\n", static_cast<long long>(run.id),
                 run.algorithm.c_str(), run.operatorName.c_str(), setup.measurer->label().c_str(),
                 restored.empty() ? "" : (", resuming after " + std::to_string(restored.size()) + " stored trials").c_str());
  session.onTrial([&](const TrialEvent& e) {
    if (a.json) return;
    const std::string total = budget.trials ? std::to_string(*budget.trials) : "?";
    char eta[32] = "";
    if (e.etaSeconds >= 0) std::snprintf(eta, sizeof eta, "  ETA %.0fs", e.etaSeconds);
    std::fprintf(stderr, "%strial %d/%s  %-13s %10.4g  best %.4g %s%s%s", tty ? "\r\033[K" : "", e.seq,
                 total.c_str(), std::string(statusName(e.measurement.status)).c_str(),
                 e.measurement.speed, e.best, unit.c_str(), eta, tty ? "" : "\n");
  });
  g_session = &session;
  std::signal(SIGINT, onInterrupt);
  std::signal(SIGTERM, onInterrupt);
  const std::string reason = session.run();
  g_session = nullptr;
  if (tty && !a.json) std::fprintf(stderr, "\n");
  store.setRunStatus(run.id, reason == "stopped" ? "interrupted" : "finished", reason != "stopped");

  const auto reference = setup.measurer->reference();
  nlohmann::json out{{"run", run.id},
                     {"algorithm", run.algorithm},
                     {"operator", run.operatorName},
                     {"backend", run.backend},
                     {"device", setup.measurer->device()},
                     {"trials", session.trialsDone()},
                     {"ended", reason},
                     {"speed_unit", unit},
                     {"replay", setup.measurer->isReplay()},
                     {"best_speed", session.best()},
                     {"reused_from_history", reusing ? reusing->reused() : 0}};
  if (session.bestConfig()) out["best_config"] = setup.space->format(*session.bestConfig());
  if (reference) {
    out["reference_library"] = reference->library;
    out["reference_speed"] = reference->measurement.speed;
  }
  if (a.json) {
    std::cout << out.dump(2) << "\n";
    return;
  }
  std::printf("run %lld %s after %d trials (%s)\n", static_cast<long long>(run.id),
              reason == "stopped" ? "interrupted" : "finished", session.trialsDone(), reason.c_str());
  if (session.bestConfig())
    std::printf("best: %.4g %s  %s\n", session.best(), unit.c_str(),
                setup.space->format(*session.bestConfig()).c_str());
  else
    std::printf("best: no configuration succeeded\n");
  if (reference)
    std::printf("reference (%s): %.4g %s\n", reference->library.c_str(), reference->measurement.speed,
                unit.c_str());
  if (reason == "stopped")
    std::printf("resume with: opevo tune --resume %lld\n", static_cast<long long>(run.id));
}

}  // namespace

void addTuneCommand(CLI::App& app) {
  auto a = std::make_shared<TuneArgs>();
  auto* cmd = app.add_subcommand("tune", "Tune an operator: measured trials, stored as they arrive");
  cmd->add_option("--op", a->op, "Preset (MM1, C2, ...) or operator file (JSON)");
  cmd->add_option("--algo", a->algo, "Algorithm (opevo, autotvm, ansor, random, ...; see opevo tuners)");
  cmd->add_option("--backend", a->backend, "cpu, cuda, hip or replay:FILE (default: the best found)");
  cmd->add_option("--trials", a->trials, "Budget in trials");
  cmd->add_option("--seconds", a->seconds, "Budget in wall-clock seconds");
  cmd->add_option("--target", a->target, "Stop on reaching this speed");
  cmd->add_option("--seed", a->seed, "Seed (default 1)");
  cmd->add_option("--set", a->settings, "A setting of the algorithm, name=value (repeatable)");
  cmd->add_option("--resume", a->resume, "Continue an interrupted run to its original budget");
  cmd->add_option("--db", a->db, "Database file (default: " + Store::defaultPath() + ")");
  cmd->add_option("--compile-threads", a->compileThreads, "Parallel kernel builds (default 2)");
  cmd->add_option("--timeout", a->timeout, "Seconds a trial may run before it is killed (default 10)");
  cmd->add_option("--min-time-ms", a->minTimeMs, "Time each kernel at least this long (default 100)");
  cmd->add_flag("--json", a->json, "Print one JSON object at the end, no progress");
  cmd->add_flag("--history", a->historyOn,
                "Answer configurations measured before (same operator, backend, device) from the "
                "store (the default for replay; devices measure afresh unless this is given)");
  cmd->add_flag("--no-history", a->historyOff, "Measure every configuration, even known ones");
  cmd->add_flag("!--no-warm-start", a->warmStart,
                "Do not train autotvm/ansor's cost model on earlier runs of this operator and device");
  cmd->callback([a] { runTune(*a); });
}

}  // namespace opevo::cli
