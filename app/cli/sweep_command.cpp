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
#include "engine/race.h"
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

// "q=0.1,0.3,0.5" is an axis; "lambda=8" (one value) is fixed in every cell. Every value must be
// a decimal number, as the tuners' settings read them (parseNumber): a value they would refuse
// only once the dataset is read, or two texts of one number ("0.1,0.10"), are refused here.
void parseSettings(const std::vector<std::string>& texts, SweepPlan& plan) {
  for (const std::string& text : texts) {
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
      throw InputError("--set '" + text +
                       "' is not of the form setting=value[,value...] (e.g. "
                       "q=0.1,0.3,0.5)");
    const std::string name = settingOf(text.substr(0, eq), plan.algorithm);
    std::vector<std::string> values;
    std::vector<double> numbers;
    for (const std::string& v : splitList(text.substr(eq + 1), ',')) {
      if (v.empty()) continue;
      double x = 0;
      if (!parseNumber(v, x))
        throw InputError("--set '" + text + "': '" + v + "' is not a decimal number");
      if (std::find(numbers.begin(), numbers.end(), x) != numbers.end())
        throw InputError("--set '" + text + "' lists the value " + formatNumber(x) + " twice");
      numbers.push_back(x);
      values.push_back(v);
    }
    if (values.size() == 1 && !plan.fixed.emplace(name, values.front()).second)
      throw InputError("the setting '" + name + "' is given twice");
    if (values.size() > 1) plan.axes.push_back({name, values});
  }
}

// The runs of a sweep share one algorithm; its progress names each run's cell as well
// ("opevo q=0.1 lambda=8 repeat 2 ..."), or a line would not say which cell it is about.
class CellProgress final : public EngineObserver {
 public:
  CellProgress(const SweepPlan& plan, ProgressPrinter& printer) : m_printer(printer) {
    const std::size_t inner = plan.axes.size() > 1 ? plan.axes[1].values.size() : 1;
    for (std::size_t i = 0; i < sweepCells(plan).size(); ++i) {
      std::vector<std::size_t> at = {i / inner};
      if (plan.axes.size() > 1) at.push_back(i % inner);
      m_names.push_back(plan.algorithm + " " + cellLabel(plan, at));
    }
  }
  void trialMeasured(const TrialEvent& trial, const EngineProgress& progress) override {
    TrialEvent named = trial;
    named.record.algorithm = nameOf(trial.record.run - 1);
    m_printer.trialMeasured(named, progress);
  }
  void runEnded(const RunState& run, const EngineProgress& progress) override {
    RunState named = run;
    named.plan.algorithm = nameOf(run.index);
    m_printer.runEnded(named, progress);
  }

 private:
  // sweepRace adds the runs repeat by repeat, the cells in order within each.
  const std::string& nameOf(std::int64_t place) const {
    return m_names[static_cast<std::size_t>(place) % m_names.size()];
  }
  ProgressPrinter& m_printer;
  std::vector<std::string> m_names;
};

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
  checkRepeatSeeds(plan.seed, plan.repeats);
  auto dataset = std::make_shared<const ReplayDataset>(loadReplayDataset(a.space));
  ProgressPrinter printer(dataset->speedUnit, ProgressPrinter::Lines::PerRun,
                          isatty(STDERR_FILENO));
  CellProgress progress(plan, printer);
  if (!a.quiet)
    std::fprintf(stderr, "%zu cells x %d repeats of %d trials on %s\n", sweepCells(plan).size(),
                 plan.repeats, a.trials, a.space.c_str());
  const ReplaySweep sweep =
      runReplaySweep(dataset, plan, a.at.value_or(a.trials), a.quiet ? nullptr : &progress);
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
                  "every cell, named in the table's title and a column of sweep.csv (repeatable)")
      ->required();
  cmd->add_option("--repeats", a->repeats, "Runs per cell (default 10)");
  cmd->add_option("--trials", a->trials, "Trials per run (default 100)");
  cmd->add_option("--at", a->at, "The budget the table and heat map show (default --trials)");
  cmd->add_option("--seed", a->seed,
                  "Seed of the first repeat; repeat r uses seed + r, at most 2^64 - 1");
  cmd->add_option("--out", a->out, "Directory for sweep.csv and heatmap.svg")->required();
  cmd->add_flag("--quiet", a->quiet, "No progress on standard error");
  cmd->callback([a] { runSweepCommand(*a); });
}

}  // namespace opevo::cli
