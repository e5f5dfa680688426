#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <unordered_map>

#include "cli/commands.h"
#include "cli/option_checks.h"
#include "common/error.h"
#include "space/param_spec.h"
#include "space/qwalk.h"

namespace opevo::cli {
namespace {

struct QwalkOptions {
  std::string param;
  std::string from;
  double q = 0.5;
  std::int64_t samples = 0;
  std::uint64_t seed = 1;
  bool json = false;
};

void runQwalk(const QwalkOptions& o) {
  const ParameterPtr param = makeParameter("", o.param);
  checkMutationRate(o.q);
  if (o.samples < 0)
    throw InputError("--samples must be 0 or more, got " + std::to_string(o.samples));
  const Vertex start = o.from.empty() ? param->first() : param->parse(o.from);
  const WalkDistribution d = exactDistribution(*param, start, o.q);
  const ParamGraph& g = d.graph;

  std::vector<double> frequency;
  if (o.samples > 0) {
    std::unordered_map<Vertex, std::size_t, VertexHash> index;
    for (std::size_t i = 0; i < g.size(); ++i) index.emplace(g.vertices[i], i);
    std::vector<std::int64_t> hits(g.size(), 0);
    Rng rng(o.seed);
    for (std::int64_t s = 0; s < o.samples; ++s) ++hits[index.at(qWalk(*param, start, o.q, rng))];
    for (auto h : hits) frequency.push_back(double(h) / double(o.samples));
  }

  // Nearest first; at equal distance the likeliest first.
  std::vector<std::size_t> order(g.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (g.distance[a] != g.distance[b]) return g.distance[a] < g.distance[b];
    return d.probability[a] > d.probability[b];
  });
  const double total = std::accumulate(d.probability.begin(), d.probability.end(), 0.0);

  if (o.json) {
    nlohmann::json vertices = nlohmann::json::array();
    for (std::size_t i : order) {
      nlohmann::json v{{"vertex", param->format(g.vertices[i])},
                       {"distance", g.distance[i]},
                       {"degree", g.degree(i)},
                       {"probability", d.probability[i]}};
      if (!frequency.empty()) v["frequency"] = frequency[i];
      vertices.push_back(std::move(v));
    }
    nlohmann::json out{{"param", param->spec()},
                       {"from", param->format(start)},
                       {"q", o.q},
                       {"vertices", std::move(vertices)},
                       {"total_probability", total},
                       {"iterations", d.iterations}};
    if (o.samples > 0) {
      out["samples"] = o.samples;
      out["seed"] = o.seed;
    }
    std::cout << out.dump(2) << "\n";
    return;
  }
  std::size_t width = 6;
  for (const Vertex& v : g.vertices) width = std::max(width, param->format(v).size());
  std::printf("%-*s %8s %6s %14s%s\n", int(width), "vertex", "distance", "degree", "probability",
              frequency.empty() ? "" : "      frequency");
  for (std::size_t i : order) {
    std::printf("%-*s %8d %6zu %14.10f", int(width), param->format(g.vertices[i]).c_str(),
                g.distance[i], g.degree(i), d.probability[i]);
    if (!frequency.empty()) std::printf(" %14.10f", frequency[i]);
    std::printf("\n");
  }
  std::printf("%zu vertices, q = %g, from %s: total probability %.12f (%d %s)\n", g.size(), o.q,
              param->format(start).c_str(), total, d.iterations,
              d.usedConjugateGradient ? "conjugate-gradient iterations" : "walk steps summed");
  if (o.samples > 0)
    std::printf("frequency: %lld sampled walks, seed %llu\n", static_cast<long long>(o.samples),
                static_cast<unsigned long long>(o.seed));
}

}  // namespace

void addQwalkCommand(CLI::App& app) {
  auto options = std::make_shared<QwalkOptions>();
  auto* cmd = app.add_subcommand(
      "qwalk", "Exact q-random-walk distribution of one parameter from a start vertex");
  cmd->add_option("--param", options->param,
                  "Parameter spec: factor:C:nu, perm:n, discrete:v1,v2,..., choice:a,b,...")
      ->required();
  cmd->add_option("--from", options->from, "Start vertex, e.g. 8,1,1 (default: the first vertex)");
  cmd->add_option("--q", options->q,
                  "Probability of each step, the first included (k steps: (1-q) q^k), 0 < q < 1 "
                  "(default 0.5)");
  cmd->add_option("--samples", options->samples,
                  "Also sample N walks and show their frequencies (at most 10^9)")
      ->check(wholeIn(0, 1000000000));
  cmd->add_option("--seed", options->seed, "Seed for --samples (default 1)");
  cmd->add_flag("--json", options->json, "Print one JSON object");
  cmd->callback([options] { runQwalk(*options); });
}

}  // namespace opevo::cli
