#include "backends/stored_run.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "common/error.h"
#include "engine/budget.h"
#include "engine/device_time.h"
#include "io/run_import.h"
#include "store/history.h"
#include "store/run_lock.h"
#include "store/store.h"
#include "store/stored_config.h"

namespace opevo {

std::string withReplayPace(const std::string& operatorJson, int paceMs) {
  if (paceMs <= 0) return operatorJson;
  nlohmann::json j = nlohmann::json::parse(operatorJson, nullptr, false);
  if (!j.is_object()) return operatorJson;
  j["pace_ms"] = paceMs;
  return j.dump();
}

int replayPaceOf(const std::string& operatorJson) {
  const nlohmann::json j = nlohmann::json::parse(operatorJson, nullptr, false);
  if (!j.is_object() || !j.contains("pace_ms") || !j["pace_ms"].is_number_integer()) return 0;
  return std::max(0, j["pace_ms"].get<int>());
}

namespace {

// The stored run, checked: it exists and may go on this way.
RunRecord resumableRun(Store& store, std::int64_t runId, ResumeAs as, bool newBudget = false) {
  const auto stored = store.run(runId);
  if (!stored) throw InputError(store.missingRunText(runId));
  if (as == ResumeAs::Run)
    for (const NetworkRecord& n : store.networks())
      if (std::find(n.taskRuns.begin(), n.taskRuns.end(), runId) != n.taskRuns.end())
        throw InputError("run " + std::to_string(runId) + " is a task of network run " +
                         std::to_string(n.id) + " (" + n.name +
                         "): it goes on with its network, whose scheduler gives its tasks their "
                         "trials (opevo net tune --resume " +
                         std::to_string(n.id) + ", or Resume on the Networks page)");
  if (stored->status == RunStatus::Finished && as == ResumeAs::Run && !newBudget)
    throw InputError("run " + std::to_string(runId) + " already finished (" +
                     std::string(endReasonName(stored->endReason).empty()
                                     ? "budget spent"
                                     : endReasonName(stored->endReason)) +
                     "); nothing to resume");
  return *stored;
}

// At most 60 characters of a stored text, for a message.
std::string shortText(const std::string& text) {
  return text.size() > 60 ? text.substr(0, 60) + "..." : text;
}

// Everything but the measurement (r.setup, already made) and the lock: its plan and its trials.
void readBack(Store& store, ResumedRun& r) {
  r.plan.algorithm = r.run.algorithm;
  // Named, not a temporary: items() refers into it.
  const std::string run = "run " + std::to_string(r.run.id) + " of " + store.path();
  const nlohmann::json storedSettings = nlohmann::json::parse(r.run.settingsJson, nullptr, false);
  // A damaged column resumed the run with the algorithm's defaults, not its own settings.
  if (!storedSettings.is_object() && !r.run.settingsJson.empty())
    throw InputError(run + ": its stored settings are not a JSON object (" +
                     shortText(r.run.settingsJson) +
                     "): it cannot go on as it was tuned (is the database damaged?)");
  if (storedSettings.is_object())
    for (const auto& [k, v] : storedSettings.items())
      r.plan.settings[k] = v.is_string() ? v.get<std::string>() : v.dump();
  r.plan.seed = r.run.seed;
  r.plan.budget = Budget::fromJson(r.run.budgetJson);
  r.plan.algorithmIndex = r.run.raceAlgorithm;
  r.plan.repeat = r.run.raceRepeat;
  r.rows = store.trials(r.run.id);
  for (const TrialRow& t : r.rows) {
    r.restored.emplace_back(storedConfig(*r.setup.space, t, run), measurementOf(t));
    r.secondsBefore = std::max(r.secondsBefore, t.seconds);
  }
  r.nextOrder = store.lastOrder(r.run) + 1;
  r.paceMs = replayPaceOf(r.run.operatorJson);
}

// A new budget is the run's total: one it has already spent would end it before a trial. Refused
// in the words of who gives it: the command's options, or the window's total.
void checkNewBudget(const ResumedRun& r, const Budget& budget, BudgetAskedBy askedBy) {
  budget.check();
  const auto shortly = [](double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.4g", v);
    return std::string(text);
  };
  const bool cli = askedBy == BudgetAskedBy::CommandLine;
  const std::string run = "run " + std::to_string(r.run.id);
  const auto trials = static_cast<long long>(r.rows.size());
  if (budget.trials && *budget.trials <= trials)
    throw InputError(
        run + " has " + std::to_string(trials) + " trials already: " +
        (cli ? "--trials is its new total, give" : "the new total counts them, so give") +
        " more than " + std::to_string(trials));
  if (budget.seconds) {
    // On the clock the engine will count it on (onItsClock): a replay's device time by the file,
    // as the resumed engine restores it, else the tuning time.
    const bool device = onItsClock(budget, r.run).clock == BudgetClock::Device;
    double spent = r.secondsBefore;
    if (device) {
      spent = 0;
      for (const auto& [config, m] : r.restored) spent += deviceMs(m) / 1e3;
    }
    if (*budget.seconds <= spent)
      throw InputError(
          run +
          (device ? " has spent " + shortly(spent) + " s of device time by the file already: "
                  : " has tuned for " + shortly(spent) + " s already: ") +
          (cli ? "--seconds is its new total, give more than that"
               : "the new total counts that time, so give more than that"));
  }
  if (budget.targetSpeed) {
    double best = 0;
    for (const auto& [config, m] : r.restored)
      if (m.status == TrialStatus::Ok) best = std::max(best, m.speed);
    if (best >= *budget.targetSpeed)
      throw InputError(run + " has reached " + shortly(best) + " " + r.run.speedUnit +
                       " already: give a " + (cli ? "--target" : "target speed") + " above it");
  }
}

// The checked runs marked running, each with the new budget if one is given: in one transaction,
// so that a write refused midway changes none of them.
void goOn(Store& store, std::vector<ResumedRun*> runs, const std::optional<Budget>& newBudget) {
  store.inTransaction([&] {
    for (ResumedRun* r : runs) {
      if (newBudget) {
        r->plan.budget = onItsClock(*newBudget, r->run);
        r->run.budgetJson = r->plan.budget.toJson();
        store.setRunBudget(r->run.id, r->run.budgetJson);
      }
      store.setRunStatus(r->run.id, RunStatus::Running);
    }
  });
}

}  // namespace

ResumedRun resumeStoredRun(Store& store, std::int64_t runId, const BackendOptions& options,
                           ResumeAs as, const std::optional<Budget>& newBudget,
                           BudgetAskedBy askedBy) {
  if (newBudget && as != ResumeAs::Run)
    throw InputError("a network's task goes on with its network's budget, not one of its own");
  ResumedRun r;
  // Held before the run is read, and before the measurement is made: another process resuming
  // it is refused at once, and a deletion (which takes the same lock) either finished before the
  // read, which then finds the run gone, or waits for this resume to end.
  r.lock = std::make_shared<RunLock>(store.path(), LockedKind::Run, runId);
  r.run = resumableRun(store, runId, as, newBudget.has_value());
  r.setup = restoreMeasurement(r.run.backend, r.run.operatorJson, options, r.run.device);
  readBack(store, r);
  if (newBudget) checkNewBudget(r, *newBudget, askedBy);
  // A network's task is marked by its network, once every task is read back.
  if (as == ResumeAs::Run) goOn(store, {&r}, newBudget);
  return r;
}

std::string whyNotOneRace(const std::vector<RunRecord>& runs) {
  if (runs.empty()) return "no run to resume";
  const RunRecord& first = runs.front();
  for (const RunRecord& r : runs) {
    if (r.id == first.id) continue;
    if (r.raceId == 0 || r.raceId != first.raceId)
      return "runs " + std::to_string(first.id) + " and " + std::to_string(r.id) +
             " were not raced together: resume one race at a time";
    // A race across spaces tuned one problem in several (sameProblem): loops and layouts.
    if (r.backend != first.backend || r.device != first.device || !sameProblem(first, r))
      return "runs " + std::to_string(first.id) + " and " + std::to_string(r.id) +
             " measure different operators or devices";
  }
  return {};
}

std::vector<ResumedRun> resumeStoredRace(Store& store, const std::vector<std::int64_t>& runIds,
                                         const BackendOptions& options,
                                         const std::optional<Budget>& newBudget,
                                         BudgetAskedBy askedBy) {
  std::vector<ResumedRun> race(runIds.size());
  std::vector<RunRecord> records;
  // Locked before they are read (as resumeStoredRun), and every run checked before any is
  // marked running or given the new budget: all go on, or none.
  for (std::size_t i = 0; i < runIds.size(); ++i)
    race[i].lock = std::make_shared<RunLock>(store.path(), LockedKind::Run, runIds[i]);
  for (std::size_t i = 0; i < runIds.size(); ++i)
    records.push_back(race[i].run =
                          resumableRun(store, runIds[i], ResumeAs::Run, newBudget.has_value()));
  if (const std::string why = whyNotOneRace(records); !why.empty()) throw InputError(why);
  for (ResumedRun& r : race) {
    // One measurement per space the race tuned (one, but for a race across spaces), made for the
    // first run of it: the others share its space (owned by the definition or the dataset, shared
    // here), and an engine measures them all on the first's measurer.
    const auto own = std::find_if(race.begin(), race.end(), [&](const ResumedRun& o) {
      return o.run.operatorJson == r.run.operatorJson;
    });
    if (&*own == &r) {
      r.setup = restoreMeasurement(r.run.backend, r.run.operatorJson, options, r.run.device);
    } else {
      const MeasurementSetup& m = own->setup;
      r.setup.backend = m.backend;
      r.setup.operatorName = m.operatorName;
      r.setup.operatorJson = m.operatorJson;
      r.setup.definition = m.definition;
      r.setup.dataset = m.dataset;
      r.setup.space = m.space;
    }
    readBack(store, r);
    // Each run's own trials and time: the runs of a race may have spent different amounts.
    if (newBudget) checkNewBudget(r, *newBudget, askedBy);
  }
  std::vector<ResumedRun*> all;
  for (ResumedRun& r : race) all.push_back(&r);
  goOn(store, std::move(all), newBudget);
  return race;
}

int addResumedRun(Engine& engine, const ResumedRun& r) {
  const int index = engine.addRun(r.plan);
  engine.restore(index, r.restored, r.secondsBefore);
  engine.setStoreId(index, r.run.id);
  return index;
}

}  // namespace opevo
