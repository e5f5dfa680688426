#pragma once

#include <map>
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
// than two, an axis without values, a setting named twice, or a value listed twice.
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
HeatMap sweepHeatMap(const SweepPlan& plan, const std::vector<SweepCell>& cells, int budget,
                     bool fraction, const std::string& title);

// sweep.csv: one line per cell and budget; a column per axis, then per fixed setting (its one
// value on every line). Throws InputError naming the path.
void writeSweepCsv(const std::string& path, const SweepPlan& plan,
                   const std::vector<SweepCell>& cells);

}  // namespace opevo
