#pragma once

#include <cstdint>
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
  int runs = 0;  // the repeats it averages over: stdBest / sqrt(runs) is the mean's standard error
  // Device time (engine/device_time.h; in a replay what the file says measuring each trial
  // cost), in seconds, mean over the repeats: spent on the row's trials (with its sample standard
  // deviation), and spent until the trial that found the best among them.
  double meanDeviceSeconds = 0;
  double stdDeviceSeconds = 0;
  double meanDeviceSecondsToBest = 0;
  // With the optimum known: the runs whose best reached kTargetFraction of it within the row's
  // trials, and over those runs the mean device time and trials until it did (none when none did).
  int runsAtTarget = 0;
  std::optional<double> meanDeviceSecondsToTarget = std::nullopt;
  std::optional<double> meanTrialsToTarget = std::nullopt;
};

// The share of the optimum a run's time to solution is measured to.
inline constexpr double kTargetFraction = 0.95;

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

// The summary as a Markdown table, one row per (algorithm, budget). The fraction of optimum
// column is left out when no row has one (the optimum is not known): "n/a" under that heading
// would still present the file's best as an optimum.
std::string summaryMarkdown(const std::vector<SummaryRow>& rows, const std::string& speedUnit);

// Device time as a Markdown table, one row per algorithm at its last budget (the whole run): the
// mean device seconds spent, to the run's best, and, when any row has the optimum's fraction, to
// kTargetFraction of the optimum with the runs that got there ("3/5").
std::string deviceTimeMarkdown(const std::vector<SummaryRow>& rows);

// Where a summary's rows come from, written into every row of summary.json so that each row
// says it on its own (files of several races concatenate into one table).
struct SummaryProvenance {
  std::string measuredBy;  // "replay of real measurements on ... (FILE)"
  std::string speedUnit;
  std::string dataset;              // the dataset file as given
  std::string completeness;         // completenessName(): "checked", "assumed", ...
  std::optional<double> optimum;    // the dataset's best when it is complete, else none
  std::uint64_t seed = 0;           // repeat 1's; repeat r's is seed + r - 1
  int repeats = 0;                  // planned
  std::optional<int> trialsPerRun;  // planned; none: a time budget alone
  // The device time each run could spend (compare --seconds), none without a time budget.
  std::optional<double> deviceSecondsPerRun;
  std::string schedule;              // "round-robin", "shuffle"
  std::optional<std::size_t> batch;  // --batch; none: each algorithm's own
  // What the device time is made of (ReplayDataset::deviceTimeNote), and what measuring the
  // whole dataset once took (seconds), for scale.
  std::string deviceTime;
  std::optional<double> datasetDeviceSeconds;
  std::size_t trialsRun = 0;            // all the race's trials measured
  bool stoppedEarly = false;            // by Ctrl-C or a signal, short of the plan
  std::string version = OPEVO_VERSION;  // the program's
};

// summary.json: a JSON array, one object per row with its figures and the provenance
// (docs/engine.md lists the fields). Throws InputError naming the path.
void writeSummaryJson(const std::string& path, const std::vector<SummaryRow>& rows,
                      const SummaryProvenance& provenance);

}  // namespace opevo
