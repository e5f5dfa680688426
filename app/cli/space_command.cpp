#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/option_checks.h"
#include "common/error.h"
#include "io/t1_space.h"
#include "layout/loop_order_names.h"
#include "layout/tuning_mode.h"
#include "ops/operator_json.h"
#include "ops/presets.h"

namespace opevo::cli {
namespace {

struct SpaceOptions {
  std::string preset;
  bool json = false;
  std::uint64_t seed = 1;
  std::string target = "common";
  std::string mode;
  std::uint64_t maxPoints = 20'000'000;
};

// The example configuration: one that satisfies every constraint (a vertex drawn per parameter
// on its own broke them: tile_k 1,1009,1 beside split_k 4), or, where none turns up in the
// draws, one that may not (said so).
struct Example {
  Config config;
  bool valid = true;
};

Example example(const SearchSpace& space, Rng& rng) {
  if (std::optional<Config> c = space.randomValid(rng)) return {*c, true};
  return {space.random(rng), false};
}

void runSpace(const SpaceOptions& o) {
  const SpaceTarget target = parseSpaceTarget(o.target, "--target");
  if (o.preset.empty()) {
    if (o.target != "common")
      throw InputError("--target " + o.target +
                       " needs an operator: opevo space OPERATOR --target " + o.target);
    if (o.json) {
      nlohmann::json presets = nlohmann::json::array();
      for (const std::string& name : presetNames()) {
        const OperatorSpec op = preset(name);
        presets.push_back({{"name", name}, {"description", op.describe()}, {"flops", op.flops()}});
      }
      std::cout << presets.dump(2) << "\n";
      return;
    }
    for (const std::string& name : presetNames())
      std::cout << name << "\t" << preset(name).describe() << "\n";
    return;
  }
  // A preset or an operator file, with the file's own space (its overrides, its mode, or the
  // mode asked for, whose template the overrides must then fit).
  std::optional<layout::TuningMode> mode;
  if (!o.mode.empty()) mode = layout::parseTuningMode(o.mode, "--mode");
  OperatorDefinition loaded = loadOperator(o.preset, mode);
  requireTemplateFits(loaded.op, target, "--target " + o.target);
  const OperatorDefinition def = withSpaceTarget(std::move(loaded), target);
  const OperatorSpec& op = def.op;
  const SearchSpace& space = def.space;
  Rng rng(o.seed);
  const Example ex = example(space, rng);
  // Counted by visiting every point, so only up to --max-points of them.
  const std::optional<std::uint64_t> valid = space.constraints().empty() && space.size().fitsIn64()
                                                 ? std::optional<std::uint64_t>(space.size().as64())
                                                 : countValidConfigs(space, o.maxPoints);
  if (o.json) {
    nlohmann::json params = nlohmann::json::array();
    for (std::size_t i = 0; i < space.dims(); ++i) {
      const Parameter& p = space.param(i);
      nlohmann::json param = {{"name", p.name()},
                              {"kind", kindName(p.kind())},
                              {"spec", p.spec()},
                              {"size", p.size().toString()},
                              {"example", p.format(ex.config[i])}};
      // A loop order's items, index i the i-th loop (a vertex lists them outermost first).
      if (const auto loops = layout::loopOrderNames(op.kind, def.mode, p); !loops.empty()) {
        param["loops"] = nlohmann::json::array();
        for (const layout::LoopName& l : loops)
          param["loops"].push_back({{"name", l.name}, {"walks", l.walks}});
      }
      params.push_back(std::move(param));
    }
    nlohmann::json constraints = nlohmann::json::array();
    for (const auto& c : space.constraints()) constraints.push_back(c.description);
    const std::optional<Config>& start = space.startPoint();
    std::cout << nlohmann::json{{"operator", op.name},
                                {"target", spaceTargetName(target)},
                                {"description", op.describe()},
                                {"flops", op.flops()},
                                {"parameters", params},
                                {"constraints", constraints},
                                {"size", space.size().toString()},
                                {"valid", valid ? nlohmann::json(*valid) : nlohmann::json()},
                                {"example_valid", ex.valid},
                                {"start",
                                 start ? nlohmann::json(space.format(*start)) : nlohmann::json()}}
                     .dump(2)
              << "\n";
    return;
  }
  std::cout << op.name << ": " << op.describe() << " (" << op.flops() / 1e9 << " GFLOP)\n\n";
  // The spec column as wide as its longest (a discrete parameter's values can pass 18).
  int specWidth = 18;
  for (std::size_t i = 0; i < space.dims(); ++i)
    specWidth = std::max(specWidth, static_cast<int>(space.param(i).spec().size()));
  std::printf("%-22s %-9s %-*s %12s  %s\n", "parameter", "kind", specWidth, "spec", "size",
              "example");
  for (std::size_t i = 0; i < space.dims(); ++i) {
    const Parameter& p = space.param(i);
    std::printf("%-22s %-9s %-*s %12s  %s\n", p.name().c_str(),
                std::string(kindName(p.kind())).c_str(), specWidth, p.spec().c_str(),
                p.size().toString().c_str(), p.format(ex.config[i]).c_str());
  }
  // A loop order's vertices (2,0,1) name loops by index: which is which.
  for (std::size_t i = 0; i < space.dims(); ++i)
    if (const std::string meaning = layout::loopOrderMeaning(op.kind, def.mode, space.param(i));
        !meaning.empty())
      std::cout << space.param(i).name() << ": " << meaning << "\n";
  for (const auto& c : space.constraints()) std::cout << "constraint: " << c.description << "\n";
  // Where a fresh joint run begins (its first proposal) and what a network runs untuned; a joint
  // space's for --target gpu is the GPU's blocking, for common this machine's CPU's.
  if (const std::optional<Config>& start = space.startPoint())
    std::cout << "start: " << space.format(*start) << "\n";
  if (!ex.valid)
    std::cout << "(the example breaks a constraint: no valid configuration turned up in "
                 "100000 draws)\n";
  if (space.constraints().empty()) {
    std::cout << "total size: " << space.size().toString() << " configurations\n";
    return;
  }
  std::cout << "total size: " << space.size().toString()
            << " configurations (before constraints)\n";
  if (valid)
    std::printf("valid: %llu configurations (%.1f%%)\n", static_cast<unsigned long long>(*valid),
                space.size().approx() > 0 ? 100.0 * double(*valid) / space.size().approx() : 0.0);
  else
    std::printf("valid: not counted (more than %llu points to visit; see --max-points)\n",
                static_cast<unsigned long long>(o.maxPoints));
}

}  // namespace

void addSpaceCommand(CLI::App& app) {
  auto options = std::make_shared<SpaceOptions>();
  auto* cmd =
      app.add_subcommand("space", "Print an operator's search space (no argument: list presets)");
  cmd->add_option(
      "operator", options->preset,
      "Preset operator (MM1-3, BMM1-3, C1-2, AlexNet/ResNet/MobileNetV2 layers) or operator file");
  cmd->add_flag("--json", options->json, "Print one JSON object");
  cmd->add_option("--seed", options->seed, "Seed for the example configuration");
  cmd->add_option("--mode", options->mode,
                  "loop or joint: the template to read the operator for (default: a file's own "
                  "\"mode\", else loop); a file's space overrides must name its parameters");
  cmd->add_option("--max-points", options->maxPoints,
                  "Count the valid configurations when the space has at most this many points "
                  "(default 20000000)")
      ->check(atLeast(1));
  cmd->add_option("--target", options->target,
                  "common: the parameters every backend's template reads (default); gpu: the "
                  "space CUDA/HIP runs tune, with the GPU templates' own parameters (split_k; "
                  "MatMul's stages; with --mode joint, the GPU's start); winograd: the Winograd "
                  "template's (stride-1 Conv2Ds, tune --template winograd); matvec: the "
                  "matrix-vector template's (at most 16 rows of A, B stored m x k; tune "
                  "--template matvec); matvec-gpu: that with the CUDA/HIP kernel's lanes and "
                  "k_split");
  cmd->callback([options] { runSpace(*options); });
}

}  // namespace opevo::cli
