#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/net_cli.h"
#include "cli/option_checks.h"
#include "common/rng.h"
#include "net/network_tuning.h"
#include "ops/operator_json.h"
#include "ops/presets.h"
#include "space/text.h"

namespace opevo::cli {
namespace {

struct NetShowOptions {
  std::string network;
  std::vector<std::string> params;
  bool json = false;
};

std::string paramsText(const net::Network& n) {
  std::string s;
  for (const auto& [name, value] : n.params)
    s += (s.empty() ? "" : ", ") + name + "=" + std::to_string(value);
  return s.empty() ? "none" : s;
}

void runList() {
  std::printf("%-18s %-14s %6s %6s %9s %9s  %s\n", "network", "params", "layers", "tasks", "GFLOP",
              "M params", "description");
  for (const net::NetworkPreset& p : net::networkPresets()) {
    // From the text: a file of a preset's name in this folder must not stop the listing.
    const net::Network n = net::networkFromText(p.text, "preset " + p.name);
    const net::TaskGraph g = net::extractTasks(n);
    std::printf("%-18s %-14s %6zu %6zu %9.3f %9.2f  %s\n", n.name.c_str(), paramsText(n).c_str(),
                n.layers.size(), g.tasks.size(), n.flops() / 1e9,
                static_cast<double>(n.parameterCount()) / 1e6, n.description.c_str());
  }
}

nlohmann::json toJson(const net::Network& n, const net::TaskGraph& g) {
  nlohmann::json inputs = nlohmann::json::array(), layers = nlohmann::json::array(),
                 tasks = nlohmann::json::array(), fixed = nlohmann::json::array();
  for (const net::Input& in : n.inputs) inputs.push_back({{"name", in.name}, {"shape", in.shape}});
  for (const net::Layer& l : n.layers) {
    nlohmann::json j{{"name", l.name},
                     {"op", net::layerKindName(l.kind)},
                     {"inputs", l.inputs},
                     {"shape", l.shape},
                     {"flops", n.flops(l)}};
    if (!l.foldedNorm.empty()) j["folded_norm"] = l.foldedNorm;
    layers.push_back(std::move(j));
  }
  for (const net::Task& t : g.tasks) {
    nlohmann::json occurrences = nlohmann::json::array();
    for (const net::Occurrence& o : t.occurrences)
      occurrences.push_back({{"layer", o.layer},
                             {"fused", o.fused},
                             {"residuals", o.residuals},
                             {"output", o.output}});
    tasks.push_back({{"name", t.name},
                     // A count of occurrences: 1, not 1.0.
                     {"weight", t.weightCount()},
                     {"flops", t.op.flops()},
                     {"description", t.op.describe()},
                     {"operator", operatorToJson(t.op)},
                     {"occurrences", occurrences}});
  }
  for (const net::FixedLayer& f : g.fixed)
    fixed.push_back(
        {{"layer", f.layer}, {"op", net::layerKindName(n.find(f.layer)->kind)}, {"view", f.view}});
  return {{"name", n.name},     {"description", n.description},
          {"params", n.params}, {"inputs", inputs},
          {"output", n.output}, {"output_shape", n.shapeOf(n.output)},
          {"flops", n.flops()}, {"parameters", n.parameterCount()},
          {"layers", layers},   {"tasks", tasks},
          {"fixed", fixed}};
}

void runShow(const NetShowOptions& o) {
  const net::Network n = net::loadNetwork(o.network, paramOverrides(o.params));
  net::requireEveryLayerRead(n, o.network);  // a file given now, not a stored run
  const net::TaskGraph g = net::extractTasks(n);
  if (o.json) {
    std::cout << toJson(n, g).dump(2) << "\n";
    return;
  }
  std::cout << n.name << (n.description.empty() ? "" : ": " + n.description) << "\n";
  std::cout << "params: " << paramsText(n);
  for (const net::Input& in : n.inputs)
    std::cout << "; input " << in.name << " " << net::formatShape(in.shape);
  std::cout << "; output " << n.output << " " << net::formatShape(n.shapeOf(n.output)) << "\n";
  std::printf("%s, %.3f GFLOP, %.2f M parameters\n\n",
              counted(static_cast<long long>(n.layers.size()), "layer", "layers").c_str(),
              n.flops() / 1e9, static_cast<double>(n.parameterCount()) / 1e6);
  std::printf("%-30s %-15s %-16s %9s  %s\n", "layer", "op", "output", "MFLOP", "reads");
  for (const net::Layer& l : n.layers) {
    std::string reads;
    for (const std::string& in : l.inputs) reads += (reads.empty() ? "" : ", ") + in;
    if (!l.foldedNorm.empty()) reads += " (folded " + l.foldedNorm + ")";
    std::printf("%-30s %-15s %-16s %9.2f  %s\n", l.name.c_str(),
                std::string(net::layerKindName(l.kind)).c_str(), net::formatShape(l.shape).c_str(),
                n.flops(l) / 1e6, reads.c_str());
  }
  double taskFlops = 0;
  for (const net::Task& t : g.tasks) taskFlops += t.weight() * t.op.flops();
  std::printf("\n%s (weight: how often the task occurs; share: of the tasks' FLOPs)\n",
              counted(static_cast<long long>(g.tasks.size()), "task", "tasks").c_str());
  std::printf("%-26s %6s %9s %6s  %s\n", "task", "weight", "MFLOP", "share", "operator");
  for (const net::Task& t : g.tasks) {
    std::printf("%-26s %6.0f %9.2f %5.1f%%  %s\n", t.name.c_str(), t.weight(), t.op.flops() / 1e6,
                100 * t.weight() * t.op.flops() / taskFlops, t.op.describe().c_str());
    for (const net::Occurrence& o : t.occurrences) {
      std::string layers = o.layer;
      for (const std::string& f : o.fused) layers += " + " + f;
      std::printf("%-26s %s\n", "", layers.c_str());
    }
  }
  std::string fixed, views;
  for (const net::FixedLayer& f : g.fixed) {
    std::string& to = f.view ? views : fixed;
    to += (to.empty() ? "" : ", ") + f.layer;
  }
  std::cout << "\nfixed kernels (timed once, not tuned): " << (fixed.empty() ? "none" : fixed)
            << "\nviews (no kernel): " << (views.empty() ? "none" : views) << "\n";
}

enum class ConfigChoice { Untuned, Random };

struct NetRunOptions {
  std::string network;
  std::vector<std::string> params;
  std::uint64_t seed = 1;
  ConfigChoice configs = ConfigChoice::Untuned;
  std::string mode = "joint";
  std::string kernelTemplate = "direct";
  int warmup = 3, runs = 20;
  bool reference = true;
  net::TorchForm torchForm = net::TorchForm::Eager;
  bool json = false;
};

void runRun(const NetRunOptions& o) {
  const net::ParamOverrides params = paramOverrides(o.params);
  const net::Network n = net::loadNetwork(o.network, params);
  net::requireEveryLayerRead(n, o.network);  // a file given now, not a stored run
  const net::TaskGraph g = net::extractTasks(n);
  std::vector<Config> configs;
  Rng rng(o.seed);
  const layout::TuningMode mode = layout::parseTuningMode(o.mode, "--mode");
  const net::TaskTemplates templates = net::parseTaskTemplates(o.kernelTemplate, "--template");
  std::vector<SearchSpace> spaces;
  for (const net::Task& t : g.tasks) {
    spaces.push_back(net::taskDefinition(t, mode, templates).space);
    const SearchSpace& space = spaces.back();
    std::optional<Config> c;
    if (o.configs == ConfigChoice::Random) c = space.randomValid(rng);
    configs.push_back(c ? *c : untunedConfig(space));
  }
  if (!o.json) announceBuild(n, g);
  const net::EndToEnd e = net::runEndToEnd(o.network, params, n, g, configs, mode,
                                           {o.seed, o.warmup, o.runs, o.reference, o.torchForm},
                                           std::nullopt, templates);
  nlohmann::json tasks = nlohmann::json::array();
  for (std::size_t i = 0; i < g.tasks.size(); ++i) {
    double ms = 0;
    for (const auto& s : e.steps)
      if (s.kind == net::StepKind::Task && s.name == g.tasks[i].occurrences.front().layer)
        ms = s.ms;
    tasks.push_back({{"name", g.tasks[i].name},
                     {"weight", g.tasks[i].weightCount()},
                     {"trials", 0},
                     {"config", spaces[i].format(configs[i])},
                     {"best_ms", ms}});
  }
  nlohmann::json result{{"network", n.name},
                        {"params", n.params},
                        {"backend", "cpu"},
                        {"configs", o.configs == ConfigChoice::Untuned ? "untuned" : "random"},
                        {"mode", layout::tuningModeName(mode)},
                        {"template", templates.name()},
                        {"sum_of_tasks_ms", e.taskMs},
                        {"tasks", tasks}};
  result.update(net::endToEndJson(e));
  if (o.json) {
    std::cout << result.dump(2) << "\n";
  } else {
    std::printf("%-28s %-7s %10s\n", "step", "kind", "median ms");
    for (const auto& s : e.steps)
      std::printf("%-28s %-7s %10.3f\n", s.name.c_str(), net::stepKindName(s.kind).data(), s.ms);
    // Read back from what --json prints: one reader of an end-to-end result, one printer.
    printEndToEnd("\n" + n.name + " on this CPU (" +
                      (o.configs == ConfigChoice::Untuned ? "untuned" : "random") +
                      " configurations)",
                  *net::endToEndFromResult(result));
  }
  requireVerified(e);
}

}  // namespace

void addNetCommands(CLI::App& app) {
  auto* net = app.add_subcommand("net", "Whole networks: presets, their layers and tuning tasks");
  net->require_subcommand(1);
  auto* list = net->add_subcommand("list", "The network presets (resources/networks)");
  list->callback([] { runList(); });
  auto show = std::make_shared<NetShowOptions>();
  auto* cmd = net->add_subcommand("show", "A network's layers, shapes, tasks and fixed kernels");
  cmd->add_option("network", show->network, "A preset name (opevo net list) or a network file")
      ->required();
  cmd->add_option("--param", show->params,
                  "Change a param of the network, e.g. batch=8 (repeatable)");
  cmd->add_flag("--json", show->json, "Print one JSON object");
  cmd->callback([show] { runShow(*show); });

  auto run = std::make_shared<NetRunOptions>();
  auto* r = net->add_subcommand(
      "run", "Run a network end to end on this CPU and check it against libtorch");
  r->add_option("network", run->network, "A preset name (opevo net list) or a network file")
      ->required();
  r->add_option("--param", run->params, "Change a param of the network, e.g. batch=8 (repeatable)");
  r->add_option("--seed", run->seed,
                "Seed of the input and weights (and of random configurations)");
  const std::map<std::string, ConfigChoice> choices = {{"untuned", ConfigChoice::Untuned},
                                                       {"random", ConfigChoice::Random}};
  r->add_option("--configs", run->configs,
                "Task configurations: untuned (a plain schedule) or random (valid, seeded)")
      ->transform(CLI::CheckedTransformer(choices, CLI::ignore_case));
  r->add_option("--mode", run->mode,
                "joint (default: convolutions in their layout template's start blocking, layouts "
                "propagated to the layers that read them, ALT), joint-np (every such tensor "
                "converted, ALT-WP) or loop (plain layouts, ALT-OL)");
  r->add_option("--template", run->kernelTemplate,
                "direct (default), winograd: the stride-1 convolutions run Winograd's template, "
                "matvec: the dense layers with at most 16 rows run the matrix-vector one, or "
                "winograd+matvec; those on the plain layouts, the others as --mode says")
      ->check(networkTemplateCheck());
  r->add_option("--warmup", run->warmup, "Untimed forward passes first (default 3)")
      ->check(wholeIn(0, 1000000));
  r->add_option("--runs", run->runs, "Timed forward passes (default 20)")
      ->check(wholeIn(1, 1000000));
  r->add_flag("!--no-reference", run->reference, "Skip the libtorch reference");
  addTorchFormOption(r, run->torchForm);
  r->add_flag("--json", run->json, "Print one JSON object");
  r->callback([run] { runRun(*run); });
  addNetTuneCommand(*net);
  addNetCompareCommand(*net);
  addNetArchiveCommands(*net);
}

}  // namespace opevo::cli
