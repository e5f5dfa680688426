#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/commands.h"
#include "cli/progress_printer.h"
#include "common/error.h"
#include "engine/engine.h"
#include "engine/sweep.h"
#include "io/heatmap_svg.h"
#include "io/replay_dataset.h"
#include "replay/replay_measurer.h"
#include "space/text.h"
#include "tuners/registry.h"

namespace opevo::cli {
namespace {

struct SweepArgs {
  std::string space;
  std::string algo = tunerRegistry().defaultTuner().name;
  std::vector<std::string> settings;
  int repeats = 10;
  int trials = 100;
  std::optional<int> at;
  std::uint64_t seed = 1;
  std::string out;
  bool quiet = false;
};

// "q=0.1,0.3,0.5" is an axis; "lambda=8" (one value) is fixed in every cell.
void parseSettings(const std::vector<std::string>& texts, SweepPlan& plan) {
  for (const std::string& text : texts) {
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
      throw InputError("--set '" + text +
                       "' is not of the form setting=value[,value...] (e.g. "
                       "q=0.1,0.3,0.5)");
    const std::string name = text.substr(0, eq);
    std::vector<std::string> values;
    for (const std::string& v : splitList(text.substr(eq + 1), ','))
      if (!v.empty()) values.push_back(v);
    if (values.size() == 1)
      plan.fixed[name] = values.front();
    else
      plan.axes.push_back({name, values});
  }
}

HeatMap heatMapOf(const SweepPlan& plan, const std::vector<SweepCell>& cells, int budget,
                  bool fraction, const std::string& title) {
  HeatMap map;
  map.title = title;
  const bool grid = plan.axes.size() > 1;
  // One axis: a single row, the values across.
  map.columnName = grid ? plan.axes[1].setting : plan.axes[0].setting;
  map.rowName = grid ? plan.axes[0].setting : "";
  map.columns = grid ? plan.axes[1].values : plan.axes[0].values;
  map.rows = grid ? plan.axes[0].values
                  : std::vector<std::string>{"after " + std::to_string(budget) + " trials"};
  map.values.assign(map.rows.size(), std::vector<std::optional<double>>(map.columns.size()));
  for (const SweepCell& cell : cells)
    for (const SummaryRow& row : cell.rows)
      if (row.trials == budget)
        map.values[grid ? cell.at[0] : 0][grid ? cell.at[1] : cell.at[0]] =
            fraction ? row.meanFractionOfOptimum : std::optional<double>(row.meanBest);
  return map;
}

std::string markdown(const HeatMap& map) {
  std::ostringstream text;
  text << "| " << (map.rowName.empty() ? "" : map.rowName + " \\ ") << map.columnName << " |";
  for (const std::string& c : map.columns) text << " " << c << " |";
  text << "\n| --- |";
  for (std::size_t c = 0; c < map.columns.size(); ++c) text << " ---: |";
  text << "\n";
  for (std::size_t r = 0; r < map.rows.size(); ++r) {
    text << "| " << map.rows[r] << " |";
    for (const auto& v : map.values[r]) {
      char number[32] = "-";
      if (v) std::snprintf(number, sizeof number, "%.3f", *v);
      text << " " << number << " |";
    }
    text << "\n";
  }
  return text.str();
}

void runSweepCommand(const SweepArgs& a) {
  SweepPlan plan;
  plan.algorithm = a.algo;
  parseSettings(a.settings, plan);
  if (a.trials < 1)
    throw InputError("--trials must be at least 1, got " + std::to_string(a.trials));
  const int budget = a.at.value_or(a.trials);
  if (budget < 1 || budget > a.trials)
    throw InputError("--at must be between 1 and --trials (" + std::to_string(a.trials) +
                     "), got " + std::to_string(budget));
  plan.repeats = a.repeats;
  plan.budget.trials = a.trials;
  plan.seed = a.seed;
  const RacePlan race = sweepRace(plan);  // axes checked here

  auto dataset = std::make_shared<const ReplayDataset>(loadReplayDataset(a.space));
  ReplayMeasurer measurer(dataset);
  const std::optional<double> optimum =
      dataset->complete ? std::optional<double>(dataset->bestSpeed) : std::nullopt;
  Engine engine(dataset->space, measurer);
  addRace(engine, race);  // every setting and value checked before anything is measured
  std::filesystem::create_directories(a.out);
  TrialLog log;
  ProgressPrinter printer(dataset->speedUnit, ProgressPrinter::Lines::PerRun,
                          isatty(STDERR_FILENO));
  engine.addObserver(log);
  if (!a.quiet) {
    engine.addObserver(printer);
    std::fprintf(stderr, "%s\n%zu cells x %d repeats = %zu runs of %d trials\n",
                 measurer.label().c_str(), race.algorithms.size(), plan.repeats,
                 engine.runs().size(), a.trials);
  }
  engine.run();
  printer.finish();
  if (!engine.failure().empty()) throw RunFailed(engine.failure());

  std::vector<int> budgets = summaryBudgets(a.trials);
  if (std::find(budgets.begin(), budgets.end(), budget) == budgets.end()) {
    budgets.push_back(budget);
    std::sort(budgets.begin(), budgets.end());
  }
  const std::vector<SweepCell> cells = summarizeSweep(plan, log.trials(), budgets, optimum);
  const std::filesystem::path out(a.out);
  writeSweepCsv((out / "sweep.csv").string(), plan, cells);
  const bool fraction = optimum.has_value();
  const std::string what = fraction ? "mean fraction of optimum"
                                    : "mean best " + dataset->speedUnit + " (optimum unknown)";
  const HeatMap map = heatMapOf(plan, cells, budget, fraction,
                                a.algo + ": " + what + " after " + std::to_string(budget) +
                                    " trials, " + std::to_string(plan.repeats) + " repeats");
  const std::string svgPath = (out / "heatmap.svg").string();
  std::ofstream svg(svgPath);
  svg << heatMapSvg(map);
  if (!svg) throw InputError("cannot write " + svgPath);
  std::cout << "Replay of real measurements: " << measurer.label() << "\n"
            << a.algo << ", " << what << " after " << budget << " trials, " << plan.repeats
            << " repeats, seed " << plan.seed << "\n\n"
            << markdown(map);
  if (!a.quiet)
    std::fprintf(stderr, "wrote %s/sweep.csv and %s/heatmap.svg\n", a.out.c_str(), a.out.c_str());
}

}  // namespace

void addSweepCommand(CLI::App& app) {
  auto a = std::make_shared<SweepArgs>();
  auto* cmd = app.add_subcommand(
      "sweep", "Hyper-parameter study of one algorithm on a measured dataset (replay)");
  cmd->add_option("--space", a->space, "A measured dataset file (Kernel Tuner cache or T4)")
      ->required();
  cmd->add_option("--algo", a->algo, "The algorithm (default " + a->algo + ")");
  cmd->add_option("--set", a->settings,
                  "setting=v1,v2,... : an axis of the sweep (one or two); setting=v: fixed in "
                  "every cell (repeatable)")
      ->required();
  cmd->add_option("--repeats", a->repeats, "Runs per cell (default 10)");
  cmd->add_option("--trials", a->trials, "Trials per run (default 100)");
  cmd->add_option("--at", a->at, "The budget the table and heat map show (default --trials)");
  cmd->add_option("--seed", a->seed, "Seed of the first repeat; repeat r uses seed + r");
  cmd->add_option("--out", a->out, "Directory for sweep.csv and heatmap.svg")->required();
  cmd->add_flag("--quiet", a->quiet, "No progress on standard error");
  cmd->callback([a] { runSweepCommand(*a); });
}

}  // namespace opevo::cli
