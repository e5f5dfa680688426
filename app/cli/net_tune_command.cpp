#include <algorithm>
#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "backends/backend_factory.h"
#include "cli/cluster_cli.h"
#include "cli/commands.h"
#include "cli/interrupt_notice.h"
#include "cli/measuring_options.h"
#include "cli/net_cli.h"
#include "cli/option_checks.h"
#include "common/error.h"
#include "common/machine_load.h"
#include "common/utf8_text.h"
#include "engine/engine.h"
#include "export/network_export.h"
#include "net/closing_round_text.h"
#include "net/kept_network.h"
#include "net/network_plan.h"
#include "net/network_session.h"
#include "net/network_tuning.h"
#include "net/torch_reference.h"
#include "net/tuning_budget.h"
#include "ops/presets.h"
#include "probe/backend_probe.h"
#include "space/text.h"
#include "store/live_status.h"
#include "store/run_operator.h"
#include "store/store.h"
#include "tuners/registry.h"

namespace opevo::cli {
namespace {

struct NetTuneOptions {
  std::string network;
  std::vector<std::string> params;
  std::string backend = "cpu";
  std::string algo = tunerRegistry().defaultTuner().name;
  int trials = 0;
  net::SchedulerKind scheduler = net::SchedulerKind::Gradient;
  std::string mode;                           // empty: joint on the CPU, loop elsewhere
  std::optional<std::string> kernelTemplate;  // none: the backend's (net::defaultTaskTemplates)
  std::string weights;                        // empty: cold on the CPU
  std::string activations;                    // empty: cold on the CPU
  bool pinInputs = false;                     // NetworkTuningPlan::inputPins
  std::size_t unit = 4;
  std::uint64_t seed = 1;
  int warmup = 3, runs = 10;
  bool reference = true;
  net::TorchForm torchForm = net::TorchForm::Eager;
  bool taskReferences = false;  // always on cuda and hip
  bool untunedRun = true;       // ConcludeOptions::untunedToo (cpu)
  bool json = false;
  std::string db;
  std::optional<std::int64_t> resume;
  ClusterChoice cluster;
  MeasuringArgs measuring;
};

std::atomic<net::NetworkSession*> g_session{nullptr};

void onInterrupt() {
  // Only sets flags: each engine commits the trial in hand and stops.
  if (net::NetworkSession* s = g_session.load()) s->stopFromSignal();
  cancelClusterFromSignal();
}

std::string ms(std::optional<double> seconds) {
  return seconds ? msText(*seconds * 1e3) + " ms" : "none yet";
}

// libtorch is the end-to-end reference on the CPU alone; a frozen form asked of a GPU run would
// be ignored without a word.
void requireTorchFormOn(const std::string& backend, net::TorchForm form) {
  if (form != net::TorchForm::Eager && backend != "cpu")
    throw InputError("--torch-form: libtorch is the reference on the cpu backend only (on " +
                     backend + " the network is checked against its tasks' libraries)");
}

// The untuned configurations run after the tuned network on this CPU alone: elsewhere the
// option would be ignored.
void requireUntunedRunOn(const std::string& backend, const NetTuneOptions& o) {
  if (o.untunedRun) return;
  if (backend != "cpu")
    throw InputError(
        "--no-untuned-run: the untuned configurations run on the cpu backend only "
        "(backend '" +
        backend + "')");
  if (!o.cluster.address.empty())
    throw InputError(
        "--no-untuned-run: a network tuned on a cluster's agents runs nothing end to "
        "end here");
}

// requireLocalBackend's check with net tune's own list: its "available: cpu, replay:FILE" named
// a backend net tune refuses (a replay dataset holds one operator's measurements).
void requireNetworkBackend(const std::string& backend) {
  const std::vector<BackendInfo> backends = probeBackends();
  std::string available;
  for (const BackendInfo& b : backends)
    if (b.available) available += (available.empty() ? "" : ", ") + b.name;
  if (available.empty()) available = "none";
  for (const BackendInfo& b : backends) {
    if (b.name != backend) continue;
    if (!b.available)
      throw InputError("backend '" + backend + "' is not available on this machine: " + b.reason +
                       " (available here: " + available + ")");
    return;
  }
  throw InputError("unknown backend '" + backend +
                   "' (net tune takes cpu, cuda or hip; available " + "here: " + available + ")");
}

BackendOptions sessionOptions(const NetTuneOptions& o) {
  BackendOptions options;
  applyMeasuringArgs(o.measuring, options);
  options.cluster = openClusterSession(o.cluster, o.json);
  options.clusterDevice = o.cluster.device;
  return options;
}

// A new run's source, checked before any database is opened, so that a refused command leaves
// none behind: the options, the network (its file read and its tasks found) and, unless a
// cluster measures, this machine's backend.
net::NetworkSource newSource(const NetTuneOptions& o, const BackendOptions& options) {
  if (o.network.empty()) throw InputError("give a network (opevo net list), or --resume ID");
  if (o.trials < 0)
    throw InputError("--trials " + std::to_string(o.trials) +
                     ": the budget must be a positive number of trials");
  // 0 is also what no --trials leaves: "give a budget" read oddly after --trials 0.
  if (o.trials == 0) throw InputError("give a budget of at least 1 trial: --trials N");
  if (o.backend.rfind("replay:", 0) == 0)
    throw InputError("--backend " + o.backend +
                     ": a network's kernels are built and measured on a device (cpu, cuda or "
                     "hip); a replay dataset holds one operator's measurements");
  if (o.unit < 1) throw InputError("a scheduling unit holds at least 1 trial");
  if (!tunerRegistry().find(o.algo))
    throw InputError("unknown algorithm '" + o.algo + "' (opevo tuners lists them)");
  net::NetworkSource src;
  src.source = o.network;
  src.text = net::networkText(o.network);
  src.params = paramOverrides(o.params);
  src.backend = o.backend;
  src.plan.algorithm = o.algo;
  src.plan.seed = o.seed;
  src.plan.trials = o.trials;
  src.plan.unit = o.unit;
  src.plan.scheduler = o.scheduler;
  // Layout templates exist for the CPU, where they matter most (docs/results/networks.md).
  // The tasks of the templates with spaces of their own keep the plain layouts in any mode; the
  // plan stores the templates chosen, so a default that changes later changes no stored run.
  src.plan.templates = net::chosenTaskTemplates(o.kernelTemplate, o.backend, "--template");
  if (!o.weights.empty() && o.backend != "cpu")
    throw InputError("--weights: only the cpu backend evicts weights before each timed run");
  src.plan.coldWeights = o.weights != "warm";
  if (!o.activations.empty() && o.backend != "cpu")
    throw InputError(
        "--activations: only the cpu backend evicts activations before each timed run");
  src.plan.coldActivations = o.activations != "warm";
  requireTorchFormOn(o.backend, o.torchForm);
  requireUntunedRunOn(o.backend, o);
  src.plan.mode = !o.mode.empty()      ? layout::parseTuningMode(o.mode, "--mode")
                  : o.backend == "cpu" ? layout::TuningMode::Joint
                                       : layout::TuningMode::Loop;
  if (o.pinInputs && (o.scheduler != net::SchedulerKind::Topological ||
                      src.plan.mode != layout::TuningMode::Joint))
    throw InputError(
        "--pin-inputs: 1x1 convolutions are pinned to their producers' layouts only when the tasks "
        "are tuned one after another with their layouts propagating (--scheduler topological "
        "--mode joint)");
  src.plan.inputPins = o.pinInputs;
  // Every task's space must suit the algorithm (gbfs and na2c take factors alone): refused now
  // rather than a task that measures nothing.
  const net::Network network = net::networkFromText(src.text, src.source, src.params);
  net::requireEveryLayerRead(network, src.source);  // a new run; a resume reads what was stored
  const net::TaskGraph graph = net::extractTasks(network);
  net::requireTasks(network.name, graph.tasks.size());
  RunPlan check;
  check.algorithm = o.algo;
  check.seed = o.seed;
  check.budget.trials = o.trials;
  for (const net::Task& t : graph.tasks)
    checkRunPlan(
        runDefinition(o.backend, net::taskDefinition(t, src.plan.mode, src.plan.templates)).space,
        check);
  if (!options.cluster) requireNetworkBackend(o.backend);
  return src;
}

// The closing round of twin tasks as --json gives it: {reserve, trials, units: [{task, trials,
// from}]} (from: the twin each trial's configuration came from); null for a run without one (a
// resumed run stored before it).
nlohmann::json closingRoundJson(const net::NetworkTuning& tuning, const net::TaskGraph& g) {
  if (!tuning.closingRound()) return nullptr;
  nlohmann::json units = nlohmann::json::array();
  int trials = 0;
  for (const net::NetworkUnit& u : tuning.units()) {
    if (!u.closing) continue;
    nlohmann::json from = nlohmann::json::array();
    for (std::size_t t : u.fromTwins) from.push_back(g.tasks[t].name);
    trials += static_cast<int>(u.fromTwins.size());
    units.push_back({{"task", g.tasks[u.task].name},
                     {"trials", static_cast<int>(u.fromTwins.size())},
                     {"from", from}});
  }
  return {{"reserve", tuning.closingReserve()}, {"trials", trials}, {"units", units}};
}

void runTune(const NetTuneOptions& o) {
  if (o.runs < 1 || o.warmup < 0)
    throw InputError("--runs must be at least 1 and --warmup 0 or more");
  const BackendOptions options = sessionOptions(o);
  std::optional<net::NetworkSource> source;
  if (!o.resume) source = newSource(o, options);
  // Before the database is opened: a missing worker or compiler leaves nothing behind.
  if (source) requireMeasuringPrograms(source->backend, options);
  Store store(o.resume ? existingDatabase(o.db) : o.db.empty() ? Store::defaultPath() : o.db);
  const std::unique_ptr<net::NetworkSession> session =
      source ? std::make_unique<net::NetworkSession>(store, std::move(*source), options)
             : std::make_unique<net::NetworkSession>(store, *o.resume, options);
  const net::Network& n = session->network();
  const net::TaskGraph& g = session->graph();
  const net::NetworkTuningPlan& plan = session->source().plan;
  const std::string& backend = session->source().backend;
  const std::int64_t networkId = session->id();
  if (o.resume) {
    requireMeasuringPrograms(backend, options);  // left interrupted as it was
    requireTorchFormOn(backend, o.torchForm);    // known only now: the stored run's backend
    requireUntunedRunOn(backend, o);
  }
  if (!o.json)
    std::fprintf(
        stderr, "network run %lld: %s%s, %s, %s, %s on %s, %s scheduler%s\n",
        static_cast<long long>(networkId), n.name.c_str(),
        // As net runs names it: the templates it tunes, the backend's default ones too.
        plan.templates.any() ? (" (" + plan.templates.name() + ")").c_str() : "",
        counted(static_cast<long long>(g.tasks.size()), "task", "tasks").c_str(),
        counted(plan.trials, "trial", "trials").c_str(), plan.algorithm.c_str(), backend.c_str(),
        std::string(net::schedulerKindName(plan.scheduler)).c_str(),
        o.resume ? (", resumed after " + std::to_string(session->resumedAt()) + " trials").c_str()
                 : "");
  // As the Networks page says before Start: a task the budget never reaches runs untuned.
  if (const std::string note = net::budgetNote(g.tasks.size(), plan); !o.json && !note.empty())
    std::fprintf(stderr, "note: %s\n", note.c_str());
  if (const std::string note = session->tuning().planNote(false);
      o.resume && !o.json && !note.empty())
    std::fprintf(stderr, "note: %s\n", note.c_str());
  if (const std::string busy =
          backend == "cpu" && o.cluster.address.empty() && !o.json ? busyMachineNote() : "";
      !busy.empty())
    std::fprintf(stderr, "note: %s\n", busy.c_str());
  // Ctrl-C (SIGTERM, SIGHUP) stops every task after its trial in hand; a second one ends the
  // program at once, the trials in hand lost and every committed one kept (the run then reads
  // interrupted: no process holds it).
  const std::string resume = "opevo net tune --resume " + std::to_string(networkId) +
                             databaseHint(o.db) + clusterHint(o.cluster) +
                             measuringArgsText(o.measuring) + torchFormArgs(o.torchForm) +
                             (o.untunedRun ? "" : " --no-untuned-run");
  g_session = session.get();
  std::optional<InterruptNotice> notice(std::in_place, "network run " + std::to_string(networkId));
  notice->rearm(
      "network run " + std::to_string(networkId) +
          ": the trials in hand were abandoned, every committed trial is kept: " + resume +
          " continues it",
      onInterrupt,
      firstStopText(o.cluster, "stopping after the trials in hand (Ctrl-C again to abandon them)"),
      // The second signal kills the workers and compilers measuring the trials in hand (process
      // groups of their own: a terminal's Ctrl-C does not reach them); the stored network run
      // then reads interrupted, as no process holds it.
      [] { storeAbandonedRunsStopped({}, {}); });
  while (session->step()) {
    if (o.json) continue;
    const net::NetworkUnit& u = session->tuning().units().back();
    const double objective = u.objectiveSeconds;
    // Which of the unit's trials were its twins' best (net/twin_tasks.h), so a jump in a task's
    // best is not read as its own tuner's find.
    std::string twins;
    for (std::size_t i = 0; i < u.fromTwins.size(); ++i)
      if (i == 0 || u.fromTwins[i] != u.fromTwins[i - 1])
        twins += std::string(twins.empty() ? "" : ", ") + g.tasks[u.fromTwins[i]].name;
    // The closing round's units are their twins' best alone (NetworkTuning).
    if (!twins.empty())
      twins = std::string(u.closing ? "; closing: " : "; ") + std::to_string(u.fromTwins.size()) +
              " from twin " + twins;
    std::fprintf(stderr, "[%3d/%d trials] %-26s best %-12s network (sum of weight x best) %s%s\n",
                 u.trials, plan.trials, g.tasks[u.task].name.c_str(), ms(u.taskSeconds).c_str(),
                 std::isfinite(objective) ? ms(objective).c_str() : "not yet (a task has none)",
                 twins.c_str());
  }
  g_session = nullptr;
  if (session->interrupted()) {
    session->markInterrupted();
    throw Interrupted("network run " + std::to_string(networkId) + " stopped after " +
                      std::to_string(session->tuning().trials()) + " of " +
                      std::to_string(plan.trials) +
                      " trials, every measured trial kept: " + resume + " continues it");
  }

  // Tuned on a cluster's CPUs, the network would run end to end on this machine's: a different
  // CPU (opevo net export writes a program to run where the agents are).
  const bool onCluster = !o.cluster.address.empty();
  if (backend == "cpu" && onCluster && !o.json)
    std::fprintf(stderr,
                 "tuned on the cluster's agents: not run end to end here (opevo net "
                 "export %lld --out DIR writes a program to run on their machines)\n",
                 static_cast<long long>(networkId));
  net::ConcludeOptions conclude;
  conclude.endToEnd = {plan.seed, o.warmup, o.runs, o.reference, o.torchForm};
  conclude.taskReferences = o.taskReferences;
  conclude.untunedToo = o.untunedRun;  // on the CPU alone: conclude runs nothing else here
  conclude.endToEndHere = !onCluster;
  conclude.onStep = [&](net::ConcludeStep step) {
    if (o.json) return;
    switch (step) {
      case net::ConcludeStep::TaskReferences:
        std::fprintf(stderr, "timing each task's reference library...\n");
        break;
      case net::ConcludeStep::EndToEndOnCpu:
        announceBuild(n, g);
        break;
      case net::ConcludeStep::UntunedOnCpu:
        std::fprintf(stderr,
                     "running %s's untuned configurations end to end, to compare (one compiler "
                     "run; --no-untuned-run skips it)...\n",
                     n.name.c_str());
        break;
      case net::ConcludeStep::MixedOnCpu:
        std::fprintf(stderr,
                     "running %s with each task's configuration that ran faster in the chain, "
                     "tuned or untuned (one compiler run)...\n",
                     n.name.c_str());
        break;
      case net::ConcludeStep::EndToEndOnDevice:
        std::fprintf(stderr,
                     "running %s end to end on the device, checked against its plain reference "
                     "kernels...\n",
                     n.name.c_str());
        break;
    }
  };
  notice->rearm("network run " + std::to_string(networkId) +
                " is tuned and every trial stored; opevo net tune --resume " +
                std::to_string(networkId) + databaseHint(o.db) + clusterHint(o.cluster) +
                torchFormArgs(o.torchForm) + (o.untunedRun ? "" : " --no-untuned-run") +
                " runs what follows the tuning again");
  const net::Conclusion concluded = session->conclude(conclude);
  notice.reset();
  nlohmann::json j = concluded.result;  // printed below (operator[] on a const one asserts)
  const std::optional<net::EndToEnd>& e = concluded.endToEnd;
  const std::string& endToEndError = concluded.endToEndError;
  if (o.json) {
    if (!j.contains("template")) j["template"] = plan.templates.name();  // as net run and net runs
    j["closing_round"] = closingRoundJson(session->tuning(), g);
    // As net runs ID --json gives it: null where the run tunes as a new one would.
    const std::string note = session->tuning().planNote(true);
    j["plan_note"] = note.empty() ? nlohmann::json(nullptr) : nlohmann::json(note);
    std::cout << j.dump(2) << "\n";
  } else {
    // As the store keeps it: `net runs ID` prints the same of it later.
    printNetworkResult(net::readStoredNetworkRun(store, networkId),
                       n.name + " tuned, " + (backend == "cpu" ? "on this CPU" : "on " + backend));
  }
  if (!endToEndError.empty())
    throw RunFailed(
        "network run " + std::to_string(networkId) +
        " tuned and stored, but its end-to-end run on the device failed: " + endToEndError);
  if (e) requireVerified(*e);
  if (concluded.untuned) requireVerified(*concluded.untuned, "the untuned configurations'");
  if (concluded.mixed) requireVerified(*concluded.mixed, "the mixed configurations'");
}

// The plan's columns of a stored network run as `net runs --json` lists it. Throws where a field
// is of the wrong kind.
nlohmann::json planColumns(const nlohmann::json& plan) {
  return {{"template", net::planTemplates(plan).name()},
          {"algorithm", plan.value("algorithm", "")},
          {"scheduler", plan.value("scheduler", "")},
          // Runs stored before the field tuned their loops alone.
          {"mode", plan.value("mode", "loop")},
          // Runs stored before the field timed their kernels warm.
          {"weights", plan.value("weights", "warm")},
          {"activations", plan.value("activations", "warm")},
          // Runs stored before the field pinned no 1x1 input.
          {"pin_inputs", plan.value("input_pin", false)},
          {"budget", plan.value("trials", 0)}};
}

// The result's columns, as planColumns.
nlohmann::json resultColumns(const nlohmann::json& result) {
  return {{"end_to_end_ms", result.value("end_to_end_ms", nlohmann::json(nullptr))},
          {"reference_ms", result.contains("reference")
                               ? result["reference"].value("ms", nlohmann::json(nullptr))
                               : nlohmann::json(nullptr)},
          // Runs stored before the field timed libtorch eagerly.
          {"reference_form", result.contains("reference")
                                 ? nlohmann::json(result["reference"].value("form", "eager"))
                                 : nlohmann::json(nullptr)}};
}

// `columns` of the stored JSON `text` (empty: an object without fields), or each of them null
// where it does not read (edited, or a later version's), *why then saying why.
nlohmann::json readColumns(nlohmann::json (*columns)(const nlohmann::json&),
                           const std::string& text, std::string* why) {
  try {
    const nlohmann::json j = text.empty() ? nlohmann::json::object() : nlohmann::json::parse(text);
    if (!j.is_object()) throw InputError("not a JSON object");
    return columns(j);
  } catch (const nlohmann::json::exception& e) {
    *why = escapeInvalidUtf8(e.what());
  } catch (const InputError& e) {
    *why = e.what();
  }
  nlohmann::json nulls = columns(nlohmann::json::object());
  for (nlohmann::json& v : nulls) v = nullptr;
  return nulls;
}

void runList(const std::string& db, bool json) {
  const Store store(existingDatabase(db), Store::Opening::ExistingOnly);
  const LiveStatus live(store);
  nlohmann::json all = nlohmann::json::array();
  // Runs whose stored plan or result does not read: listed all the same, those columns null ("?"
  // and "-" in the table), and said under the table.
  std::vector<std::string> unreadable;
  for (const NetworkRecord& n : store.networks()) {
    int trials = 0;
    for (const NetworkUnitRow& u : store.networkUnits(n.id)) trials += u.trials;
    nlohmann::json row{
        {"id", n.id},           {"network", n.name}, {"status", runStatusName(live.of(n))},
        {"backend", n.backend}, {"trials", trials},  {"started", n.started},
        {"unreadable", nullptr}};
    const std::string id = std::to_string(n.id);
    // A run whose result does not read still shows (from its tasks' trials); one whose plan does
    // not has nothing to rebuild its tasks' spaces with.
    for (const auto& [columns, text, what, after] :
         {std::tuple{&planColumns, &n.planJson, "plan", "cannot show it either"},
          std::tuple{&resultColumns, &n.resultJson, "result", "shows it from its tasks' trials"}}) {
      std::string why;
      row.update(readColumns(columns, *text, &why));
      if (why.empty()) continue;
      unreadable.push_back("network run " + id + ": its stored " + what + " does not read (" + why +
                           "); opevo net runs " + id + " " + after);
      row["unreadable"] = unreadable.back();
    }
    all.push_back(std::move(row));
  }
  if (json) {
    std::cout << all.dump(2) << "\n";
    return;
  }
  // The network's name with its template beside it unless direct, the column as wide as the
  // longest ("alexnet (winograd+matvec)").
  auto name = [](const nlohmann::json& r) {
    const std::string kernelTemplate =
        r["template"].is_string() ? r["template"].get<std::string>() : "direct";
    return r["network"].get<std::string>() +
           (kernelTemplate == "direct" ? "" : " (" + kernelTemplate + ")");
  };
  // How it was tuned: runs of one network raced over algorithms and modes (net compare, the
  // Networks page) were rows alike but for their id.
  // A run stored before a field existed names no algorithm or scheduler: "?" ("  loop" read as
  // a column gone astray).
  auto how = [](const nlohmann::json& r) {
    auto part = [&](const char* key) {
      const std::string v = r[key].is_string() ? r[key].get<std::string>() : "";
      return v.empty() ? std::string("?") : v;
    };
    return part("algorithm") + " " + part("scheduler") + " " + part("mode");
  };
  int width = 18, howWidth = 10;
  for (const nlohmann::json& r : all) {
    width = std::max(width, static_cast<int>(name(r).size()));
    howWidth = std::max(howWidth, static_cast<int>(how(r).size()));
  }
  auto cell = [](const nlohmann::json& v) {
    return v.is_number() ? msText(v.get<double>()) + " ms" : std::string("-");
  };
  // libtorch's time with its form when frozen: eager and frozen runs side by side read alike.
  auto referenceCell = [&](const nlohmann::json& r) {
    std::string text = cell(r["reference_ms"]);
    if (r["reference_ms"].is_number() && r["reference_form"] != "eager")
      text += ' ', text += r["reference_form"].get<std::string>();
    return text;
  };
  std::printf("%4s  %-*s %-*s %-11s %-6s %8s %12s %16s  %s\n", "id", width, "network", howWidth,
              "tuned with", "status", "backend", "trials", "end-to-end", "libtorch", "started");
  for (const nlohmann::json& r : all)
    std::printf("%4lld  %-*s %-*s %-11s %-6s %4d/%-4s %12s %16s  %s\n", r["id"].get<long long>(),
                width, name(r).c_str(), howWidth, how(r).c_str(),
                r["status"].get<std::string>().c_str(), r["backend"].get<std::string>().c_str(),
                r["trials"].get<int>(),
                r["budget"].is_number() ? std::to_string(r["budget"].get<int>()).c_str() : "?",
                cell(r["end_to_end_ms"]).c_str(), referenceCell(r).c_str(),
                r["started"].get<std::string>().c_str());
  for (const std::string& text : unreadable) std::printf("%s\n", text.c_str());
}

void runShow(std::int64_t id, const std::string& db, bool json) {
  const Store store(existingDatabase(db), Store::Opening::ExistingOnly);
  const net::StoredNetworkRun run = net::readStoredNetworkRun(store, id);
  const NetworkRecord& r = run.record;
  const net::NetworkTuningPlan& p = run.plan;
  if (json) {
    nlohmann::json tasks = nlohmann::json::array(), curve = nlohmann::json::array();
    auto number = [](const std::optional<double>& v) {
      return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
    };
    for (std::size_t i = 0; i < run.tasks.size(); ++i) {
      const net::StoredNetworkTask& t = run.tasks[i];
      // As net tune --json gives it, with its link also where a run stored before links had
      // kinds did not say it (a residual); null where nothing was pinned or the run has not
      // ended.
      nlohmann::json constraint = nullptr;
      if (const auto& c = t.layoutConstraint)
        constraint = {{"by", c->by},
                      {"tensor", c->tensor},
                      {"link", net::linkKindName(c->link)},
                      {"output_layout", c->outputLayout},
                      {"outcome", net::constraintOutcomeName(c->outcome)},
                      {"applied", c->outcome == net::ConstraintOutcome::Applied}};
      tasks.push_back(
          {{"name", t.name},
           {"weight", t.weight},  // Task::weightCount()
           {"trials", t.trials},
           {"best_ms", number(t.bestMs)},
           {"config", t.config.empty() ? nlohmann::json(nullptr) : nlohmann::json(t.config)},
           {"task_run", r.taskRuns[i]},
           {"layout_constraint", constraint}});
    }
    for (const net::StoredNetworkUnit& u : run.units)
      curve.push_back({{"task", run.tasks[static_cast<std::size_t>(u.task)].name},
                       {"unit_trials", u.unitTrials},
                       {"trials", u.trials},
                       {"estimate_ms", number(u.estimateMs)}});
    std::cout << nlohmann::json{{"id", r.id},
                                {"network", r.name},
                                {"source", r.source},
                                {"status", runStatusName(run.status)},
                                {"backend", r.backend},
                                {"plan", nlohmann::json::parse(r.planJson)},
                                {"plan_note", run.planNote.empty() ? nlohmann::json(nullptr)
                                                                   : nlohmann::json(run.planNote)},
                                {"trials", run.trials},
                                {"started", r.started},
                                {"ended", r.ended},
                                {"tasks", tasks},
                                {"curve", curve},
                                {"result", run.concluded ? nlohmann::json::parse(r.resultJson)
                                                         : nlohmann::json(nullptr)},
                                {"result_error", run.resultError.empty()
                                                     ? nlohmann::json(nullptr)
                                                     : nlohmann::json(run.resultError)}}
                     .dump(2)
              << "\n";
    return;
  }
  std::printf(
      "network run %lld: %s%s, %s, %s on %s, %s scheduler, %s mode%s, weights %s, activations "
      "%s, seed %llu\n",
      static_cast<long long>(r.id), r.name.c_str(),
      p.templates.any() ? (" (" + p.templates.name() + ")").c_str() : "",
      runStatusName(run.status).data(), p.algorithm.c_str(), r.backend.c_str(),
      schedulerKindName(p.scheduler).data(), layout::tuningModeName(p.mode).data(),
      p.inputPins ? ", 1x1 inputs pinned" : "", p.coldWeights ? "cold" : "warm",
      p.coldActivations ? "cold" : "warm", static_cast<unsigned long long>(p.seed));
  std::printf("%s of %s in units of %zu; started %s%s%s\n",
              counted(run.trials, "trial", "trials").c_str(), std::to_string(p.trials).c_str(),
              p.unit, r.started.c_str(), r.ended.empty() ? "" : ", ended ", r.ended.c_str());
  if (!run.planNote.empty()) std::printf("note: %s\n", run.planNote.c_str());
  // A run another process tunes refuses a second tuner: no resume to suggest while it does.
  if (run.status == RunStatus::Running)
    std::printf("being tuned by another process (the figures are as far as it got)\n");
  else if (run.status != RunStatus::Finished)
    std::printf("not finished: opevo net tune --resume %lld%s continues it\n",
                static_cast<long long>(r.id), databaseHint(db).c_str());
  // The latency estimate as the scheduler saw it, at about ten points of the curve.
  std::string points;
  const std::size_t step = std::max<std::size_t>(1, run.units.size() / 10);
  for (std::size_t u = 0; u < run.units.size(); ++u) {
    if (u % step != 0 && u + 1 != run.units.size()) continue;
    const net::StoredNetworkUnit& unit = run.units[u];
    points += (points.empty() ? "" : ", ") + std::to_string(unit.trials) + ": " +
              (unit.estimateMs ? msText(*unit.estimateMs) : "-");
  }
  if (!points.empty()) std::printf("sum of weight x best (ms) after trials %s\n", points.c_str());
  // The twins' closing round, as net tune's progress lines said it.
  if (const std::string closing = net::closingRoundText(run); !closing.empty())
    std::printf("closing round: %s\n", closing.c_str());
  std::printf("\n");
  printNetworkResult(run,
                     r.name + " tuned, " +
                         (r.backend == "cpu" ? "on the CPU it was tuned on" : "on " + r.backend));
  if (run.concluded && !run.endToEnd && !run.endToEndMissing.empty())
    std::printf("%s\n", run.endToEndMissing.c_str());
}

void runExport(std::int64_t id, const std::string& out, const std::string& db) {
  const Store store(existingDatabase(db), Store::Opening::ExistingOnly);
  NetworkRecord stored;
  const net::NetworkSource src = net::storedNetworkSource(store, id, &stored);
  const net::ParamOverrides& params = src.params;
  const net::NetworkTuningPlan& plan = src.plan;
  const net::Network n = net::networkFromText(src.text, src.source, params);
  const net::TaskGraph g = net::extractTasks(n);
  if (stored.taskRuns.size() != g.tasks.size())
    throw InputError("network run " + std::to_string(id) + " stores " +
                     std::to_string(stored.taskRuns.size()) + " task runs for " +
                     std::to_string(g.tasks.size()) + " tasks");
  // Each task's best measured configuration; a task with none runs untuned.
  std::vector<Config> configs;
  int untuned = 0;
  for (std::size_t i = 0; i < g.tasks.size(); ++i) {
    const SearchSpace space = net::taskDefinition(g.tasks[i], plan.mode, plan.templates).space;
    const TrialRow* best = nullptr;
    const std::vector<TrialRow> rows = store.trials(stored.taskRuns[i]);
    for (const TrialRow& t : rows)
      if (t.status == TrialStatus::Ok && (!best || t.speed > best->speed)) best = &t;
    if (!best) {
      configs.push_back(untunedConfig(space));
      ++untuned;
      continue;
    }
    // Read in the space the task's run tuned (a GPU run's has the GPU templates' parameters),
    // then as the common space's: the exported program runs on the CPU.
    const OperatorDefinition measured = operatorDefinitionFromJson(
        runOperator(store.run(stored.taskRuns[i])->operatorJson), "task run");
    configs.push_back(commonConfig(measured, measured.space.parse(best->config)));
  }
  // Where net tune kept another network than the tuned one (the untuned configurations, or each
  // task's faster one in the chain, ran faster end to end: net/chain_choice.h), that one. Kept on
  // the CPU only, so in the CPU spaces.
  const std::string where = "network run " + std::to_string(id);
  std::optional<net::KeptNetwork> kept;
  if (!stored.resultJson.empty()) {
    // A result that does not read loses the run's choice, not its trials: the tuned network,
    // said so (the choice it made is not known).
    const nlohmann::json result = nlohmann::json::parse(stored.resultJson, nullptr, false);
    try {
      if (!result.is_object()) throw InputError("not a JSON object");
      kept = net::keptNetworkFromResult(result, where);
    } catch (const InputError& e) {
      std::fprintf(stderr,
                   "%s's stored result does not read (%s): exporting its tuned configurations "
                   "(which network the run kept is not known)\n",
                   where.c_str(), e.what());
    }
  }
  std::string keptName;
  if (kept && kept->choice != net::NetworkChoice::Tuned) {
    if (kept->configs.size() != g.tasks.size())
      throw InputError(where + " keeps " + std::to_string(kept->configs.size()) +
                       " configurations for " + std::to_string(g.tasks.size()) + " tasks");
    untuned = 0;
    for (std::size_t i = 0; i < g.tasks.size(); ++i) {
      configs[i] = net::parseTaskConfig(g.tasks[i], plan.mode, plan.templates, kept->configs[i]);
      // The untuned network holds the current space's start points (a former task's loops are
      // its tuned ones), as mixed_untuned_tasks counts them.
      const SearchSpace space = net::taskDefinition(g.tasks[i], plan.mode, plan.templates).space;
      if (configs[i] == untunedConfig(space)) ++untuned;
    }
    keptName = net::networkChoiceName(kept->choice);
  }
  const net::NetworkProgram program =
      net::buildNetworkProgram(n, g, configs, plan.mode, plan.seed, codegen::Backend::Cpu,
                               net::TaskKernels::Tuned, plan.templates);
  // What the program must reproduce: libtorch's output when it is here, else ours.
  TempDir dir("opevo-net");
  const std::string file = dir.path() + "/network.json";
  std::ofstream(file) << stored.networkJson;
  std::string why;
  const std::optional<net::TorchResult> ref =
      net::runTorchReference(file, params, {plan.seed, 0, 0, 1}, &why);
  std::vector<float> expected;
  std::string from;
  if (ref) {
    expected = ref->output;
    from = net::torchReferenceName(*ref);
  } else {
    net::CpuNetworkRun run(n, g, configs, plan.mode, plan.seed, plan.templates);
    expected = run.forward();
    from = "this network's own run when exported (" + why + ")";
  }
  // The program is C++ for the CPU whatever tuned it: a GPU run's configurations are carried over
  // (as `opevo export --backend cpu` does for one kernel), and its times are not this program's.
  const std::string carried =
      stored.backend == "cpu"
          ? std::string()
          : "tuned on " + stored.backend +
                ": this program runs the same configurations on the CPU, where they were not "
                "measured (a network is exported for the CPU only)";
  const std::string title =
      n.name + " tuned by OpEvo Studio (network run " + std::to_string(id) + ", " +
      std::to_string(g.tasks.size() - untuned) + " of " + std::to_string(g.tasks.size()) +
      " tasks tuned" + (keptName.empty() ? "" : ", the " + keptName + " network it kept") +
      (carried.empty() ? std::string() : " on " + stored.backend + ", run here on the CPU") + ")";
  net::exportNetworkProgram(program, expected, from, title, out);
  if (!carried.empty()) std::printf("%s\n", carried.c_str());
  if (!keptName.empty())
    std::printf(
        "the %s configurations net tune kept: they ran faster end to end than the tuned "
        "ones\n",
        keptName.c_str());
  std::printf(
      "wrote %s: kernels.cpp, main.cpp, data.bin, build.sh, README.txt\n"
      "expected output: %s\nbuild and check: %s/build.sh && (cd %s && ./network)\n",
      out.c_str(), from.c_str(), out.c_str(), out.c_str());
}

}  // namespace

void addNetTuneCommand(CLI::App& net) {
  auto o = std::make_shared<NetTuneOptions>();
  auto* cmd = net.add_subcommand(
      "tune",
      "Tune a network's tasks (Ansor's task scheduler), then run it end to end against libtorch");
  cmd->add_option("network", o->network, "A preset name (opevo net list) or a network file");
  cmd->add_option("--param", o->params, "Change a param of the network, e.g. batch=8 (repeatable)");
  cmd->add_option("--backend", o->backend, "cpu (default), cuda or hip");
  cmd->add_option("--trials", o->trials, "Trials for the whole network");
  cmd->add_option("--algo", o->algo, "The algorithm tuning each task (opevo tuners)");
  std::map<std::string, net::SchedulerKind> kinds;
  for (net::SchedulerKind k : {net::SchedulerKind::Gradient, net::SchedulerKind::RoundRobin,
                               net::SchedulerKind::Topological})
    kinds.emplace(net::schedulerKindName(k), k);
  cmd->add_option("--scheduler", o->scheduler,
                  "gradient (Ansor's, default), round-robin, or topological (ALT's: the tasks one "
                  "after another in the order they run, each to its share of the trials; with "
                  "--mode joint a task whose output and an earlier task's meet in a residual "
                  "add takes that task's output layout, and a depthwise convolution is tuned on "
                  "its producer's channel blocks, the ones it runs with; see --pin-inputs)")
      ->transform(CLI::CheckedTransformer(kinds, CLI::ignore_case));
  cmd->add_option("--mode", o->mode,
                  "joint (default on cpu: convolutions tune their layouts and loops, and the "
                  "layers reading their outputs read those layouts where they can, ALT), "
                  "joint-np (the same, every such tensor converted, ALT-WP) or loop (default on "
                  "cuda/hip: every task tunes its loops over plain layouts, ALT-OL)");
  cmd->add_option(
         "--template", o->kernelTemplate,
         "matvec (default on cuda and hip): the dense layers and products with at most 16 "
         "rows tune the matrix-vector template (batch 1 on a GPU); direct (default on cpu): "
         "every task its direct or (CPU, joint modes) layout template; winograd: the stride-1 "
         "convolutions tune Winograd's template (e.g. F(4x4, 3x3), F(4x4, 5x5)), the dense "
         "layers the direct one; or winograd+matvec. Those on the plain layouts. A resumed run "
         "keeps its own")
      ->check(networkTemplateCheck());
  cmd->add_option("--weights", o->weights,
                  "cold (default): on the CPU each kernel is timed with its weights evicted from "
                  "the caches before every run, as the network's chain reads them; warm: timed "
                  "in a loop, its weights cached from the run before")
      ->check(CLI::IsMember({"cold", "warm"}));
  cmd->add_option("--activations", o->activations,
                  "cold (default): on the CPU each kernel is timed with its input, residual and "
                  "output evicted from the caches before every run too, as the network's chain "
                  "finds them; warm: cached from the run before")
      ->check(CLI::IsMember({"cold", "warm"}));
  cmd->add_flag("--pin-inputs", o->pinInputs,
                "With --scheduler topological --mode joint: tune each unpadded 1x1 convolution "
                "tuned after the task that writes its input on that task's output layout, so "
                "that it reads it with no conversion (ALT's propagation to readers; a larger "
                "residual linking it decides instead). Off by default: on MobileNetV2 the "
                "kernels pinned so lost more time than the conversions saved "
                "(docs/results/networks.md)");
  cmd->add_option("--unit", o->unit, "Trials per scheduling unit (default 4)");
  cmd->add_option("--seed", o->seed, "Seed of the tuners, the scheduler, the input and weights");
  cmd->add_option("--warmup", o->warmup, "Untimed forward passes of the tuned network (default 3)");
  cmd->add_option("--runs", o->runs, "Timed forward passes of the tuned network (default 10)");
  cmd->add_flag("!--no-reference", o->reference, "Skip the libtorch reference");
  addTorchFormOption(cmd, o->torchForm);
  cmd->add_flag("--task-references", o->taskReferences,
                "Also time each task's library (OpenBLAS, oneDNN) and report the weighted sum "
                "(always on cuda and hip, where the tasks' libraries are cuBLAS and cuDNN)");
  cmd->add_flag("!--no-untuned-run", o->untunedRun,
                "On the cpu backend, skip running the untuned configurations end to end after "
                "the tuned network (by default both run in the same process, so the gain of "
                "tuning end to end, layout conversions included, is measured, not assumed)");
  cmd->add_flag("--json", o->json, "Print one JSON object");
  addClusterOptions(cmd, o->cluster);
  cmd->add_option("--db", o->db, "The database (default: the user's data directory)");
  addMeasuringOptions(cmd, o->measuring);
  CLI::Option* resume =
      cmd->add_option("--resume", o->resume,
                      "Continue a stored network run (killed, interrupted) to its budget, with "
                      "its network, plan and backend");
  // A resumed run goes on as it was stored: what would change it is refused, not ignored.
  for (const char* name :
       {"network", "--param", "--backend", "--trials", "--algo", "--scheduler", "--mode",
        "--template", "--weights", "--activations", "--pin-inputs", "--unit", "--seed"})
    resume->excludes(cmd->get_option(name));
  cmd->callback([o] { runTune(*o); });

  struct ListOptions {
    std::int64_t id = 0;
    std::string db;
    bool json = false;
  };
  auto list = std::make_shared<ListOptions>();
  auto* runs =
      net.add_subcommand("runs",
                         "The stored network runs; with an ID, that run's tasks, curve and "
                         "end-to-end result (resume one with net tune --resume ID, delete one "
                         "with net delete ID)");
  runs->add_option("id", list->id, "One network run to show (opevo net runs lists them)")
      ->check(atLeast(1));
  runs->add_option("--db", list->db, "The database (default: the user's data directory)");
  runs->add_flag("--json", list->json, "Print JSON: an array of the runs, or the one run");
  runs->callback([list] {
    if (list->id > 0)
      runShow(list->id, list->db, list->json);
    else
      runList(list->db, list->json);
  });

  // As `opevo runs delete`: every id checked before any network run goes.
  struct DeleteOptions {
    std::vector<std::int64_t> ids;
    std::string db;
  };
  auto d = std::make_shared<DeleteOptions>();
  auto* del = net.add_subcommand(
      "delete",
      "Delete stored network runs with their task runs and trials: every run named, or none");
  del->add_option("id", d->ids, "Network run ids (opevo net runs)")->required();
  del->add_option("--db", d->db, "The database (default: the user's data directory)");
  del->callback([d] {
    Store store(existingDatabase(d->db));
    for (const NetworkAndTrials& n : store.deleteNetworks(d->ids))
      std::printf("deleted %s\n", describeNetwork(n).c_str());
  });

  struct ExportOptions {
    std::int64_t id = 0;
    std::string out, db;
  };
  auto e = std::make_shared<ExportOptions>();
  auto* exp = net.add_subcommand(
      "export",
      "Write a stored network's tuned kernels as a standalone CPU program that checks itself");
  exp->add_option("id", e->id, "The network run (opevo net runs)")->required();
  exp->add_option("--out", e->out, "The directory to write")->required();
  exp->add_option("--db", e->db, "The database (default: the user's data directory)");
  exp->callback([e] { runExport(e->id, e->out, e->db); });
}

}  // namespace opevo::cli
