#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/measurement.h"

namespace opevo {

struct CompareOptions {
  std::vector<std::string> algorithms;
  int repeats = 5;
  int trials = 400;
  std::uint64_t seed = 1;
  std::optional<std::size_t> batch;  // unset: each tuner's preferred batch
  // algorithm -> setting -> value
  std::map<std::string, std::map<std::string, std::string>> settings;
};

struct TrialRecord {
  std::string algorithm;
  int repeat = 0;
  std::uint64_t seed = 0;
  int trial = 0;  // 1-based
  Config config;
  Measurement measurement;
  double bestSoFar = 0;
  double tunerSeconds = 0;  // the tuner's own time for this trial's batch, shared evenly
};

struct SummaryRow {
  std::string algorithm;
  int trials = 0;  // budget
  double meanBest = 0;
  double stdBest = 0;
  std::optional<double> meanFractionOfOptimum;
};

struct CompareProgress {
  std::string algorithm;
  int repeat = 0, repeats = 0;
  int trial = 0, trials = 0;
  double best = 0;
};

struct CompareResult {
  std::vector<TrialRecord> trials;
  std::vector<SummaryRow> summary;
  std::vector<int> budgets;
};

// Runs every algorithm `repeats` times against the measurer; repeat r uses seed + r for every
// algorithm. A run stops early only when its tuner exhausts the space. optimum, when known (a
// complete dataset), gives each row's fraction of optimum.
CompareResult runCompare(const SearchSpace& space, Measurer& measurer, const CompareOptions& options,
                         std::optional<double> optimum,
                         const std::function<void(const CompareProgress&)>& progress = {});

// Budgets reported: 25, 50, 100, 200, 400 up to trials, and trials itself.
std::vector<int> summaryBudgets(int trials);

// Best over the first `budget` trials of each (algorithm, repeat), averaged over repeats.
std::vector<SummaryRow> summarize(const std::vector<TrialRecord>& trials,
                                  const std::vector<std::string>& algorithms,
                                  const std::vector<int>& budgets, std::optional<double> optimum);

}  // namespace opevo
