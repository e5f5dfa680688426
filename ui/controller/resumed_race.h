#pragma once

#include <QStringList>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "store/records.h"

namespace opevo {
class Store;
}

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

ResumedRace resumedRaceOf(const std::vector<RunRecord>& runs);

// Finished runs given a new total of trials to go on to (History's More trials…), as `opevo tune
// --resume N --trials M` gives one: each through resumeStoredRun with the new budget, which
// checks it against what the run has spent (InputError: "run 5 has 60 trials already..."),
// stores it and marks the run running; the window's resume of the same ids then goes on from
// there (a running run that nobody holds reads interrupted, so a resume that never comes leaves it
// resumable to its new total). Several runs are one race's (whyNotOneRace), each given the same
// total: all or none, a refusal of one puts the budgets and statuses of those before it back.
// Returns the runs as now stored. Reads and writes the store: off the GUI thread.
std::vector<RunRecord> extendStoredRuns(Store& store, const std::vector<std::int64_t>& ids,
                                        int total);

// A run's budget as the store keeps it ({"trials": 200, "seconds": 30, "target": 12.5}); what the
// JSON lacks (or a text that is not JSON) is nullopt.
struct StoredBudget {
  std::optional<long long> trials;
  std::optional<double> seconds;
  std::optional<double> target;
};
StoredBudget storedBudgetOf(const std::string& budgetJson);

}  // namespace opevo::ui
