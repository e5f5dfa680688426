#include "space/qwalk.h"

#include <cmath>
#include <string>

#include "common/error.h"
#include "space/text.h"

namespace opevo {

void checkMutationRate(double q) {
  if (!(q > 0.0 && q < 1.0))
    throw InputError("mutation rate q must lie strictly between 0 and 1, got " + formatNumber(q) +
                     " (accepted form: a number such as 0.5)");
}

Vertex qWalk(const Parameter& param, const Vertex& start, double q, Rng& rng) {
  Vertex v = start;
  while (rng.chance(q)) v = param.randomNeighbour(v, rng);
  return v;
}

namespace {

constexpr double kMassTolerance = 1e-12;

// Sum over t of (1-q) Q^t p0, stopping once the walks still going carry under 1e-12 of mass.
// The mass of Q^t p0 is exactly q^t, so the truncation error is known.
void powerSeries(const ParamGraph& g, double q, WalkDistribution& d) {
  const std::size_t n = g.size();
  std::vector<double> p(n, 0.0), next(n, 0.0);
  p[0] = 1.0;
  d.probability.assign(n, 0.0);
  double going = 1.0;  // mass of p
  while (going >= kMassTolerance * 0.1) {
    for (std::size_t i = 0; i < n; ++i) d.probability[i] += (1 - q) * p[i];
    std::fill(next.begin(), next.end(), 0.0);
    for (std::size_t u = 0; u < n; ++u) {
      if (p[u] == 0.0) continue;
      const std::size_t deg = g.degree(u);
      if (deg == 0) {
        next[u] += q * p[u];  // nowhere to go: the walk stays put
        continue;
      }
      const double share = q * p[u] / static_cast<double>(deg);
      for (std::uint32_t k = g.offsets[u]; k < g.offsets[u + 1]; ++k) next[g.targets[k]] += share;
    }
    p.swap(next);
    going *= q;
    ++d.iterations;
  }
  d.truncatedMass = going;
}

// For q near 1 the series converges slowly. With S = D y the system (I - qAD^-1) S = (1-q) p0
// becomes (D - qA) y = (1-q) p0, symmetric positive definite, which conjugate gradients solve in
// about sqrt((1+q)/(1-q)) iterations per digit.
void conjugateGradient(const ParamGraph& g, double q, WalkDistribution& d) {
  const std::size_t n = g.size();
  auto apply = [&](const std::vector<double>& x, std::vector<double>& out) {
    for (std::size_t u = 0; u < n; ++u) {
      double acc = static_cast<double>(g.degree(u)) * x[u];
      for (std::uint32_t k = g.offsets[u]; k < g.offsets[u + 1]; ++k) acc -= q * x[g.targets[k]];
      out[u] = acc;
    }
  };
  std::vector<double> y(n, 0.0), r(n, 0.0), dir(n, 0.0), ad(n, 0.0);
  r[0] = 1 - q;
  dir = r;
  double rr = r[0] * r[0];
  const double stop = rr * 1e-30;
  while (rr > stop && d.iterations < 100000) {
    apply(dir, ad);
    double dad = 0;
    for (std::size_t i = 0; i < n; ++i) dad += dir[i] * ad[i];
    const double alpha = rr / dad;
    double rrNext = 0;
    for (std::size_t i = 0; i < n; ++i) {
      y[i] += alpha * dir[i];
      r[i] -= alpha * ad[i];
      rrNext += r[i] * r[i];
    }
    for (std::size_t i = 0; i < n; ++i) dir[i] = r[i] + (rrNext / rr) * dir[i];
    rr = rrNext;
    ++d.iterations;
  }
  d.probability.resize(n);
  double total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    d.probability[i] = std::max(0.0, static_cast<double>(g.degree(i)) * y[i]);
    total += d.probability[i];
  }
  d.truncatedMass = std::fabs(1.0 - total);
  d.usedConjugateGradient = true;
}

}  // namespace

WalkDistribution exactDistribution(const Parameter& param, const Vertex& start, double q,
                                   std::size_t maxVertices, WalkMethod method) {
  checkMutationRate(q);
  if (!param.contains(start))
    throw InputError("start vertex '" + param.format(start) + "' is not a vertex of " +
                     param.spec());
  WalkDistribution d;
  d.graph = buildGraph(param, start, maxVertices);
  const double steps = std::log(kMassTolerance * 0.1) / std::log(q);
  const double work = steps * static_cast<double>(d.graph.edgeEnds() + d.graph.size());
  const bool series = method == WalkMethod::Series ||
                      (method == WalkMethod::Auto && work < 2e8) || d.graph.degree(0) == 0;
  if (series)
    powerSeries(d.graph, q, d);
  else
    conjugateGradient(d.graph, q, d);
  return d;
}

}  // namespace opevo
