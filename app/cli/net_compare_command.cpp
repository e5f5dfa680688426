// opevo net compare: schedulers x algorithms x repeats on one network, their units interleaved
// (one unit of each in turn), each tuned network then run end to end, and each mode's untuned
// network after them to read them against; the estimate curves and
// the end-to-end results written for plotting (the OpEvo paper's Figure 6). A stop signal ends the
// tuning and still runs and summarizes what was tuned.

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "backends/backend_factory.h"
#include "cli/commands.h"
#include "cli/interrupt_notice.h"
#include "cli/net_cli.h"
#include "cli/option_checks.h"
#include "common/error.h"
#include "engine/race.h"
#include "io/output_folder.h"
#include "io/results_folder.h"
#include "net/network_session.h"
#include "net/network_tuning.h"
#include "net/untuned_configs.h"
#include "ops/presets.h"
#include "space/text.h"
#include "tuners/registry.h"

namespace opevo::cli {
namespace {

struct NetCompareOptions {
  std::string network;
  std::vector<std::string> params;
  std::string algos = tunerRegistry().defaultTuner().name + ",autotvm";
  std::string schedulers = "gradient,round-robin";
  std::string modes = "joint";
  int repeats = 1;
  int trials = 0;
  std::size_t unit = 4;
  std::uint64_t seed = 1;
  std::string out;
  int runs = 10;
  bool reference = true;
  bool untunedRun = true;  // each mode's untuned network end to end, after the contenders
  net::TorchForm torchForm = net::TorchForm::Eager;
  bool force = false;
};

// One combination: its tasks' measurements (workers), its tuning.
struct Contender {
  std::string algorithm;
  net::SchedulerKind scheduler;
  layout::TuningMode mode = layout::TuningMode::Loop;
  int repeat = 0;
  std::vector<MeasurementSetup> setups;
  std::unique_ptr<net::NetworkTuning> tuning;
  bool done = false;
};

// What a stop signal (Ctrl-C, SIGTERM, SIGHUP: InterruptNotice) stops: while tuning, every
// contender after its trials in hand, each then run end to end as tuned so far; during the
// end-to-end runs, the rest after the run in hand. One notice is armed for the whole command, so
// that no signal falls between two stretches; the stretch decides what the first one does, and
// the second one always ends the program. (The default action ended it with no summary.json.)
enum class Stretch : int { Tuning, EndToEnd, Summary };
std::atomic<int> g_stretch{static_cast<int>(Stretch::Tuning)};
std::atomic<std::vector<Contender>*> g_contenders{nullptr};
std::atomic<bool> g_tuningStopped{false};
std::atomic<bool> g_endToEndStopped{false};

void onInterrupt() {
  // Only sets flags and writes (each tuning ends its trials in hand and stops).
  switch (static_cast<Stretch>(g_stretch.load())) {
    case Stretch::Tuning:
      g_tuningStopped = true;
      if (std::vector<Contender>* all = g_contenders.load())
        for (Contender& c : *all) c.tuning->stopFromSignal();
      return sayFromSignal(
          "stopping every contender after its trials in hand, then running each end to end as "
          "tuned so far (Ctrl-C again to end now)");
    case Stretch::EndToEnd:
      g_endToEndStopped = true;
      return sayFromSignal(
          "stopping after the run in hand (libtorch's reference, a contender's network or an "
          "untuned one), then writing summary.json of the networks run (Ctrl-C again to end "
          "now)");
    case Stretch::Summary:
      return sayFromSignal("writing summary.json (Ctrl-C again to end now)");
  }
}

// A message on one line, for a table cell (a compiler's log spans several).
std::string oneLine(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  std::replace(text.begin(), text.end(), '|', '/');
  return text;
}

// A network's end-to-end figures in summary.json, a contender's and an untuned one's alike.
void addEndToEnd(nlohmann::json& r, const net::EndToEnd& e) {
  r["conversions_ms"] = e.convertMs;
  r["conversion_steps"] = std::count_if(e.steps.begin(), e.steps.end(), [](const auto& step) {
    return step.kind == net::StepKind::Convert;
  });
  r["adopted_layouts"] = e.adoptedLayouts;
  r["end_to_end_ms"] = e.ms;
  r["verified"] = e.verified;
  r["reference"] = net::referenceJson(e);
}

// The table's last five cells of a row (conversions ms to verified), from those figures.
std::string endToEndCells(const nlohmann::json& r, const net::EndToEnd& e) {
  return msText(e.convertMs) + " | " + std::to_string(r["conversion_steps"].get<long long>()) +
         " | " + msText(e.ms) + " | " +
         (e.reference.best ? msText(e.reference.best->ms) : std::string("-")) + " | " +
         (e.reference.best ? (e.verified ? "yes" : "NO") : "no reference");
}

void runCompare(const NetCompareOptions& o) {
  if (o.trials < 1) throw InputError("give a budget of at least 1 trial: --trials N");
  if (o.repeats < 1) throw InputError("--repeats must be at least 1");
  checkRepeatSeeds(o.seed, o.repeats);  // repeat r uses seed + r - 1, as every race does
  const net::ParamOverrides params = paramOverrides(o.params);
  const net::Network n = net::loadNetwork(o.network, params);
  net::requireEveryLayerRead(n, o.network);  // a file given now, not a stored run
  const net::TaskGraph g = net::extractTasks(n);
  std::vector<std::string> algos, schedulers;
  for (const std::string& a : splitList(o.algos, ','))
    if (!a.empty()) {
      if (!tunerRegistry().find(a))
        throw InputError("unknown algorithm '" + a + "' (opevo tuners lists them)");
      algos.push_back(a);
    }
  for (const std::string& s : splitList(o.schedulers, ','))
    if (!s.empty()) schedulers.push_back(s);
  std::vector<layout::TuningMode> modes;
  for (const std::string& text : splitList(o.modes, ','))
    if (!text.empty()) modes.push_back(layout::parseTuningMode(text, "--modes"));
  if (algos.empty()) throw InputError("--algos names no algorithm (opevo tuners lists them)");
  if (schedulers.empty())
    throw InputError("--schedulers names no scheduler (gradient, round-robin or topological)");
  if (modes.empty()) throw InputError("--modes names no mode (loop, joint or joint-np)");
  // A name twice would race a contender against itself under two rows that read the same.
  const auto once = [](const std::vector<std::string>& names, const char* option) {
    for (std::size_t i = 0; i < names.size(); ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (names[i] == names[j])
          throw InputError(std::string(option) + " names " + names[i] +
                           " twice (--repeats races each contender more than once)");
  };
  once(algos, "--algos");
  once(schedulers, "--schedulers");
  for (std::size_t i = 0; i < modes.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (modes[i] == modes[j])
        throw InputError("--modes names " + std::string(layout::tuningModeName(modes[i])) +
                         " twice");
  std::vector<Contender> all;
  for (int r = 0; r < o.repeats; ++r)
    for (const layout::TuningMode mode : modes)
      for (const std::string& s : schedulers)
        for (const std::string& a : algos) {
          // Repeats are counted from 1 in what is printed, as `opevo compare` and the window count
          // them.
          Contender c{a, net::parseSchedulerKind(s), mode, r + 1, {}, nullptr, false};
          net::NetworkTuningPlan plan;
          std::vector<net::TaskMeasurement> m;
          for (const net::Task& t : g.tasks) {
            c.setups.push_back(makeOperatorMeasurement("cpu", net::taskDefinition(t, mode),
                                                       net::taskMeasuringOptions({}, plan, t)));
            m.push_back({c.setups.back().space, c.setups.back().measurer.get()});
          }
          plan.algorithm = a;
          plan.seed = o.seed + static_cast<std::uint64_t>(r);
          plan.trials = o.trials;
          plan.unit = o.unit;
          plan.scheduler = c.scheduler;
          plan.mode = mode;
          c.tuning = std::make_unique<net::NetworkTuning>(g, std::move(m), plan);
          all.push_back(std::move(c));
        }
  const std::filesystem::path out(o.out);
  createOutputFolder(out);
  // A rerun into the same folder must not leave the earlier summary beside its own curve.
  claimResultsFolder(out, {"curve.csv", "summary.json", "summary.json.partial"}, o.force,
                     "an earlier comparison's results");
  std::ofstream curve(out / "curve.csv");
  curve << "algorithm,scheduler,mode,repeat,unit,trials,task,estimate_ms\n";
  auto label = [](const Contender& c) {
    return c.algorithm + "/" + std::string(net::schedulerKindName(c.scheduler)) + "/" +
           std::string(layout::tuningModeName(c.mode)) + "/r" + std::to_string(c.repeat);
  };
  std::fprintf(stderr, "%s: %s, %s, %d trials each, units of %zu in turn\n", n.name.c_str(),
               counted(static_cast<long long>(g.tasks.size()), "task", "tasks").c_str(),
               counted(static_cast<long long>(all.size()), "contender", "contenders").c_str(),
               o.trials, o.unit);
  const std::string stopped = "the comparison was stopped; " + (out / "curve.csv").string() +
                              " holds every unit tuned; no summary.json was written";
  InterruptNotice notice(stopped);
  g_contenders = &all;
  struct Handed {
    ~Handed() { g_contenders = nullptr; }
  } handed;
  // The second signal kills the worker, compilers and libtorch's reference (process groups of
  // their own, which a terminal's Ctrl-C does not reach) before the program ends.
  notice.rearm(stopped, onInterrupt, {}, [] { storeAbandonedRunsStopped({}, {}); });
  // One unit of each contender in turn: drift of the machine falls on all of them alike.
  for (bool any = true; any;) {
    any = false;
    for (Contender& c : all) {
      if (c.done) continue;
      if (!c.tuning->step()) {
        c.done = true;
        continue;
      }
      any = true;
      const net::NetworkUnit& u = c.tuning->units().back();
      curve << c.algorithm << "," << net::schedulerKindName(c.scheduler) << ","
            << layout::tuningModeName(c.mode) << "," << c.repeat << "," << u.unit << "," << u.trials
            << "," << g.tasks[u.task].name << ",";
      if (std::isfinite(u.objectiveSeconds)) curve << u.objectiveSeconds * 1e3;
      curve << "\n";
      curve.flush();
      std::fprintf(stderr, "%-40s %4d/%d trials\n", label(c).c_str(), u.trials, o.trials);
    }
  }
  g_stretch = static_cast<int>(Stretch::EndToEnd);
  // Said, as the runs can take long and a signal now stops them instead of the tuning.
  const bool frozen = o.torchForm == net::TorchForm::Frozen;
  std::fprintf(stderr, "running %s end to end%s%s\n",
               all.size() == 1 ? "the contender's network" : "each contender's network",
               o.untunedRun ? ", then each mode's untuned one (--no-untuned-run skips it)" : "",
               !o.reference ? ""
               : frozen     ? ", libtorch's frozen form first as the reference"
                            : ", libtorch's first as the reference");
  // One reference for every contender: they all run the same network, weights and input.
  const net::ReferenceTimes reference =
      net::timeReference(o.network, params, {o.seed, 3, o.runs, o.reference, o.torchForm});
  nlohmann::json results = nlohmann::json::array();
  std::printf(
      "| algorithm | scheduler | mode | repeat | trials | sum of tasks ms | conversions ms | "
      "conversion steps | end-to-end ms | %s | verified |\n",
      frozen ? "libtorch frozen ms" : "libtorch ms");
  std::printf("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
  int runEndToEnd = 0;
  for (Contender& c : all) {
    if (g_endToEndStopped) break;
    ++runEndToEnd;
    std::vector<Config> configs;
    const auto best = c.tuning->bestConfigs();
    for (std::size_t i = 0; i < g.tasks.size(); ++i)
      configs.push_back(best[i] ? *best[i] : untunedConfig(c.tuning->space(i)));
    const std::optional<double> sumSeconds = c.tuning->estimateSeconds();
    const net::EndToEnd e =
        net::runEndToEnd(o.network, params, n, g, configs, c.mode,
                         {o.seed, 3, o.runs, o.reference, o.torchForm}, reference);
    // Which tasks an earlier task's layout choice constrained (topological scheduler, joint).
    nlohmann::json constrained = nlohmann::json::array();
    for (std::size_t i = 0; i < g.tasks.size(); ++i)
      if (const auto& lc = c.tuning->layoutConstraint(i)) {
        nlohmann::json entry = net::layoutConstraintJson(g, lc);
        entry["task"] = g.tasks[i].name;
        constrained.push_back(std::move(entry));
        // A depthwise link pins the channel blocks alone (net tune and net runs say it so).
        std::fprintf(stderr, "%s: %s's %s %s %s's (%s)\n", label(c).c_str(),
                     g.tasks[i].name.c_str(), std::string(net::linkPinsText(lc->link)).c_str(),
                     lc->outcome == net::ConstraintOutcome::Applied
                         ? "pinned to"
                         : "left free (no valid configuration) instead of pinned to",
                     g.tasks[lc->by].name.c_str(), lc->layout.c_str());
      }
    nlohmann::json r{{"algorithm", c.algorithm},
                     {"scheduler", net::schedulerKindName(c.scheduler)},
                     {"mode", layout::tuningModeName(c.mode)},
                     {"repeat", c.repeat},
                     {"trials", c.tuning->trials()},
                     {"sum_of_tasks_ms",
                      sumSeconds ? nlohmann::json(*sumSeconds * 1e3) : nlohmann::json(nullptr)},
                     {"layout_constraints", constrained}};
    addEndToEnd(r, e);
    results.push_back(r);
    // "-" while a task has no working kernel: a sum over the others is not the network's.
    const std::string sum = sumSeconds ? msText(*sumSeconds * 1e3) : "-";
    std::printf("| %s | %s | %s | %d | %d | %s | %s |\n", c.algorithm.c_str(),
                std::string(net::schedulerKindName(c.scheduler)).c_str(),
                std::string(layout::tuningModeName(c.mode)).c_str(), c.repeat, c.tuning->trials(),
                sum.c_str(), endToEndCells(r, e).c_str());
    requireVerified(e);
  }
  // Each mode's untuned configurations (`opevo net run`'s network), once, as `net tune` and the
  // Networks page run them: a row to read every contender's end-to-end time against, since a
  // task's best is timed alone and the chain can lose what it gained (docs/networks.md).
  nlohmann::json untuned = nlohmann::json::array();
  std::string untunedDiffers;  // the mode whose untuned output differs from libtorch's
  for (const layout::TuningMode mode : o.untunedRun ? modes : std::vector<layout::TuningMode>{}) {
    if (g_endToEndStopped) break;
    // A comparison only: a failure is written in its place, the contenders' results kept.
    net::EndToEnd e;
    try {
      e = net::runEndToEnd(o.network, params, n, g, net::untunedConfigs(g, mode), mode,
                           {o.seed, 3, o.runs, o.reference, o.torchForm}, reference);
    } catch (const std::exception& x) {
      untuned.push_back({{"mode", layout::tuningModeName(mode)}, {"error", x.what()}});
      std::printf("| untuned | - | %s | - | 0 | - | - | - | not run: %s | - | - |\n",
                  std::string(layout::tuningModeName(mode)).c_str(), oneLine(x.what()).c_str());
      continue;
    }
    nlohmann::json u{{"mode", layout::tuningModeName(mode)}};
    addEndToEnd(u, e);
    std::printf("| untuned | - | %s | - | 0 | - | %s |\n",
                std::string(layout::tuningModeName(mode)).c_str(), endToEndCells(u, e).c_str());
    untuned.push_back(std::move(u));
    // Each contender of the mode against it, tuned / untuned, as net tune says it; not against
    // an output that differs (the row says NO, and the command fails once summary.json is written).
    if (e.reference.best && !e.verified) {
      untunedDiffers = std::string(layout::tuningModeName(mode)) + " mode (max relative error " +
                       std::to_string(e.error) + ")";
      continue;
    }
    for (nlohmann::json& r : results)
      if (r["mode"] == layout::tuningModeName(mode))
        r["tuned_over_untuned"] = r["end_to_end_ms"].get<double>() / e.ms;
  }
  g_stretch = static_cast<int>(Stretch::Summary);
  // A stopped comparison says so, and how far each part went: a contender's "trials" are those
  // it ran, "contenders" those the budget and repeats asked for. A signal that cut nothing (after
  // the last unit, during the last untuned network's run, or the last contender's with
  // --no-untuned-run) leaves the summary whole.
  long long trials = 0;
  for (const Contender& c : all) trials += c.tuning->trials();
  const long long budget = static_cast<long long>(o.trials) * static_cast<long long>(all.size());
  const bool tuningCut = g_tuningStopped && trials < budget;
  const bool skipped =
      runEndToEnd < static_cast<int>(all.size()) ||
      (o.untunedRun && untuned.size() < modes.size());  // stopped before an untuned network
  const std::filesystem::path partial = out / "summary.json.partial";
  std::ofstream(partial) << nlohmann::json{{"network", n.name},
                                           {"params", n.params},
                                           {"trials_per_contender", o.trials},
                                           {"contenders", all.size()},
                                           {"stopped_early", tuningCut || skipped},
                                           {"results", results},
                                           {"untuned", untuned}}
                                .dump(2)
                         << "\n";
  publishResult(partial, out / "summary.json");  // a killed write leaves the partial name
  std::fprintf(stderr, "wrote %s and %s\n", (out / "curve.csv").c_str(),
               (out / "summary.json").c_str());
  // An untuned network whose output differs fails the command as a contender's does, once every
  // result is written (a wrong start blocking is a bug to see, not a row to miss).
  if (!untunedDiffers.empty())
    throw RunFailed("the untuned network's output differs from libtorch's in " + untunedDiffers +
                    "; summary.json holds every result");
  if (!tuningCut && !skipped) return;
  throw Interrupted((tuningCut
                         ? "stopped while tuning after " + counted(trials, "trial", "trials") +
                               " of " + std::to_string(budget)
                         : std::string("stopped during the end-to-end runs")) +
                    "; summary.json holds " + std::to_string(runEndToEnd) + " of " +
                    counted(static_cast<long long>(all.size()), "contender", "contenders") +
                    " run end to end" + (tuningCut ? " (each as tuned when stopped)" : "") +
                    (o.untunedRun ? " and " + std::to_string(untuned.size()) + " of " +
                                        std::to_string(modes.size()) + " untuned networks"
                                  : ""));
}

}  // namespace

void addNetCompareCommand(CLI::App& net) {
  auto o = std::make_shared<NetCompareOptions>();
  auto* cmd = net.add_subcommand(
      "compare", "Race schedulers x algorithms x repeats on a network (on this CPU), interleaved");
  cmd->add_option("network", o->network, "A preset name (opevo net list) or a network file")
      ->required();
  cmd->add_option("--param", o->params, "Change a param of the network, e.g. batch=8 (repeatable)");
  cmd->add_option("--algos", o->algos,
                  "Algorithms, comma-separated (default: the default and autotvm)");
  cmd->add_option("--schedulers", o->schedulers,
                  "gradient, round-robin, topological (ALT's: tasks one after another, in joint "
                  "mode each constrained by the layouts chosen before it), comma-separated "
                  "(default gradient,round-robin)");
  cmd->add_option(
      "--modes", o->modes,
      "What tasks tune: loop (loops over plain layouts, ALT-OL), joint (conv layouts and "
      "loops, layouts propagated, ALT), joint-np (the same without propagation, ALT-WP), "
      "comma-separated (default joint)");
  cmd->add_option("--repeats", o->repeats, "Repeats of each combination (default 1)")
      ->check(wholeIn(1, 1000));
  cmd->add_option("--trials", o->trials, "Trials for each contender's whole network")
      ->required()
      ->check(wholeIn(1, 1000000000));
  cmd->add_option("--unit", o->unit, "Trials per scheduling unit (default 4)")
      ->check(wholeIn(1, 1000000));
  cmd->add_option("--seed", o->seed, "Seed of repeat 1 (repeat r uses seed + r - 1)");
  cmd->add_option("--out", o->out,
                  "Directory for curve.csv and summary.json: new, or holding no earlier "
                  "comparison's results (see --force)")
      ->required();
  cmd->add_flag("--force", o->force, "Replace an earlier comparison's results in --out");
  cmd->add_option("--runs", o->runs, "Timed forward passes of each tuned network (default 10)")
      ->check(wholeIn(1, 1000000));
  cmd->add_flag("!--no-reference", o->reference, "Skip the libtorch reference");
  cmd->add_flag("!--no-untuned-run", o->untunedRun,
                "Skip each mode's untuned network, run end to end after the contenders to read "
                "them against");
  addTorchFormOption(cmd, o->torchForm);
  cmd->callback([o] { runCompare(*o); });
}

}  // namespace opevo::cli
