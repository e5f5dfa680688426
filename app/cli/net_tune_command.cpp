#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>

#include "backends/backend_factory.h"
#include "cli/commands.h"
#include "cli/net_cli.h"
#include "common/error.h"
#include "net/network_tuning.h"
#include "ops/presets.h"
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
  std::size_t unit = 4;
  std::uint64_t seed = 1;
  int warmup = 3, runs = 10;
  bool reference = true;
  bool json = false;
};

std::string ms(std::optional<double> seconds) {
  if (!seconds) return "none yet";
  char text[32];
  std::snprintf(text, sizeof text, "%.3f ms", *seconds * 1e3);
  return text;
}

void runTune(const NetTuneOptions& o) {
  const net::ParamOverrides params = paramOverrides(o.params);
  const net::Network n = net::loadNetwork(o.network, params);
  const net::TaskGraph g = net::extractTasks(n);
  if (!tunerRegistry().find(o.algo))
    throw InputError("unknown algorithm '" + o.algo + "' (opevo tuners lists them)");
  // One measurement setup per task: its operator, its space, its worker.
  std::vector<MeasurementSetup> setups;
  std::vector<net::TaskMeasurement> measurements;
  for (const net::Task& t : g.tasks) {
    setups.push_back(
        makeOperatorMeasurement(o.backend, {t.op, defaultSpace(t.op), nlohmann::json::object()}));
    measurements.push_back({setups.back().space, setups.back().measurer.get()});
  }
  net::NetworkTuningPlan plan;
  plan.algorithm = o.algo;
  plan.seed = o.seed;
  plan.trials = o.trials;
  plan.unit = o.unit;
  plan.scheduler = o.scheduler;
  net::NetworkTuning tuning(g, std::move(measurements), plan);
  if (!o.json)
    std::fprintf(stderr, "%s: %zu tasks, %d trials, %s on %s, %s scheduler\n", n.name.c_str(),
                 g.tasks.size(), o.trials, o.algo.c_str(), o.backend.c_str(),
                 std::string(net::schedulerKindName(o.scheduler)).c_str());
  tuning.run([&](const net::NetworkUnit& u) {
    if (o.json) return;
    const double objective = u.objectiveSeconds;
    std::fprintf(stderr, "[%3d/%d trials] %-26s best %-12s network (sum of weight x best) %s\n",
                 u.trials, o.trials, g.tasks[u.task].name.c_str(), ms(u.taskSeconds).c_str(),
                 std::isfinite(objective) ? ms(objective).c_str() : "not yet (a task has none)");
  });

  std::vector<Config> configs;
  double sumOfTasks = 0;
  nlohmann::json tasks = nlohmann::json::array();
  const auto best = tuning.bestConfigs();
  for (std::size_t i = 0; i < g.tasks.size(); ++i) {
    const SearchSpace& space = *setups[i].space;
    configs.push_back(best[i] ? *best[i] : untunedConfig(space));
    const std::optional<double> s = tuning.bestSeconds(i);
    if (s) sumOfTasks += g.tasks[i].weight() * *s * 1e3;
    tasks.push_back({{"name", g.tasks[i].name},
                     {"weight", g.tasks[i].weight()},
                     {"trials", tuning.engine(i).runs().front().trials},
                     {"best_ms", s ? nlohmann::json(*s * 1e3) : nlohmann::json(nullptr)},
                     {"config", space.format(configs.back())},
                     {"tuned", best[i].has_value()}});
  }
  nlohmann::json curve = nlohmann::json::array();
  for (const net::NetworkUnit& u : tuning.units())
    curve.push_back({{"trials", u.trials},
                     {"task", g.tasks[u.task].name},
                     {"estimate_ms", std::isfinite(u.objectiveSeconds)
                                         ? nlohmann::json(u.objectiveSeconds * 1e3)
                                         : nlohmann::json(nullptr)}});
  nlohmann::json j{{"network", n.name},     {"params", n.params},
                   {"backend", o.backend},  {"algorithm", o.algo},
                   {"scheduler", net::schedulerKindName(o.scheduler)},
                   {"trials", tuning.trials()}, {"sum_of_tasks_ms", sumOfTasks},
                   {"tasks", tasks},        {"curve", curve}};
  std::optional<EndToEnd> e;
  if (o.backend == "cpu") {
    e = runEndToEnd(o.network, params, n, g, configs,
                    {o.seed, o.warmup, o.runs, o.reference, !o.json});
    j["end_to_end_ms"] = e->ms;
    j["times_ms"] = e->timesMs;
    j["fixed_kernels_ms"] = e->fixedMs;
    j["verified"] = e->verified;
    j["reference"] = referenceJson(*e);
  } else {
    j["end_to_end_ms"] = nullptr;
    j["verified"] = false;
    j["reference"] = {{"name", nullptr},
                      {"ms", nullptr},
                      {"missing", "end-to-end runs are on the CPU backend so far"}};
  }
  if (o.json) {
    std::cout << j.dump(2) << "\n";
  } else {
    std::printf("%-26s %6s %6s %12s  %s\n", "task", "weight", "trials", "best ms", "configuration");
    for (const auto& t : tasks)
      std::printf("%-26s %6.0f %6d %12s  %s\n", t["name"].get<std::string>().c_str(),
                  t["weight"].get<double>(), t["trials"].get<int>(),
                  t["best_ms"].is_null() ? "-" : std::to_string(t["best_ms"].get<double>()).c_str(),
                  t["config"].get<std::string>().c_str());
    std::printf("\nsum of weight x best over the tasks: %.3f ms\n", sumOfTasks);
    if (e) printEndToEnd(n.name + " tuned, on this CPU", *e, o.runs);
  }
  if (e) requireVerified(*e);
}

}  // namespace

void addNetTuneCommand(CLI::App& net) {
  auto o = std::make_shared<NetTuneOptions>();
  auto* cmd = net.add_subcommand(
      "tune", "Tune a network's tasks (Ansor's task scheduler), then run it end to end against libtorch");
  cmd->add_option("network", o->network, "A preset name (opevo net list) or a network file")
      ->required();
  cmd->add_option("--param", o->params, "Change a param of the network, e.g. batch=8 (repeatable)");
  cmd->add_option("--backend", o->backend, "cpu (default), cuda or hip");
  cmd->add_option("--trials", o->trials, "Trials for the whole network")->required();
  cmd->add_option("--algo", o->algo, "The algorithm tuning each task (opevo tuners)");
  const std::map<std::string, net::SchedulerKind> kinds = {
      {"gradient", net::SchedulerKind::Gradient}, {"round-robin", net::SchedulerKind::RoundRobin}};
  cmd->add_option("--scheduler", o->scheduler, "gradient (Ansor's, default) or round-robin")
      ->transform(CLI::CheckedTransformer(kinds, CLI::ignore_case));
  cmd->add_option("--unit", o->unit, "Trials per scheduling unit (default 4)");
  cmd->add_option("--seed", o->seed, "Seed of the tuners, the scheduler, the input and weights");
  cmd->add_option("--warmup", o->warmup, "Untimed forward passes of the tuned network (default 3)");
  cmd->add_option("--runs", o->runs, "Timed forward passes of the tuned network (default 10)");
  cmd->add_flag("!--no-reference", o->reference, "Skip the libtorch reference");
  cmd->add_flag("--json", o->json, "Print one JSON object");
  cmd->callback([o] { runTune(*o); });
}

}  // namespace opevo::cli
