#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/commands.h"
#include "cli/interrupt_notice.h"
#include "cli/option_checks.h"
#include "cli/progress_printer.h"
#include "common/error.h"
#include "engine/race.h"
#include "io/export_file.h"
#include "io/results_folder.h"
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
  bool force = false;
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
      if (v.empty()) {  // refused by sweepCells, which names the setting
        values.push_back(v);
        continue;
      }
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
// ("opevo q=0.1 lambda=8 repeat 2 ..."), or a line would not say which cell it is about. The sweep
// races one repeat at a time, each in an engine of its own: the lines count the whole sweep's runs
// and trials, and each repeat's trials are kept for the summary.
class RepeatObserver final : public EngineObserver {
 public:
  RepeatObserver(const SweepPlan& plan, ProgressPrinter* printer)
      : m_printer(printer), m_repeats(plan.repeats), m_trials(plan.budget.trials.value_or(0)) {
    const std::size_t inner = plan.axes.size() > 1 ? plan.axes[1].values.size() : 1;
    for (std::size_t i = 0; i < sweepCells(plan).size(); ++i) {
      std::vector<std::size_t> at = {i / inner};
      if (plan.axes.size() > 1) at.push_back(i % inner);
      m_names.push_back(plan.algorithm + " " + cellLabel(plan, at));
    }
  }
  void startRepeat(int repeat) { m_repeat = repeat; }

  void trialMeasured(const TrialEvent& trial, const EngineProgress& progress) override {
    if (!m_printer) return;
    TrialEvent named = trial;
    named.record.algorithm = nameOf(trial.record.run - 1);
    named.record.repeat = m_repeat;
    m_printer->trialMeasured(named, whole(progress));
  }
  void runEnded(const RunState& run, const EngineProgress& progress) override {
    if (!m_printer) return;
    RunState named = run;
    named.plan.algorithm = nameOf(run.index);
    named.plan.repeat = m_repeat;
    m_printer->runEnded(named, whole(progress));
  }

 private:
  // A repeat's engine counts its own runs and trials; the sweep's are those of the repeats done
  // before it and after it too (every repeat plans the same).
  EngineProgress whole(const EngineProgress& p) const {
    const auto cells = static_cast<int>(m_names.size());
    EngineProgress out = p;
    out.runs = cells * m_repeats;
    out.runsEnded = p.runsEnded + cells * m_repeat;
    const long long perRepeat = static_cast<long long>(cells) * m_trials;
    out.trialsDone = p.trialsDone + perRepeat * m_repeat;
    out.trialsPlanned = perRepeat * m_repeats;
    if (p.etaSeconds >= 0)
      out.etaSeconds = p.etaSeconds + (m_repeats - m_repeat - 1) * (p.seconds + p.etaSeconds);
    return out;
  }
  const std::string& nameOf(std::int64_t place) const {
    return m_names[static_cast<std::size_t>(place) % m_names.size()];
  }
  ProgressPrinter* m_printer;
  int m_repeats, m_trials;
  int m_repeat = 0;
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
    for (std::size_t c = 0; c < map.values[r].size(); ++c) {
      const std::optional<double>& v = map.values[r][c];
      const std::optional<double> error = heatError(map, r, c);
      text << " " << (v ? heatNumber(*v) : std::string("-"))
           << (v && error ? " \u00b1" + heatNumber(*error) : std::string())
           << (v && heatWithinNoise(map, r, c) ? " ~" : "") << " |";
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
  if (a.at && (*a.at < 1 || *a.at > a.trials))
    throw InputError("--at must be between 1 and --trials (" + std::to_string(a.trials) +
                     "), got " + std::to_string(*a.at));
  checkRepeatSeeds(plan.seed, plan.repeats);
  // Before anything runs, as compare: a rerun into the same folder replaced an earlier study's
  // files without a word. With --force they are replaced at the end, both or neither.
  if (!a.force)
    claimResultsFolder(a.out, {"sweep.csv", "heatmap.svg"}, false, "an earlier sweep's results");
  auto dataset = std::make_shared<const ReplayDataset>(loadReplayDataset(a.space));
  ProgressPrinter printer(dataset->speedUnit, ProgressPrinter::Lines::PerRun,
                          isatty(STDERR_FILENO));
  RepeatObserver observer(plan, a.quiet ? nullptr : &printer);
  if (!a.quiet)
    std::fprintf(stderr, "%zu cells x %d repeats of %d trials on %s\n", sweepCells(plan).size(),
                 plan.repeats, a.trials, a.space.c_str());
  // Ctrl-C, SIGTERM or SIGHUP ends the repeat in hand; the repeats every cell completed are
  // summarized and written, as compare writes the trials it ran (the default action wrote nothing).
  SweepControl control;
  const std::string nothing = "the sweep was stopped; nothing was written";
  InterruptNotice notice(nothing);
  notice.rearm(nothing, &control.stop,
               "stopping: the repeats every cell completed will be summarized and written");
  ReplaySweep first;  // what measured, from the first repeat
  const SweepTrials done = raceSweepByRepeats(
      plan, [&](const SweepPlan& one, int repeat) -> std::optional<std::vector<TrialRecord>> {
        if (control.stop) return std::nullopt;
        observer.startRepeat(repeat);
        ReplaySweep sweep = runReplaySweep(dataset, one, &observer, &control);
        if (!sweep.failure.empty()) throw RunFailed(sweep.failure);
        if (sweep.stopped) return std::nullopt;
        std::vector<TrialRecord> trials = std::move(sweep.trials);
        if (repeat == 0) first = std::move(sweep);
        return trials;
      });
  printer.finish();
  if (done.repeatsDone == 0)
    throw Interrupted("stopped before every cell had run one repeat: nothing was written");
  // While the files are written a signal says so and lets them be written, as compare's does; one
  // more ends the program at once, which can leave one file without the other, or a .partial one
  // (the writing is all or none only when it runs to its end): the message says so, not "nothing".
  std::atomic<bool> writing{false};
  const std::string files = "sweep.csv and heatmap.svg in " + a.out;
  notice.rearm(
      "the sweep was stopped while writing " + files +
          ": either may be missing or still the earlier one, and a .partial file may be left there",
      &writing, "writing " + files);

  SweepFacts facts{first.optimum, first.speedUnit, dataset->table.size()};
  facts.dataset = sweepDatasetName(a.space);
  facts.completeness = completenessName(dataset->completeness);
  const SweepResult result =
      sweepResult(plan, done.trials, done.repeatsDone, a.at.value_or(a.trials), facts);
  facts.dataset = a.space;  // sweep.csv names the file as it was given
  // Both files or neither, each whole: a full disk once left sweep.csv cut short.
  writeExportFolder(a.out, {{"sweep.csv", sweepCsv(plan, result.cells, facts, done.repeatsDone)},
                            {"heatmap.svg", heatMapSvg(result.map)}});
  notice.rearm("the sweep was stopped; " + files + " are written");  // only the table is left
  std::cout << "Replay of real measurements: " << first.measuredBy << "\n"
            << result.map.title << ", seed " << plan.seed << " ("
            << repeatSeedsText(plan.seed, plan.repeats) << ")\n\n"
            << markdown(result.map);
  if (const std::string noise = heatNoiseLegend(result.map); !noise.empty())
    std::cout << "\n" << noise << "; ~ in the table\n";
  std::cout << "\n"
            << (dataset->complete ? "optimum" : "no fraction of optimum") << ": "
            << dataset->completenessNote << "\n";
  for (const std::string& note : result.notes) std::cout << "\nnote: " << note << "\n";
  if (!a.quiet)
    std::fprintf(stderr, "wrote %s/sweep.csv and %s/heatmap.svg\n", a.out.c_str(), a.out.c_str());
  if (done.stopped)
    throw Interrupted("stopped after " + std::to_string(done.repeatsDone) + " of " +
                      std::to_string(plan.repeats) +
                      " repeats: the table, sweep.csv and heatmap.svg cover the repeats every "
                      "cell completed");
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
  cmd->add_option("--repeats", a->repeats, "Runs per cell (default 10, at most 1000)")
      ->check(wholeIn(1, 1000));
  cmd->add_option("--trials", a->trials, "Trials per run (default 100)");
  cmd->add_option("--at", a->at, "The budget the table and heat map show (default --trials)");
  cmd->add_option("--seed", a->seed,
                  "Seed of repeat 1; repeats 1..n use seeds seed..seed+n-1 (repeat r: seed + r - "
                  "1), the same in every cell, at most 2^64 - 1 (default 1)");
  cmd->add_option("--out", a->out, "Directory for sweep.csv and heatmap.svg")->required();
  cmd->add_flag("--quiet", a->quiet, "No progress on standard error");
  cmd->add_flag("--force", a->force,
                "Replace the sweep.csv and heatmap.svg an earlier sweep left in --out");
  cmd->callback([a] { runSweepCommand(*a); });
}

}  // namespace opevo::cli
