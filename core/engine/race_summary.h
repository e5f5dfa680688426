#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/trial_record.h"

namespace opevo {

// The best speed of an algorithm's runs after a number of trials, over its repeats.
struct SummaryRow {
  std::string algorithm;
  int trials = 0;  // the budget, or the trials the runs had when they exhausted the space first
  double meanBest = 0;
  double stdBest = 0;
  std::optional<double> meanFractionOfOptimum;
};

// Budgets reported: 25, 50, 100, 200, 400 up to trials, and trials itself.
std::vector<int> summaryBudgets(int trials);

// Best over the first `budget` trials of each (algorithm, repeat), averaged over repeats. A run
// that ended early (its space exhausted) keeps its final best. optimum, when known (a complete
// dataset), gives each row's fraction of optimum.
std::vector<SummaryRow> summarize(const std::vector<TrialRecord>& trials,
                                  const std::vector<std::string>& algorithms,
                                  const std::vector<int>& budgets, std::optional<double> optimum);

// Algorithms whose runs proposed the same first `trials` configurations in every repeat: every
// algorithm that begins with random draws takes them from the repeat's seed (the algorithms meet
// the same luck), so those that agree on their start have rows that match at budgets within it
// (AutoTVM and Ansor: their first 64 trials, before either has a cost model).
struct SharedStart {
  std::vector<std::string> algorithms;  // two or more, in the race's order
  int trials = 0;                       // the shortest start all of them share, over the repeats
};
// The groups of `algorithms` sharing at least `atLeast` first trials in every repeat.
std::vector<SharedStart> sharedStarts(const std::vector<TrialRecord>& trials,
                                      const std::vector<std::string>& algorithms, int atLeast = 8);

// The summary as a Markdown table, one row per (algorithm, budget).
std::string summaryMarkdown(const std::vector<SummaryRow>& rows, const std::string& speedUnit);

// summary.json: the rows, with the unit and what measured them. Throws InputError naming the path.
void writeSummaryJson(const std::string& path, const std::vector<SummaryRow>& rows,
                      const std::string& measuredBy, const std::string& speedUnit);

}  // namespace opevo
