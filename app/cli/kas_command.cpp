#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/kas_groups_text.h"
#include "cli/measuring_options.h"
#include "cli/option_checks.h"
#include "common/error.h"
#include "io/output_folder.h"
#include "kas/candidate_sampling.h"
#include "kas/conv_targets.h"
#include "kas/kas_checks.h"
#include "kas/kas_json.h"
#include "kas/kas_tuning.h"
#include "kas/kernel_fit.h"
#include "kas/sampler.h"
#include "kas/share_text.h"
#include "space/text.h"

namespace opevo::cli {
namespace {

struct KasOptions {
  std::string network = "resnet18";
  double flops = 0.5, params = 0.5;
  std::int64_t groups = 0;  // 0: the sampler's or the solver's choice
  bool json = false;
};

std::string hex(std::uint64_t h) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

using kas::checkGroups;

std::vector<kas::ConvTarget> targetsOf(const std::string& network,
                                       std::vector<std::vector<std::string>>* layers = nullptr) {
  return kas::networkTargets(network, layers);
}

nlohmann::json targetsJson(const std::vector<kas::ConvTarget>& targets) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& t : targets)
    out.push_back({{"name", t.name},
                   {"channels", t.channels},
                   {"height", t.height},
                   {"width", t.width},
                   {"kernel", {t.kernelH, t.kernelW}},
                   {"count", t.count}});
  return out;
}

// The first group count (in `order`) for which the budget solver fits the kernel.
std::optional<kas::Solution> fit(const kas::MicroDag& dag,
                                 const std::vector<kas::ConvTarget>& targets,
                                 const std::vector<std::int64_t>& order, const kas::Budget& budget,
                                 std::string* why) {
  auto f = kas::fitKernel(dag, {targets}, order, budget, why);
  if (!f) return std::nullopt;
  return std::move(f->solutions.front());
}

using kas::groupOrder;

std::string summary(const kas::MicroDag& dag) {
  std::string s;
  for (std::size_t i = 1; i < dag.nodes().size(); ++i) {
    const kas::Node& n = dag.nodes()[i];
    if (!s.empty()) s += " ";
    s += std::string(kas::primitiveName(n.kind));
  }
  return s;
}

struct SampleOptions {
  KasOptions kas;
  std::size_t count = 200;
  std::uint64_t seed = 1;
  std::size_t minPrimitives = 3, maxPrimitives = 9;
  std::string out;
};

void runSample(const SampleOptions& o) {
  if (o.minPrimitives < 1 || o.maxPrimitives < o.minPrimitives)
    throw InputError("--min-primitives must be at least 1 and at most --max-primitives");
  const auto targets = targetsOf(o.kas.network);
  checkGroups(targets, o.kas.groups, o.kas.network);
  const kas::Budget budget{o.kas.flops, o.kas.params};
  // The search's own sampling: a kernel listed here is the one `kas search` evaluates with the
  // same seed and budget, with the same G and sizes.
  kas::CandidateSampling sampling;
  sampling.seed = o.seed;
  sampling.count = o.count;
  sampling.options.minPrimitives = o.minPrimitives;
  sampling.options.maxPrimitives = o.maxPrimitives;
  sampling.groups = o.kas.groups;
  sampling.budget = budget;
  const auto start = std::chrono::steady_clock::now();
  kas::SampleStats stats;
  const std::vector<kas::SampledCandidate> sampled =
      kas::sampleCandidates(targets, sampling, &stats);
  std::vector<kas::MicroDag> kernels;
  std::map<std::uint64_t, kas::Solution> solutions;
  for (const auto& c : sampled) {
    kernels.push_back(c.dag);
    solutions[c.dag.canonicalHash()] = c.fit.solutions.front();
  }
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  // As kas search says it, and as a failure: an empty table with exit status 0 read as success.
  if (kernels.empty()) throw RunFailed(kas::noKernelFitsText(o.kas.network));
  if (!o.out.empty()) {
    createOutputFolder(o.out);
    for (const auto& k : kernels) {
      const std::string path = o.out + "/kernel-" + hex(k.canonicalHash()) + ".json";
      std::ofstream f(path);
      nlohmann::json j = kas::kernelToJson(k);
      j["groups"] = solutions.at(k.canonicalHash()).groups;  // as sampled: show and tune keep it
      f << j.dump(2) << "\n";
      if (!f) throw RunFailed("cannot write " + path);
    }
  }
  if (o.kas.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& k : kernels) {
      const kas::Solution& s = solutions.at(k.canonicalHash());
      list.push_back({{"hash", hex(k.canonicalHash())},
                      {"primitives", k.nodes().size() - 1},
                      {"fc", k.fcCount()},
                      {"kernel", kas::kernelToJson(k)},
                      {"solution", kas::solutionToJson(k, s, targets)}});
    }
    nlohmann::json j{{"network", o.kas.network},
                     {"seed", o.seed},
                     {"count", o.count},
                     {"budget", {{"flops", budget.flops}, {"params", budget.params}}},
                     {"targets", targetsJson(targets)},
                     {"attempts", stats.attempts},
                     {"dead_ends", stats.deadEnds},
                     {"duplicates", stats.duplicates},
                     {"distinct", kernels.size()},
                     {"valid", kernels.size()},
                     {"milliseconds", ms},
                     {"kernels", std::move(list)}};
    std::cout << j.dump() << "\n";
    return;
  }
  std::printf(
      "%zu distinct kernels that fit %s's %zu convolution shape(s) and the training backbone's "
      "within %s of their FLOPs and %s of their weights, as kas search samples them\n(%s; %zu "
      "draws: %zu dead ends or over budget, %zu duplicates; %.0f ms)\n\n",
      kernels.size(), o.kas.network.c_str(), targets.size(), kas::shareText(budget.flops).c_str(),
      kas::shareText(budget.params).c_str(), groupsSource(o.kas.groups, o.seed).c_str(),
      stats.attempts, stats.deadEnds, stats.duplicates, ms);
  std::printf("%-16s %4s %3s %4s %7s %7s  %s\n", "hash", "prim", "fc", "G", "FLOPs", "weights",
              "primitives");
  for (const auto& k : kernels) {
    const kas::Solution& s = solutions.at(k.canonicalHash());
    std::printf("%-16s %4zu %3zu %4lld %7s %7s  %s\n", hex(k.canonicalHash()).c_str(),
                k.nodes().size() - 1, k.fcCount(), static_cast<long long>(s.groups),
                kas::shareText(s.flops / s.convFlops).c_str(),
                kas::shareText(s.params / s.convParams).c_str(), summary(k).c_str());
  }
}

void printSolution(const kas::MicroDag& dag, const kas::Solution& s,
                   const std::vector<kas::ConvTarget>& targets, const std::string& groupsFrom) {
  std::printf("G = %lld (%s); over all layers %s of the convolutions' FLOPs, %s of their weights\n",
              static_cast<long long>(s.groups), groupsFrom.c_str(),
              kas::shareText(s.flops / s.convFlops).c_str(),
              kas::shareText(s.params / s.convParams).c_str());
  for (std::size_t i = 0; i < targets.size(); ++i) {
    const auto& t = targets[i];
    std::printf("  %-24s C=%lld %lldx%lld k%lldx%lld x%lld:", t.name.c_str(),
                static_cast<long long>(t.channels), static_cast<long long>(t.height),
                static_cast<long long>(t.width), static_cast<long long>(t.kernelH),
                static_cast<long long>(t.kernelW), static_cast<long long>(t.count));
    for (kas::Symbol x : dag.freeVariables())
      std::printf(" %s=%lld", std::string(kas::symbolName(x)).c_str(),
                  static_cast<long long>(s.layers[i].bindings[static_cast<std::size_t>(x)]));
    std::printf("  %.1f MFLOP (conv %.1f)\n", s.layers[i].flops / 1e6, t.flops() / 1e6);
  }
}

void runShowOrSolve(const std::string& file, const KasOptions& o, bool solveOnly) {
  const kas::KernelFile kernel = kas::readKernelFile(file);
  const kas::MicroDag& dag = kernel.dag;
  const auto targets = targetsOf(o.network);
  checkGroups(targets, o.groups, o.network);
  std::string why;
  const auto s =
      fit(dag, targets, groupOrder(targets, o.groups ? o.groups : kernel.groups, nullptr),
          {o.flops, o.params}, &why);
  if (o.json) {
    nlohmann::json j{{"hash", hex(dag.canonicalHash())},
                     {"kernel", kas::kernelToJson(dag)},
                     {"targets", targetsJson(targets)}};
    if (s)
      j["solution"] = kas::solutionToJson(dag, *s, targets);
    else
      j["error"] = why;
    std::cout << j.dump() << "\n";
  } else {
    if (!solveOnly) {
      std::printf("kernel %s, %zu primitives\n%s", hex(dag.canonicalHash()).c_str(),
                  dag.nodes().size() - 1, dag.text().c_str());
      std::printf("free variables:");
      for (kas::Symbol x : dag.freeVariables())
        std::printf(" %s", std::string(kas::symbolName(x)).c_str());
      std::printf("%s\n\n", dag.freeVariables().empty() ? " none" : "");
    }
    if (s) printSolution(dag, *s, targets, groupsFrom(kernel.groups, o.groups));
  }
  if (!s)
    throw InputError(file + ": does not fit " + o.network + ": " + why +
                     sampledWith(kernel.groups, o.groups));
}

struct TuneOptions {
  KasOptions kas;
  MeasuringArgs measuring;
  std::string file, layer, algo = "opevo-m";
  int trials = 24;
  std::uint64_t seed = 1;
};

void runTune(const TuneOptions& o) {
  const kas::KernelFile kernel = kas::readKernelFile(o.file);
  const kas::MicroDag& dag = kernel.dag;
  std::vector<std::vector<std::string>> layers;
  const auto targets = targetsOf(o.kas.network, &layers);
  checkGroups(targets, o.kas.groups, o.kas.network);
  kas::checkTuning(targets, o.algo, o.trials);
  const kas::KasMeasurerOptions measuring = kasMeasuring(o.measuring);
  std::size_t which = 0;
  if (!o.layer.empty()) {
    // Any layer of a shape names it: the kernel is timed once per shape.
    which = targets.size();
    for (std::size_t i = 0; i < targets.size(); ++i)
      if (std::to_string(i) == o.layer ||
          std::find(layers[i].begin(), layers[i].end(), o.layer) != layers[i].end())
        which = i;
    if (which == targets.size()) {
      std::string names;
      for (std::size_t i = 0; i < targets.size(); ++i) {
        names += (names.empty() ? "" : "; ") + std::to_string(i) + " =";
        for (const std::string& layer : layers[i]) names += " " + layer;
      }
      throw InputError("--layer " + o.layer + ": not a replaceable convolution of " +
                       o.kas.network + " (give one of its layers or its shape's index: " + names +
                       ")");
    }
  }
  std::string why;
  const auto s =
      fit(dag, targets, groupOrder(targets, o.kas.groups ? o.kas.groups : kernel.groups, nullptr),
          {o.kas.flops, o.kas.params}, &why);
  if (!s)
    throw InputError(o.file + ": does not fit " + o.kas.network + ": " + why +
                     sampledWith(kernel.groups, o.kas.groups));
  kas::KasMeasurer measurer(kas::kasLayer(dag, targets[which], s->layers[which]), measuring);
  kas::KasTuneOptions options;
  options.algorithm = o.algo;
  options.trials = o.trials;
  options.seed = o.seed;
  // One line rewritten in place on a terminal; plain lines into a file or a pipe, as kas search
  // and opevo tune write them.
  const bool terminal = isatty(fileno(stderr)) == 1;
  if (!o.kas.json)
    options.progress = [terminal](int trial, double best) {
      std::fprintf(stderr,
                   terminal ? "\r\033[Ktrial %d: best trial %.4f ms"
                            : "trial %d: best trial %.4f ms (the start schedule included)\n",
                   trial, best);
    };
  const kas::KasTuneResult r = kas::tuneKasLayer(measurer, options);
  if (!o.kas.json && terminal) std::fprintf(stderr, "\n");
  const auto& t = targets[which];
  if (o.kas.json) {
    std::cout << nlohmann::json{{"kernel", hex(dag.canonicalHash())},
                                {"layer", t.name},
                                {"algorithm", r.algorithm},
                                {"trials", r.trials},
                                {"kernel_flops", s->layers[which].flops},
                                {"conv_flops", t.flops()},
                                {"best_schedule", r.bestSchedule},
                                {"best_ms", r.bestMs},
                                {"best_trial_ms", r.bestTrialMs},
                                {"default_ms", r.defaultMs},
                                {"reference",
                                 {{"name", r.referenceLibrary}, {"ms", r.referenceMs}}},
                                {"speedup", r.speedup()},
                                {"best_curve_ms", r.bestCurveMs},
                                {"notes", r.notes}}
                     .dump()
              << "\n";
  } else {
    std::printf(
        "kernel %s at %s (C=%lld, %lldx%lld): %.3g MFLOP against the convolution's %.4g MFLOP\n",
        hex(dag.canonicalHash()).c_str(), t.name.c_str(), static_cast<long long>(t.channels),
        static_cast<long long>(t.height), static_cast<long long>(t.width),
        s->layers[which].flops / 1e6, t.flops() / 1e6);
    // One column of times, whatever the algorithm's name and the library's. The best trial is
    // the progress's last figure; the chosen schedule is timed again after the tuning and its
    // median is what the speed-up (and a search's Kernel ms) counts, so the two may differ.
    const std::string tuned = "best trial (" + r.algorithm + ", " +
                              counted(r.trials, "trial", "trials") + ", start included)";
    const std::string chosen = "chosen schedule, median of its timings";
    const int width =
        static_cast<int>(std::max({tuned.size(), chosen.size(), r.referenceLibrary.size()}));
    std::printf("  %-*s %9.4f ms\n", width, "start schedule", r.defaultMs);
    std::printf("  %-*s %9.4f ms\n", width, tuned.c_str(), r.bestTrialMs);
    std::printf("  %-*s %9.4f ms  %s\n", width, chosen.c_str(), r.bestMs, r.bestSchedule.c_str());
    std::printf("  %-*s %9.4f ms\n", width, r.referenceLibrary.c_str(), r.referenceMs);
    std::printf("  speed-up over the convolution (its time over the chosen schedule's): %.2fx\n",
                r.speedup());
    if (!r.notes.empty()) std::printf("  %s\n", r.notes.c_str());
  }
  if (r.bestMs <= 0) throw RunFailed("no schedule of the kernel was verified");
}

void addKasOptions(CLI::App* c, KasOptions& o) {
  c->add_option("--network", o.network, "Network whose convolutions the kernel replaces")
      ->capture_default_str();
  c->add_option("--flops", o.flops, "FLOPs budget, a fraction of the replaced convolutions'")
      ->check(numberIn(1e-6, 100.0))
      ->capture_default_str();
  c->add_option("--params", o.params, "Weights budget, a fraction of the convolutions'")
      ->check(numberIn(1e-6, 100.0))
      ->capture_default_str();
  c->add_option("--groups", o.groups, "Group count G (default: tried in turn)")->check(atLeast(1));
  c->add_flag("--json", o.json, "Print one JSON object");
}

}  // namespace

void addKasCommands(CLI::App& app) {
  CLI::App* kas = app.add_subcommand("kas",
                                     "Kernel architecture search (Canvas): sample, solve, tune, "
                                     "train and search micro-DAG kernels");
  kas->require_subcommand(1);

  static SampleOptions sample;
  CLI::App* s =
      kas->add_subcommand("sample", "Sample distinct kernels that fit a network's convolutions");
  addKasOptions(s, sample.kas);
  s->add_option("--count", sample.count, "Kernels wanted")
      ->capture_default_str()
      ->check(atLeast(1));
  s->add_option("--seed", sample.seed, "Seed")->capture_default_str();
  s->add_option("--min-primitives", sample.minPrimitives,
                "Fewest primitives in a kernel, before the fc that finishes it where one is needed "
                "(the prim column counts that one too)")
      ->capture_default_str();
  s->add_option("--max-primitives", sample.maxPrimitives,
                "Most primitives in a kernel, before the finishing fc (so prim can show one more)")
      ->capture_default_str();
  s->add_option("--out", sample.out, "Write each kernel to DIR/kernel-HASH.json");
  s->callback([] { runSample(sample); });

  static KasOptions show;
  static std::string showFile;
  CLI::App* sh = kas->add_subcommand("show", "A kernel file's primitives, shapes and solved sizes");
  sh->add_option("file", showFile, "Kernel file (opevo kas sample --out writes them)")->required();
  addKasOptions(sh, show);
  sh->callback([] { runShowOrSolve(showFile, show, false); });

  static KasOptions solve;
  static std::string solveFile;
  CLI::App* so = kas->add_subcommand("solve", "Solve a kernel's free sizes for a network's layers");
  so->add_option("file", solveFile, "Kernel file")->required();
  addKasOptions(so, solve);
  so->callback([] { runShowOrSolve(solveFile, solve, true); });

  static TuneOptions tune;
  CLI::App* tu = kas->add_subcommand(
      "tune", "Tune a kernel's fused schedule at one layer on this CPU, against the convolution");
  tu->add_option("file", tune.file, "Kernel file")->required();
  addKasOptions(tu, tune.kas);
  tu->add_option("--layer", tune.layer, "Replaced convolution (name or index; default the first)");
  tu->add_option("--trials", tune.trials, "Schedules measured")
      ->capture_default_str()
      ->check(atLeast(1));
  tu->add_option("--algo", tune.algo, "Tuning algorithm (opevo tuners)")->capture_default_str();
  tu->add_option("--seed", tune.seed, "Seed")->capture_default_str();
  addMeasuringOptions(tu, tune.measuring, kasTimeoutText());
  tu->callback([] { runTune(tune); });

  addKasSearchCommands(kas);
}

}  // namespace opevo::cli
