#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/race.h"
#include "engine/race_summary.h"
#include "io/heatmap_svg.h"

namespace opevo {

// One setting and the values it takes in a sweep, e.g. q = 0.1, 0.3, 0.5.
struct SweepAxis {
  std::string setting;
  std::vector<std::string> values;
};

// A hyper-parameter study of one algorithm, as in the OpEvo paper's appendix: every combination
// of the axes' values (one or two axes: a row or a grid) raced with the same repeats and seeds.
struct SweepPlan {
  std::string algorithm;
  std::vector<SweepAxis> axes;
  std::map<std::string, std::string> fixed;  // other settings, the same in every cell
  int repeats = 10;
  Budget budget;
  std::uint64_t seed = 1;
};

// Settings of every cell, the first axis changing slowest. Throws InputError for no axis, more
// than two, an axis without values, a setting named twice, a value listed twice, an unknown
// algorithm, or a value the algorithm refuses (out of range, not a number), before anything runs.
std::vector<std::map<std::string, std::string>> sweepCells(const SweepPlan& plan);

// The race that measures every cell: one "algorithm" per cell, all the same algorithm.
RacePlan sweepRace(const SweepPlan& plan);

// A cell's results: its place on each axis and one summary row per budget.
struct SweepCell {
  std::vector<std::size_t> at;  // index into each axis' values
  std::vector<SummaryRow> rows;
};

// Summaries per cell from the trials of the engine that ran sweepRace(plan) (run ids are the
// runs' places in that engine).
std::vector<SweepCell> summarizeSweep(const SweepPlan& plan, const std::vector<TrialRecord>& trials,
                                      const std::vector<int>& budgets,
                                      std::optional<double> optimum);

// "q=0.3 lambda=8"
std::string cellLabel(const SweepPlan& plan, const std::vector<std::size_t>& at);

// The cells at one budget as a heat map: rows are the first axis' values and columns the second's
// (one axis: a single row). Fraction: each cell's mean fraction of optimum, else its mean best.
// A cell whose runs exhausted the space before the budget shows its value at their last trial.
HeatMap sweepHeatMap(const SweepPlan& plan, const std::vector<SweepCell>& cells, int budget,
                     bool fraction, const std::string& title);

// A sweep is raced repeat by repeat (every cell's run of repeat 1, then every cell's of repeat
// 2...), not as one race whose runs all advance together: a sweep stopped midway then keeps the
// repeats every cell completed, and its map still compares cells at one number of repeats.
// raceRepeat races `oneRepeat` (plan with one repeat, the seed of repeat `repeat`, so every run
// gets the seed one race of the whole plan would give it) and returns its trials, run ids being
// the cells' 1-based places; nullopt when it was stopped before its end.
using SweepRepeatRace =
    std::function<std::optional<std::vector<TrialRecord>>(const SweepPlan& oneRepeat, int repeat)>;
struct SweepTrials {
  std::vector<TrialRecord>
      trials;  // run ids and repeats as one race of sweepRace(plan) numbers them
  int repeatsDone = 0;
  bool stopped = false;  // before its last repeat ended
};
SweepTrials raceSweepByRepeats(const SweepPlan& plan, const SweepRepeatRace& raceRepeat);

// What the measured dataset says about a sweep's results.
// "gemm/RTX_2080_Ti.json.gz": a dataset file with its folder, which tell the shipped datasets apart
// (three devices' files are RTX_2080_Ti.json.gz) without a long path in a map's title.
std::string sweepDatasetName(const std::string& path);

struct SweepFacts {
  std::optional<double> optimum;  // the dataset's best, when it is complete
  std::string speedUnit;
  std::size_t configurations = 0;  // in the space; 0: unknown
  // The dataset as the title and sweep.csv name it ("gemm/RTX_2080_Ti.json.gz"); empty: unnamed.
  std::string dataset{};
  std::string completeness{};  // completenessName() of the dataset; empty: not said
};

// A sweep's trials summarized: what the CLI's table and files and the window's map show.
struct SweepResult {
  std::vector<SweepCell> cells;  // at summaryBudgets(trials) and the budget shown
  HeatMap map;                   // at the budget shown, or the last trial the runs reached
  int shownAt = 0;               // the trials the map is after
  int repeatsDone = 0;
  // Why the map is not what was asked for, in words for the user ("stopped after 6 of 10
  // repeats: ..."; "the space has 12 configurations: ..."); empty when it is.
  std::vector<std::string> notes;
};
// `at`: the budget the map shows (1 to the plan's trials). repeatsDone below plan.repeats: a sweep
// stopped early, whose trials are those of its first repeatsDone repeats.
SweepResult sweepResult(const SweepPlan& plan, const std::vector<TrialRecord>& trials,
                        int repeatsDone, int at, const SweepFacts& facts);

// sweep.csv's text: one line per cell and budget; a column per axis, then per fixed setting (its
// one value on every line), then where the figures come from, the same on every line (the repeats
// each mean is over and those planned: fewer when the sweep was stopped; the seed of repeat 1;
// the dataset, its completeness and optimum), then the figures: the best's, then the device
// time's (SummaryRow's: the mean over the cell's runs of their device time, its standard
// deviation, and the mean device time until each run found its best). repeatsDone < 0: the
// plan's.
std::string sweepCsv(const SweepPlan& plan, const std::vector<SweepCell>& cells,
                     const SweepFacts& facts = {}, int repeatsDone = -1);

}  // namespace opevo
