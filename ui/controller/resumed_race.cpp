#include "ui/controller/resumed_race.h"

#include <algorithm>
#include <set>

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

}  // namespace opevo::ui
