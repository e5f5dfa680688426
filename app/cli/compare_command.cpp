#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

#include "backends/backend_factory.h"
#include "backends/run_context.h"
#include "cli/cluster_cli.h"
#include "cli/commands.h"
#include "cli/interrupt_notice.h"
#include "cli/option_checks.h"
#include "cli/progress_printer.h"
#include "common/error.h"
#include "engine/device_time.h"
#include "engine/engine.h"
#include "engine/race.h"
#include "engine/race_summary.h"
#include "engine/store_recorder.h"
#include "engine/trials_csv_writer.h"
#include "io/replay_dataset.h"
#include "io/results_folder.h"
#include "layout/tuning_mode.h"
#include "ops/presets.h"
#include "replay/replay_measurer.h"
#include "space/text.h"
#include "store/store.h"
#include "tuners/registry.h"

namespace opevo::cli {
namespace {

struct CompareArgs {
  std::string space;
  std::string algos = tunerRegistry().defaultTuner().name + ",opevo";
  int repeats = 5;
  int trials = 400;
  bool trialsGiven = false;  // --trials on the command line, not its default
  // Device time per run by the file (budgetClock: a replay's time budget counts device time).
  std::optional<double> seconds;
  std::uint64_t seed = 1;
  std::string out;
  bool force = false;
  std::string db;  // empty: the race is not stored
  std::optional<std::size_t> batch;
  std::vector<std::string> settings;
  std::string schedule = "round-robin";
  bool quiet = false;
  ClusterChoice cluster;
};

// The race a stop signal stops (Ctrl-C, SIGTERM, SIGHUP: InterruptNotice): each run ends after
// its trial in hand, and what was run is summarized and written (the default action ended the
// program with no summary.json; a SIGHUP still did, leaving a stored race "running").
std::atomic<Engine*> g_engine{nullptr};
std::atomic<bool> g_interrupted{false};

void onInterrupt() {
  // Only sets flags: the engine commits the trials in hand and stops.
  g_interrupted = true;
  if (Engine* e = g_engine.load()) e->stopFromSignal();
  cancelClusterFromSignal();
}

// What a race writes into --out. trials.csv.partial holds the trials while the race runs; it is
// renamed trials.csv once summary.json is written, so a folder whose race was killed says so.
const char* const kTrialsCsv = "trials.csv";
const char* const kPartialCsv = "trials.csv.partial";
const char* const kSummaryJson = "summary.json";

// "opevo.q=0.6" -> settings["opevo"]["q"] = "0.6"
void parseSetting(const std::string& text,
                  std::map<std::string, std::map<std::string, std::string>>& out) {
  const auto dot = text.find('.');
  const auto eq = text.find('=');
  if (dot == std::string::npos || eq == std::string::npos || dot > eq || dot == 0 || eq == dot + 1)
    throw InputError("--set '" + text +
                     "' is not of the form algorithm.setting=value (e.g. opevo.q=0.6)");
  out[text.substr(0, dot)][text.substr(dot + 1, eq - dot - 1)] = text.substr(eq + 1);
}

// The race's time to solution on the device, as the file's measurements would have cost it
// (trials.csv's device_seconds), with what measuring the whole file once took for scale, and what
// is charged for a trial.
void printDeviceTime(const std::vector<SummaryRow>& summary, const ReplayDataset& dataset) {
  std::cout << "\nDevice time, in seconds, mean over the repeats: what the runs' measurements took "
               "by the file (measuring all its "
            << dataset.table.size() << " configurations once took "
            << deviceTimeText(dataset.deviceSeconds) << ")\n\n"
            << deviceTimeMarkdown(summary) << "\ndevice time: " << dataset.deviceTimeNote << "\n";
}

// "400 trials", "600 s of device time by the file", or both, "whichever ends a run first".
std::string raceBudgetText(const Budget& budget) {
  const std::string time =
      budget.seconds ? deviceTimeText(*budget.seconds) + " of device time by the file" : "";
  if (!budget.trials) return time;
  const std::string trials = counted(*budget.trials, "trial", "trials");
  return time.empty() ? trials : trials + " or " + time + ", whichever ends a run first";
}

// How many runs their device time ended, and how many trials it bought them: the figure to read
// the table's rows by (their trials are the longest run's).
std::string timeBudgetEnds(const Engine& engine) {
  int ended = 0, fewest = 0, most = 0;
  for (const RunState& r : engine.runs()) {
    if (r.end != EndReason::Time) continue;
    fewest = ended == 0 ? r.trials : std::min(fewest, r.trials);
    most = std::max(most, r.trials);
    ++ended;
  }
  const std::string runs = std::to_string(ended) + " of " + std::to_string(engine.runs().size()) +
                           " runs ended on their device time";
  if (ended == 0) return runs + "\n";
  return runs + ", after " +
         (fewest == most ? std::to_string(most) + " trials"
                         : std::to_string(fewest) + " to " + std::to_string(most) + " trials") +
         "\n";
}

void runCompareCommand(const CompareArgs& a) {
  RacePlan plan;
  std::map<std::string, std::map<std::string, std::string>> settings;
  for (const std::string& s : a.settings) parseSetting(s, settings);
  for (const std::string& name : splitList(a.algos, ','))
    if (!name.empty()) {
      for (const AlgorithmChoice& c : plan.algorithms)
        if (c.name == name)
          throw InputError("--algos names " + name + " twice (give --repeats for more runs)");
      plan.algorithms.push_back({name, settings[name]});
    }
  for (const auto& [algorithm, values] : settings)
    if (std::none_of(plan.algorithms.begin(), plan.algorithms.end(),
                     [&](const AlgorithmChoice& c) { return c.name == algorithm; }))
      throw InputError("a setting names algorithm '" + algorithm + "', which is not in --algos");
  if (a.trials < 1)
    throw InputError("--trials must be at least 1, got " + std::to_string(a.trials));
  if (a.batch && *a.batch == 0) throw InputError("--batch must be at least 1, got 0");
  plan.repeats = a.repeats;
  // --seconds alone: the device time ends each run, not the default 400 trials as well.
  if (!a.seconds || a.trialsGiven) plan.budget.trials = a.trials;
  plan.budget.seconds = a.seconds;
  plan.seed = a.seed;
  plan.batch = a.batch;
  checkRepeatSeeds(plan.seed, plan.repeats);  // before the dataset is read
  const auto schedule = scheduleNames().parse(a.schedule);
  if (!schedule)
    throw InputError("--schedule '" + a.schedule + "' is not one of " + scheduleNames().list());

  if (isPreset(a.space))
    throw InputError("--space " + a.space +
                     " is an operator preset; comparing on it needs a measurement backend, which "
                     "this command does not take yet: give a measured dataset file instead (e.g. "
                     "a Kernel Tuner cache or T4 file)");
  // Before the dataset is read: a rerun into the same folder once replaced an earlier race's
  // results without a word.
  const std::filesystem::path out(a.out);
  const std::vector<std::string> results{kTrialsCsv, kSummaryJson, kPartialCsv};
  const std::string earlier = "an earlier race's results";
  if (!a.force) claimResultsFolder(out, results, false, earlier);
  auto dataset = std::make_shared<const ReplayDataset>(loadReplayDataset(a.space));
  BackendOptions backendOptions;
  backendOptions.cluster = openClusterSession(a.cluster, a.quiet);
  const MeasurementSetup setup = replayMeasurement(dataset, backendOptions);
  Measurer& measurer = *setup.measurer;
  const std::optional<double> optimum =
      dataset->complete ? std::optional<double>(dataset->bestSpeed) : std::nullopt;

  EngineOptions options;
  options.schedule = *schedule;
  options.scheduleSeed = a.seed;
  Engine engine(dataset->space, measurer, options);
  addRace(engine, plan);  // every name and setting checked before anything is written
  // --force removes the earlier results only now: a refused command (a misspelt algorithm) once
  // deleted them and then ran nothing.
  if (a.force) claimResultsFolder(out, results, true, earlier);

  // Opened before anything is written into --out: a --db that is not a database once left a
  // trials.csv.partial there that refused the next run into the folder.
  std::unique_ptr<Store> store;
  if (!a.db.empty()) store = std::make_unique<Store>(a.db);
  // Made before any run is stored: a folder that cannot hold it leaves no run "running".
  TrialsCsvWriter csv((out / kPartialCsv).string(),
                      layout::runModeName(runContextOf(setup).operatorJson));
  TrialLog log;
  ProgressPrinter printer(dataset->speedUnit, ProgressPrinter::Lines::PerRun,
                          isatty(STDERR_FILENO));
  // Stored as the window stores a race (StoreRecorder): a row per run with its race, algorithm
  // and repeat, each trial committed as it is measured, so History draws it as a race.
  std::optional<StoreRecorder> recorder;
  if (store) {
    recorder.emplace(*store, engine, runContextOf(setup));
    engine.addObserver(*recorder);  // first: a trial is committed before anyone hears of it
    recorder->createRuns();
  }
  engine.addObserver(csv);
  engine.addObserver(log);
  if (!a.quiet) {
    engine.addObserver(printer);
    std::fprintf(stderr, "%s\n%zu configurations, best %.6g %s; %zu runs interleaved (%s)\n",
                 measurer.label().c_str(), dataset->table.size(), dataset->bestSpeed,
                 dataset->speedUnit.c_str(), engine.runs().size(), a.schedule.c_str());
    if (recorder) {
      const std::string first = std::to_string(engine.runs().front().storeId);
      const std::string what =
          recorder->raceId() ? "race " + std::to_string(recorder->raceId()) + " (runs " + first +
                                   "-" + std::to_string(engine.runs().back().storeId) + ")"
                             : "run " + first;
      std::fprintf(stderr, "storing %s in %s\n", what.c_str(), store->path().c_str());
    }
    if (!dataset->complete)
      std::fprintf(stderr,
                   "note: %s: %s; the race stays within its %zu configurations, and no fraction "
                   "of optimum is given\n",
                   a.space.c_str(), dataset->completenessNote.c_str(), dataset->table.size());
  }
  const std::string partial = (out / kPartialCsv).string();
  const std::string stopped = "the race was stopped; " + partial + " holds every trial run";
  InterruptNotice notice(stopped);
  {
    // The first signal stops the race after the trials in hand; a second drops them.
    std::vector<std::int64_t> stored;
    if (recorder)
      for (const RunState& r : engine.runs()) stored.push_back(r.storeId);
    g_engine = &engine;
    notice.rearm(stopped + (recorder ? "; its stored runs read stopped (resumable)" : ""),
                 onInterrupt,
                 firstStopText(a.cluster, "stopping after the trials in hand") +
                     ", then writing the summary (Ctrl-C again to end now)",
                 [db = recorder ? store->path() : std::string(), stored] {
                   storeAbandonedRunsStopped(db, stored);
                 });
    struct Handed {
      ~Handed() { g_engine = nullptr; }
    } handed;
    engine.run();
  }
  // While the summary is written a signal (the user's second Ctrl-C, often) says what is being
  // done and lets it finish; one more ends the program at once.
  std::atomic<bool> writing{false};
  notice.rearm(stopped, &writing, "writing the summary of the trials run");
  printer.finish();
  if (!engine.failure().empty()) throw RunFailed(engine.failure());
  const bool interrupted = g_interrupted.load();

  std::vector<std::string> names;
  for (const AlgorithmChoice& c : plan.algorithms) names.push_back(c.name);
  // A time budget alone: the rows go up to the longest run's trials.
  int longest = 1;
  for (const RunState& r : engine.runs()) longest = std::max(longest, r.trials);
  const std::vector<SummaryRow> summary =
      summarize(log.trials(), names, summaryBudgets(plan.budget.trials.value_or(longest)), optimum);
  SummaryProvenance provenance;
  provenance.measuredBy = measurer.label();
  provenance.speedUnit = dataset->speedUnit;
  provenance.dataset = a.space;
  provenance.completeness = completenessName(dataset->completeness);
  provenance.optimum = optimum;
  provenance.seed = plan.seed;
  provenance.repeats = plan.repeats;
  provenance.trialsPerRun = plan.budget.trials;
  provenance.deviceSecondsPerRun = plan.budget.seconds;
  provenance.schedule = a.schedule;
  provenance.batch = a.batch;
  provenance.deviceTime = dataset->deviceTimeNote;
  provenance.datasetDeviceSeconds = dataset->deviceSeconds;
  provenance.trialsRun = log.trials().size();
  provenance.stoppedEarly = interrupted;
  writeSummaryJson((out / kSummaryJson).string(), summary, provenance);
  publishResult(out / kPartialCsv, out / kTrialsCsv);  // last: trials.csv means the race ended
  std::cout << "Replay of real measurements: " << measurer.label() << "\n"
            << counted(plan.repeats, "repeat", "repeats") << ", " << raceBudgetText(plan.budget)
            << ", seed " << plan.seed << " (" << repeatSeedsText(plan.seed, plan.repeats) << ")\n";
  if (plan.budget.seconds) std::cout << timeBudgetEnds(engine);
  std::cout << "\n" << summaryMarkdown(summary, dataset->speedUnit);
  // What the fraction of optimum rests on, or why there is none, under the table it concerns.
  std::cout << "\n"
            << (dataset->complete ? "optimum" : "no fraction of optimum") << ": "
            << dataset->completenessNote << "\n";
  for (const SharedStart& s : sharedStarts(log.trials(), names)) {
    std::string who;
    for (std::size_t i = 0; i < s.algorithms.size(); ++i)
      who += (i == 0 ? "" : i + 1 == s.algorithms.size() ? " and " : ", ") + s.algorithms[i];
    std::cout << "\nnote: " << who << " proposed the same first " << s.trials
              << " trials in every repeat: each draws its random start from the repeat's seed "
                 "(every algorithm meets the same luck), so their rows agree at budgets within "
                 "that start\n";
  }
  printDeviceTime(summary, *dataset);
  if (!a.quiet)
    std::fprintf(stderr, "wrote %s/trials.csv and %s/summary.json\n", a.out.c_str(), a.out.c_str());
  if (interrupted)
    throw Interrupted(
        "stopped after " + counted(static_cast<long long>(log.trials().size()), "trial", "trials") +
        (plan.budget.trials
             ? " of " + std::to_string(*plan.budget.trials * plan.repeats * plan.algorithms.size())
             : std::string()) +
        ": the table covers the trials run (a run cut short counts its best so far)");
}

}  // namespace

void addCompareCommand(CLI::App& app) {
  auto a = std::make_shared<CompareArgs>();
  auto* cmd =
      app.add_subcommand("compare", "Race tuning algorithms on a measured dataset (replay)");
  cmd->add_option("--space", a->space, "A measured dataset file (Kernel Tuner cache or T4)")
      ->required();
  cmd->add_option("--algos", a->algos,
                  "Comma-separated algorithms, e.g. opevo,autotvm,random (default: " + a->algos +
                      ", the default algorithm against the paper's OpEvo)");
  // Every run of a race is held in memory from its start: 10^8 repeats took 3 GB in 15 s, silent.
  cmd->add_option("--repeats", a->repeats, "Runs per algorithm (default 5, at most 1000)")
      ->check(wholeIn(1, 1000));
  CLI::Option* trials = cmd->add_option(
      "--trials", a->trials,
      "Trials per run (default 400; with --seconds, none unless given: the time ends each run)");
  cmd->add_option("--seconds", a->seconds,
                  "Device time per run, by the file: what its trials cost the device that "
                  "measured it (compile, benchmark and verification, as Kernel Tuner's "
                  "simulation mode charges its time limit), the same on every machine. Each run "
                  "ends on the trial that reaches it")
      ->check(positiveFinite());
  cmd->add_option("--seed", a->seed,
                  "Seed of repeat 1; repeats 1..n use seeds seed..seed+n-1 (repeat r: seed + r - "
                  "1), at most 2^64 - 1 (default 1)");
  cmd->add_option("--out", a->out,
                  "Directory for trials.csv and summary.json: new, or holding no earlier race's "
                  "results (see --force). While the race runs its trials are in "
                  "trials.csv.partial, renamed trials.csv once summary.json is written")
      ->required();
  cmd->add_flag("--force", a->force,
                "Replace an earlier race's trials.csv, summary.json and trials.csv.partial in "
                "--out (refused without it)");
  cmd->add_option("--db", a->db,
                  "Also store the race's runs in this database, as the window stores a race (its "
                  "History draws them); without it nothing is stored");
  cmd->add_option("--batch", a->batch, "Configurations per batch (default: each algorithm's own)");
  cmd->add_option("--set", a->settings, "A tuner setting, algorithm.setting=value (repeatable)");
  cmd->add_option("--schedule", a->schedule,
                  "How the runs take turns on the measurer, batch by batch: round-robin (default) "
                  "or shuffle (a seeded random order each round)");
  addClusterOptions(cmd, a->cluster, false);
  cmd->add_flag("--quiet", a->quiet, "No progress on standard error");
  cmd->callback([a, trials] {
    a->trialsGiven = trials->count() > 0;
    runCompareCommand(*a);
  });
}

}  // namespace opevo::cli
