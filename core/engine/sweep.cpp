#include "engine/sweep.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <sstream>

#include "common/error.h"
#include "io/trials_csv.h"
#include "tuners/registry.h"

namespace opevo {
namespace {

// The row a cell shows at a budget: the last with at most that many trials. Runs that exhausted
// the space before the budget have their final row there, at the trials they had.
const SummaryRow* rowAt(const SweepCell& cell, int budget) {
  const SummaryRow* found = nullptr;
  for (const SummaryRow& row : cell.rows)
    if (row.trials <= budget) found = &row;
  return found;
}

// "opevo (lambda=2)": settings fixed in every cell change every result, so the title that heads
// the table and the heat map names them.
std::string algorithmWithFixed(const SweepPlan& plan) {
  std::string fixed;
  for (const auto& [name, value] : plan.fixed)
    fixed += (fixed.empty() ? "" : " ") + name + "=" + value;
  return fixed.empty() ? plan.algorithm : plan.algorithm + " (" + fixed + ")";
}

}  // namespace

std::vector<std::map<std::string, std::string>> sweepCells(const SweepPlan& plan) {
  // A setting given one value is fixed in every cell (plan.fixed), not swept.
  if (plan.axes.empty())
    throw InputError("a sweep needs a setting with two or more values (--set q=0.1,0.3,0.5)" +
                     std::string(plan.fixed.empty() ? ""
                                                    : "; one value (" + plan.fixed.begin()->first +
                                                          "=" + plan.fixed.begin()->second +
                                                          ") fixes the setting in every cell"));
  if (plan.axes.size() > 2)
    throw InputError("a sweep takes one or two settings (a row or a grid), got " +
                     std::to_string(plan.axes.size()));
  std::set<std::string> named;
  for (const SweepAxis& axis : plan.axes) {
    if (axis.values.empty()) throw InputError("--set " + axis.setting + " has no values");
    if (!named.insert(axis.setting).second || plan.fixed.count(axis.setting))
      throw InputError("the setting '" + axis.setting + "' is given twice");
    if (std::find(axis.values.begin(), axis.values.end(), "") != axis.values.end())
      throw InputError("the values of " + axis.setting +
                       " include an empty one (two commas in a row, or one at an end)");
    if (std::set<std::string>(axis.values.begin(), axis.values.end()).size() != axis.values.size())
      throw InputError("--set " + axis.setting + " lists a value twice");
  }
  std::vector<std::map<std::string, std::string>> cells;
  const SweepAxis& first = plan.axes[0];
  const std::size_t inner = plan.axes.size() > 1 ? plan.axes[1].values.size() : 1;
  for (const std::string& a : first.values) {
    for (std::size_t j = 0; j < inner; ++j) {
      std::map<std::string, std::string> settings = plan.fixed;
      settings[first.setting] = a;
      if (plan.axes.size() > 1) settings[plan.axes[1].setting] = plan.axes[1].values[j];
      cells.push_back(std::move(settings));
    }
  }
  // Every value as the algorithm reads it, here rather than when the race is set up: a refused
  // value then costs nothing (the window keeps the map it shows), and the message names it.
  // An unknown algorithm is left to the race, which lists the known ones.
  if (const TunerInfo* info = tunerRegistry().find(plan.algorithm))
    for (const auto& settings : cells) info->defaults().apply(plan.algorithm, settings);
  return cells;
}

RacePlan sweepRace(const SweepPlan& plan) {
  RacePlan race;
  for (auto& settings : sweepCells(plan)) race.algorithms.push_back({plan.algorithm, settings});
  race.repeats = plan.repeats;
  race.budget = plan.budget;
  race.seed = plan.seed;
  return race;
}

std::string cellLabel(const SweepPlan& plan, const std::vector<std::size_t>& at) {
  std::string label;
  for (std::size_t k = 0; k < plan.axes.size(); ++k)
    label += (k ? " " : "") + plan.axes[k].setting + "=" + plan.axes[k].values[at[k]];
  return label;
}

std::vector<SweepCell> summarizeSweep(const SweepPlan& plan, const std::vector<TrialRecord>& trials,
                                      const std::vector<int>& budgets,
                                      std::optional<double> optimum) {
  const std::size_t count = sweepCells(plan).size();
  const std::size_t inner = plan.axes.size() > 1 ? plan.axes[1].values.size() : 1;
  std::vector<SweepCell> cells(count);
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < count; ++i) {
    cells[i].at = {i / inner};
    if (plan.axes.size() > 1) cells[i].at.push_back(i % inner);
    labels.push_back(cellLabel(plan, cells[i].at));
  }
  // sweepRace adds the runs repeat by repeat, the cells in order within each: run r (1-based) is
  // cell (r - 1) mod count. The summary groups by label, so each trial is relabelled with its
  // cell's.
  std::vector<TrialRecord> labelled = trials;
  for (TrialRecord& t : labelled) t.algorithm = labels[static_cast<std::size_t>(t.run - 1) % count];
  const std::vector<SummaryRow> rows = summarize(labelled, labels, budgets, optimum);
  for (const SummaryRow& row : rows)
    for (std::size_t i = 0; i < count; ++i)
      if (labels[i] == row.algorithm) cells[i].rows.push_back(row);
  return cells;
}

std::string sweepDatasetName(const std::string& path) {
  const std::filesystem::path p(path);
  const std::string folder = p.parent_path().filename().string();
  return folder.empty() ? p.filename().string() : folder + "/" + p.filename().string();
}

HeatMap sweepHeatMap(const SweepPlan& plan, const std::vector<SweepCell>& cells, int budget,
                     bool fraction, const std::string& title) {
  HeatMap map;
  map.title = title;
  const bool grid = plan.axes.size() > 1;
  map.columnName = grid ? plan.axes[1].setting : plan.axes[0].setting;
  map.rowName = grid ? plan.axes[0].setting : "";
  map.columns = grid ? plan.axes[1].values : plan.axes[0].values;
  map.rows = grid ? plan.axes[0].values
                  : std::vector<std::string>{"after " + std::to_string(budget) + " trials"};
  map.values.assign(map.rows.size(), std::vector<std::optional<double>>(map.columns.size()));
  map.errors = map.values;  // the same shape, every cell unknown until its row is found
  for (const SweepCell& cell : cells)
    if (const SummaryRow* row = rowAt(cell, budget)) {
      const std::size_t r = grid ? cell.at[0] : 0, c = grid ? cell.at[1] : cell.at[0];
      map.values[r][c] =
          fraction ? row->meanFractionOfOptimum : std::optional<double>(row->meanBest);
      // The mean's standard error, in the map's unit (a fraction scales as its mean does).
      if (row->runs > 1 && map.values[r][c]) {
        const double se = row->stdBest / std::sqrt(static_cast<double>(row->runs));
        map.errors[r][c] =
            fraction ? (row->meanBest > 0 ? se * *map.values[r][c] / row->meanBest : 0.0) : se;
      }
    }
  return map;
}

SweepTrials raceSweepByRepeats(const SweepPlan& plan, const SweepRepeatRace& raceRepeat) {
  const auto count = static_cast<std::int64_t>(sweepCells(plan).size());
  SweepTrials out;
  for (int repeat = 0; repeat < plan.repeats; ++repeat) {
    SweepPlan one = plan;
    one.repeats = 1;
    one.seed = plan.seed + static_cast<std::uint64_t>(repeat);  // as addRace seeds repeat r
    std::optional<std::vector<TrialRecord>> trials = raceRepeat(one, repeat);
    if (!trials) {
      out.stopped = true;
      break;
    }
    for (TrialRecord& t : *trials) {
      t.run += repeat * count;
      t.repeat = repeat;
      out.trials.push_back(std::move(t));
    }
    ++out.repeatsDone;
  }
  return out;
}

SweepResult sweepResult(const SweepPlan& plan, const std::vector<TrialRecord>& trials,
                        int repeatsDone, int at, const SweepFacts& facts) {
  SweepResult out;
  out.repeatsDone = repeatsDone;
  std::vector<int> budgets = summaryBudgets(plan.budget.trials.value_or(at));
  if (std::find(budgets.begin(), budgets.end(), at) == budgets.end()) {
    budgets.push_back(at);
    std::sort(budgets.begin(), budgets.end());
  }
  out.cells = summarizeSweep(plan, trials, budgets, facts.optimum);
  // Runs that exhausted a small space stop short of `at`: the map is after the last trial they
  // reached, and says so, where a title "after 20 trials" over 12-trial runs would not be true.
  out.shownAt = 0;
  for (const SweepCell& cell : out.cells)
    if (const SummaryRow* row = rowAt(cell, at)) out.shownAt = std::max(out.shownAt, row->trials);
  if (out.shownAt == 0) out.shownAt = at;
  if (repeatsDone < plan.repeats)
    out.notes.push_back("stopped after " + std::to_string(repeatsDone) + " of " +
                        std::to_string(plan.repeats) + " repeats: the map covers " +
                        std::to_string(repeatsDone) + " repeat" + (repeatsDone == 1 ? "" : "s") +
                        " of every cell");
  const std::string shown = std::to_string(out.shownAt);
  if (out.shownAt < at)
    out.notes.push_back(
        (facts.configurations == static_cast<std::size_t>(out.shownAt)
             ? "the space has " + shown + " configurations"
             : "the runs ended by " + shown + " trials (their tuner found no new configuration)") +
        ": the map is after " + shown + " trials");
  const bool fraction = facts.optimum.has_value();
  const std::string what =
      fraction ? "mean fraction of optimum" : "mean best " + facts.speedUnit + " (optimum unknown)";
  // The dataset is named: maps of several datasets otherwise bear one title.
  out.map =
      sweepHeatMap(plan, out.cells, at, fraction,
                   algorithmWithFixed(plan) + ": " + what + " after " + shown + " trials, " +
                       std::to_string(repeatsDone) + (repeatsDone == 1 ? " repeat" : " repeats") +
                       (facts.dataset.empty() ? "" : ", on " + facts.dataset));
  if (plan.axes.size() == 1) out.map.rows = {"after " + shown + " trials"};
  return out;
}

std::string sweepCsv(const SweepPlan& plan, const std::vector<SweepCell>& cells,
                     const SweepFacts& facts, int repeatsDone) {
  std::ostringstream out;  // figures as csvNumber writes them: exact, not rounded to 6 digits
  // The fixed settings are columns too, the same on every line: they change every result, and a
  // file read on its own would not say what they were; so do the repeats, seed and dataset. The
  // figures stay the last columns, the device time's after the speeds'.
  for (const SweepAxis& axis : plan.axes) out << axis.setting << ",";
  for (const auto& [name, value] : plan.fixed) out << name << ",";
  out << "repeats,repeats_planned,seed,dataset,completeness,optimum,"
         "trials,mean_best,std_best,mean_fraction_of_optimum,mean_device_seconds,"
         "std_device_seconds,mean_device_seconds_to_best\n";
  std::ostringstream provenance;
  provenance << (repeatsDone < 0 ? plan.repeats : repeatsDone) << "," << plan.repeats << ","
             << plan.seed << "," << csvField(facts.dataset) << "," << facts.completeness << ",";
  if (facts.optimum) provenance << csvNumber(*facts.optimum);
  for (const SweepCell& cell : cells) {
    for (const SummaryRow& row : cell.rows) {
      for (std::size_t k = 0; k < plan.axes.size(); ++k)
        out << plan.axes[k].values[cell.at[k]] << ",";
      for (const auto& [name, value] : plan.fixed) out << value << ",";
      out << provenance.str() << "," << row.trials << "," << csvNumber(row.meanBest) << ","
          << csvNumber(row.stdBest) << ",";
      if (row.meanFractionOfOptimum) out << csvNumber(*row.meanFractionOfOptimum);
      // What the cell's runs cost the device, as compare's summary.json says it of a race's
      // rows (race_summary.h): the time, not only the trials, a setting takes to its best.
      out << "," << csvNumber(row.meanDeviceSeconds) << "," << csvNumber(row.stdDeviceSeconds)
          << "," << csvNumber(row.meanDeviceSecondsToBest) << "\n";
    }
  }
  return out.str();
}

}  // namespace opevo
