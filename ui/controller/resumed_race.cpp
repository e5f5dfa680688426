#include "ui/controller/resumed_race.h"

#include <algorithm>
#include <exception>
#include <nlohmann/json.hpp>
#include <set>

#include "common/error.h"
#include "io/run_import.h"
#include "layout/tuning_mode.h"
#include "ops/presets.h"
#include "store/run_curves.h"

namespace opevo::ui {

ResumedRace resumedRaceOf(const std::vector<RunRecord>& runs,
                          const std::vector<RunRecord>& raceMates) {
  ResumedRace race;
  // The race's algorithm places that are resumed, in the race's order.
  std::set<int> places;
  for (const RunRecord& r : runs) places.insert(r.raceAlgorithm);
  std::map<int, int> index;
  for (const int place : places) index.emplace(place, static_cast<int>(index.size()));
  race.algorithms.resize(static_cast<qsizetype>(index.size()));
  // Named as History names them: by their space too where the race tuned several.
  std::vector<const RunRecord*> named;
  for (const RunRecord& r : runs) named.push_back(&r);
  for (const RunRecord& m : raceMates) named.push_back(&m);
  const std::vector<std::string> names = curveNames(named);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const RunRecord& r = runs[i];
    const int a = index.at(r.raceAlgorithm);
    race.algorithms[a] = QString::fromStdString(names[i]);
    race.places[r.id] = {a, r.raceRepeat};
    race.repeats = std::max(race.repeats, r.raceRepeat + 1);
  }
  return race;
}

std::vector<RunRecord> raceMatesOf(const std::vector<RunRecord>& runs,
                                   const std::vector<RunRecord>& listed) {
  std::vector<RunRecord> mates;
  for (const RunRecord& m : listed) {
    const auto itself = [&](const RunRecord& r) { return r.id == m.id; };
    const auto mate = [&](const RunRecord& r) { return m.raceId != 0 && r.raceId == m.raceId; };
    if (std::none_of(runs.begin(), runs.end(), itself) &&
        std::any_of(runs.begin(), runs.end(), mate))
      mates.push_back(m);
  }
  return mates;
}

std::vector<RunRecord> goingOnTo(std::vector<RunRecord> runs, const Budget& total) {
  for (RunRecord& r : runs) r.budgetJson = onItsClock(total, r).toJson();
  return runs;
}

std::optional<Budget> newBudgetOf(const std::vector<RunRecord>& runs) {
  if (runs.empty() || !std::all_of(runs.begin(), runs.end(), [](const RunRecord& r) {
        return r.status == RunStatus::Finished;
      }))
    return std::nullopt;
  try {
    return Budget::fromJson(runs.front().budgetJson);
  } catch (const InputError&) {
    return std::nullopt;  // a damaged budget: the engine reads the stored one and says what it is
  }
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
