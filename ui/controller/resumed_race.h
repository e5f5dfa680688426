#pragma once

#include <QStringList>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

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

ResumedRace resumedRaceOf(const std::vector<RunRecord>& runs);

// A run's budget as the store keeps it ({"trials": 200, "seconds": 30, "target": 12.5}); what the
// JSON lacks (or a text that is not JSON) is nullopt.
struct StoredBudget {
  std::optional<long long> trials;
  std::optional<double> seconds;
  std::optional<double> target;
};
StoredBudget storedBudgetOf(const std::string& budgetJson);

// What a stored run tuned, in core's names: a template's own space where it has one
// (spaceTargetName: "winograd", "matvec"), else the tuning mode (tuningModeName: "loop",
// "joint"); "replay" for a run on a dataset (as `opevo tune --json` says); empty when the
// operator's JSON cannot be read.
std::string tuningModeOf(const RunRecord& run);

}  // namespace opevo::ui
