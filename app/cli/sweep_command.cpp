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
#include "io/output_folder.h"
#include "replay/replay_sweep.h"
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
    const std::string name = settingOf(text.substr(0, eq), plan.algorithm);
    std::vector<std::string> values;
    for (const std::string& v : splitList(text.substr(eq + 1), ','))
      if (!v.empty()) values.push_back(v);
    if (values.size() == 1)
      plan.fixed[name] = values.front();
    else
      plan.axes.push_back({name, values});
  }
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
      text << " " << (v ? heatNumber(*v) : std::string("-")) << " |";
    }
    text << "\n";
  }
  return text.str();
}

void runSweepCommand(const SweepArgs& a) {
  SweepPlan plan;
  plan.algorithm = a.algo;
  parseSettings(a.settings, plan);
  plan.repeats = a.repeats;
  plan.budget.trials = a.trials;
  plan.seed = a.seed;
  sweepRace(plan);  // the axes, before the dataset is read
  auto dataset = std::make_shared<const ReplayDataset>(loadReplayDataset(a.space));
  ProgressPrinter printer(dataset->speedUnit, ProgressPrinter::Lines::PerRun,
                          isatty(STDERR_FILENO));
  if (!a.quiet)
    std::fprintf(stderr, "%zu cells x %d repeats of %d trials on %s\n", sweepCells(plan).size(),
                 plan.repeats, a.trials, a.space.c_str());
  const ReplaySweep sweep =
      runReplaySweep(dataset, plan, a.at.value_or(a.trials), a.quiet ? nullptr : &printer);
  printer.finish();
  if (!sweep.failure.empty()) throw RunFailed(sweep.failure);

  const std::filesystem::path out(a.out);
  createOutputFolder(out);
  writeSweepCsv((out / "sweep.csv").string(), plan, sweep.cells);
  const std::string svgPath = (out / "heatmap.svg").string();
  std::ofstream svg(svgPath);
  svg << heatMapSvg(sweep.map);
  if (!svg) throw InputError("cannot write " + svgPath);
  std::cout << "Replay of real measurements: " << sweep.measuredBy << "\n"
            << sweep.map.title << ", seed " << plan.seed << "\n\n"
            << markdown(sweep.map);
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
