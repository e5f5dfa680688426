#pragma once

#include <QStringList>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/budget.h"
#include "store/records.h"

namespace opevo::ui {

// Stored runs of one race resumed together (History's whole race after a kill): where each is
// drawn and listed in the window. An algorithm keeps its place in the race's order and a run its
// own repeat, so run 12, autotvm's third repeat, is still "autotvm, repeat 3" once resumed. The
// Runs page names the window's algorithms from this and the engine worker places the trials by
// it: one mapping for both.
struct ResumedRace {
  QStringList algorithms;
  int repeats = 1;
  // run id -> (algorithm's index in `algorithms`, 0-based repeat)
  std::map<std::int64_t, std::pair<int, int>> places;
};

// raceMates: the other stored runs of their race, `runs` not among them (History holds them:
// HistoryPage::raceMatesOf), which name the curves as the
// whole race's were: a joint run resumed after the race's loop runs finished is still "opevo
// (joint)", not "opevo".
ResumedRace resumedRaceOf(const std::vector<RunRecord>& runs,
                          const std::vector<RunRecord>& raceMates = {});
// Those of `listed` that are runs of the races of `runs`, `runs` left out: their race-mates.
std::vector<RunRecord> raceMatesOf(const std::vector<RunRecord>& runs,
                                   const std::vector<RunRecord>& listed);

// Finished runs to go on to a new total (History's More trials…) travel to the Runs page as their
// records carrying that total as their budget, still stored finished: the engine's resume checks
// it against each run's trials and stores it once it holds the runs (resumeStoredRace), so that
// no other program can take them in between. goingOnTo gives the records the total; newBudgetOf
// reads it back: the budget of finished runs (each given the same), nullopt for unfinished ones,
// which go on to their stored budgets (Resume).
std::vector<RunRecord> goingOnTo(std::vector<RunRecord> runs, const Budget& total);
std::optional<Budget> newBudgetOf(const std::vector<RunRecord>& runs);

// A run's budget as the store keeps it ({"trials": 200, "seconds": 30, "target": 12.5}); what the
// JSON lacks (or a text that is not JSON) is nullopt.
struct StoredBudget {
  std::optional<long long> trials;
  std::optional<double> seconds;
  std::optional<double> target;
};
StoredBudget storedBudgetOf(const std::string& budgetJson);

}  // namespace opevo::ui
