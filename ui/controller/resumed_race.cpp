#include "ui/controller/resumed_race.h"

#include <algorithm>
#include <exception>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "backends/stored_run.h"
#include "common/error.h"
#include "engine/budget.h"
#include "layout/tuning_mode.h"
#include "ops/presets.h"
#include "store/run_lock.h"
#include "store/store.h"

namespace opevo::ui {

ResumedRace resumedRaceOf(const std::vector<RunRecord>& runs) {
  ResumedRace race;
  // The race's algorithm places that are resumed, in the race's order.
  std::set<int> places;
  for (const RunRecord& r : runs) places.insert(r.raceAlgorithm);
  std::map<int, int> index;
  for (const int place : places) index.emplace(place, static_cast<int>(index.size()));
  race.algorithms.resize(static_cast<qsizetype>(index.size()));
  for (const RunRecord& r : runs) {
    const int a = index.at(r.raceAlgorithm);
    race.algorithms[a] = QString::fromStdString(r.algorithm);
    race.places[r.id] = {a, r.raceRepeat};
    race.repeats = std::max(race.repeats, r.raceRepeat + 1);
  }
  return race;
}

std::vector<RunRecord> extendStoredRuns(Store& store, const std::vector<std::int64_t>& ids,
                                        int total) {
  Budget budget;
  budget.trials = total;
  std::vector<RunRecord> records;
  for (const std::int64_t id : ids)
    if (const auto run = store.run(id)) records.push_back(*run);
  if (records.size() > 1)
    if (const std::string why = whyNotOneRace(records); !why.empty()) throw InputError(why);
  std::vector<RunRecord> extended;
  // Every run held until all are extended, as resumeStoredRace holds a race's runs; let go on
  // return, so that the window's resume (another RunLock of this process) can take them.
  std::vector<std::shared_ptr<RunLock>> held;
  try {
    for (const std::int64_t id : ids) {
      // The check and the change, as the command line makes them (one place: stored_run.h).
      // Its measurement is made only to be dropped: the window's resume makes its own.
      ResumedRun r = resumeStoredRun(store, id, {}, ResumeAs::Run, budget);
      held.push_back(r.lock);
      r.run.status = RunStatus::Running;
      extended.push_back(std::move(r.run));
    }
  } catch (...) {
    // Refused midway (another process took a run): the runs already given the total are put
    // back as they were, so none goes on alone. Their end time becomes now (the store keeps one
    // per status change), which is all that differs.
    for (const RunRecord& done : extended)
      for (const RunRecord& before : records)
        if (before.id == done.id) {
          store.setRunBudget(before.id, before.budgetJson);
          store.setRunStatus(before.id, before.status, before.endReason);
        }
    throw;
  }
  return extended;
}

StoredBudget storedBudgetOf(const std::string& budgetJson) {
  StoredBudget budget;
  const auto j = nlohmann::json::parse(budgetJson, nullptr, false);
  if (!j.is_object()) return budget;
  if (j.contains("trials") && j["trials"].is_number()) budget.trials = j["trials"].get<long long>();
  if (j.contains("seconds") && j["seconds"].is_number())
    budget.seconds = j["seconds"].get<double>();
  if (j.contains("target") && j["target"].is_number()) budget.target = j["target"].get<double>();
  return budget;
}

}  // namespace opevo::ui
