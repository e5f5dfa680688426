// One q-random-walk step and one full mutation sample, on MM1's space and on a 12-item
// permutation (479M vertices, never enumerated). Figures go to docs/performance.md.
#include <benchmark/benchmark.h>

#include "ops/presets.h"
#include "space/factor_param.h"
#include "space/perm_param.h"
#include "space/qwalk.h"

namespace {

using namespace opevo;

const SearchSpace& mm1() {
  static const SearchSpace space = defaultSpace(preset("MM1"));
  return space;
}

void stepMM1(benchmark::State& state) {
  Rng rng(1);
  const SearchSpace& space = mm1();
  Config c = space.random(rng);
  std::size_t i = 0;
  for (auto _ : state) {
    const Parameter& p = space.param(i % space.dims());
    c[i % space.dims()] = p.randomNeighbour(c[i % space.dims()], rng);
    ++i;
    benchmark::DoNotOptimize(c);
  }
}
BENCHMARK(stepMM1);

void sampleMM1(benchmark::State& state) {
  // A full mutation of a configuration: one q-walk (q = 0.5) per parameter.
  Rng rng(1);
  const SearchSpace& space = mm1();
  Config c = space.random(rng);
  for (auto _ : state) {
    Config child(space.dims());
    for (std::size_t i = 0; i < space.dims(); ++i) child[i] = qWalk(space.param(i), c[i], 0.5, rng);
    benchmark::DoNotOptimize(child);
  }
}
BENCHMARK(sampleMM1);

void stepPerm12(benchmark::State& state) {
  Rng rng(1);
  PermParam p("perm", 12);
  Vertex v = p.random(rng);
  for (auto _ : state) {
    v = p.randomNeighbour(v, rng);
    benchmark::DoNotOptimize(v);
  }
}
BENCHMARK(stepPerm12);

void samplePerm12(benchmark::State& state) {
  Rng rng(1);
  PermParam p("perm", 12);
  const Vertex v = p.random(rng);
  for (auto _ : state) benchmark::DoNotOptimize(qWalk(p, v, 0.5, rng));
}
BENCHMARK(samplePerm12);

void exactFactor2pow30(benchmark::State& state) {
  // A factorization of 2^30 into 6 parts: 324,632 vertices, exact distribution at q = 0.5.
  FactorParam p("f", std::int64_t(1) << 30, 6);
  for (auto _ : state) benchmark::DoNotOptimize(exactDistribution(p, p.first(), 0.5));
}
BENCHMARK(exactFactor2pow30)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
