#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "common/error.h"
#include "engine/compare.h"
#include "engine/compare_report.h"
#include "io/replay_dataset.h"
#include "ops/presets.h"
#include "replay/replay_measurer.h"
#include "space/text.h"

namespace opevo::cli {
namespace {

struct CompareArgs {
  std::string space;
  std::string algos;
  int repeats = 5;
  int trials = 400;
  std::uint64_t seed = 1;
  std::string out;
  std::optional<std::size_t> batch;
  std::vector<std::string> settings;
  bool quiet = false;
};

// "opevo.q=0.6" -> settings["opevo"]["q"] = "0.6"
void parseSetting(const std::string& text, CompareOptions& options) {
  const auto dot = text.find('.');
  const auto eq = text.find('=');
  if (dot == std::string::npos || eq == std::string::npos || dot > eq || dot == 0 || eq == dot + 1)
    throw InputError("--set '" + text + "' is not of the form algorithm.setting=value (e.g. opevo.q=0.6)");
  options.settings[text.substr(0, dot)][text.substr(dot + 1, eq - dot - 1)] = text.substr(eq + 1);
}

void runCompareCommand(const CompareArgs& a) {
  CompareOptions options;
  for (const std::string& name : splitList(a.algos, ','))
    if (!name.empty()) options.algorithms.push_back(name);
  options.repeats = a.repeats;
  options.trials = a.trials;
  options.seed = a.seed;
  options.batch = a.batch;
  for (const std::string& s : a.settings) parseSetting(s, options);

  if (isPreset(a.space))
    throw InputError("--space " + a.space +
                     " is an operator preset; comparing on it needs a measurement backend, which "
                     "this command does not take yet: give a measured dataset file instead (e.g. "
                     "a Kernel Tuner cache or T4 file)");
  auto dataset = std::make_shared<const ReplayDataset>(loadReplayDataset(a.space));
  ReplayMeasurer measurer(dataset);
  const std::optional<double> optimum =
      dataset->complete ? std::optional<double>(dataset->bestSpeed) : std::nullopt;

  const bool tty = isatty(STDERR_FILENO);
  if (!a.quiet)
    std::fprintf(stderr, "%s\n%zu configurations, best %.6g %s\n", measurer.label().c_str(),
                 dataset->table.size(), dataset->bestSpeed, dataset->speedUnit.c_str());
  auto progress = [&](const CompareProgress& p) {
    if (a.quiet) return;
    const bool last = p.trial >= p.trials;
    if (!tty && !last) return;
    std::fprintf(stderr, "%s%-10s repeat %d/%d  trial %4d/%d  best %.6g %s%s", tty ? "\r" : "",
                 p.algorithm.c_str(), p.repeat, p.repeats, p.trial, p.trials, p.best,
                 dataset->speedUnit.c_str(), tty && !last ? "" : "\n");
  };
  const CompareResult result = runCompare(dataset->space, measurer, options, optimum, progress);
  writeCompareFiles(a.out, dataset->space, result, measurer.label(), dataset->speedUnit);
  std::cout << "Replay of real measurements: " << measurer.label() << "\n"
            << options.repeats << " repeats, " << options.trials << " trials, seed " << options.seed
            << "\n\n"
            << summaryMarkdown(result, dataset->speedUnit);
  if (!a.quiet) std::fprintf(stderr, "wrote %s/trials.csv and %s/summary.json\n", a.out.c_str(), a.out.c_str());
}

}  // namespace

void addCompareCommand(CLI::App& app) {
  auto a = std::make_shared<CompareArgs>();
  auto* cmd = app.add_subcommand("compare", "Race tuning algorithms on a measured dataset (replay)");
  cmd->add_option("--space", a->space, "A measured dataset file (Kernel Tuner cache or T4)")->required();
  cmd->add_option("--algos", a->algos, "Comma-separated algorithms, e.g. opevo,autotvm,random")->required();
  cmd->add_option("--repeats", a->repeats, "Runs per algorithm (default 5)");
  cmd->add_option("--trials", a->trials, "Trials per run (default 400)");
  cmd->add_option("--seed", a->seed, "Seed of the first repeat; repeat r uses seed + r (default 1)");
  cmd->add_option("--out", a->out, "Directory for trials.csv and summary.json")->required();
  cmd->add_option("--batch", a->batch, "Configurations per batch (default: each algorithm's own)");
  cmd->add_option("--set", a->settings, "A tuner setting, algorithm.setting=value (repeatable)");
  cmd->add_flag("--quiet", a->quiet, "No progress on standard error");
  cmd->callback([a] { runCompareCommand(*a); });
}

}  // namespace opevo::cli
