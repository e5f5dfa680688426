#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/measurement.h"

namespace opevo {

// Why a run's trials failed, counted by status: a run whose every trial failed said only "no
// configuration succeeded" (ten trials killed by a 0.05 s timeout, with no word of it).
struct TrialFailures {
  int trials = 0;                       // every trial counted, the working ones included
  std::map<TrialStatus, int> byStatus;  // the failed ones
  int failed() const;
  // "10 timed out", "6 did not compile, 2 gave a wrong result": most first.
  std::string text() const;
};

TrialFailures countFailures(const std::vector<TrialStatus>& statuses);

// What a failed trial of this status did, after a count: "timed out", "did not compile".
std::string failedAs(TrialStatus status);

}  // namespace opevo
