// The tuners' own time per proposed configuration on MM1's space (4.15M points): propose plus
// observe, over a 400-trial run. The fitness fed back is a cheap synthetic function of the tile
// sizes; it only gives the tuners something to react to and is not a result of any kind.
#include <benchmark/benchmark.h>

#include <cmath>

#include "ops/presets.h"
#include "tuners/registry.h"

namespace {

using namespace opevo;

double syntheticFitness(const Config& c) {
  double d = 0;
  for (const Vertex& v : c)
    for (std::size_t j = 0; j < v.size(); ++j) d += std::pow(std::log2(double(v[j])) - double(j % 3 + 1), 2);
  return std::exp(-d / 8);
}

void tunerOverhead(benchmark::State& state, const std::string& algorithm) {
  static const SearchSpace space = defaultSpace(preset("MM1"));
  const int trials = 400;
  std::int64_t configs = 0;
  std::uint64_t seed = 1;
  for (auto _ : state) {
    auto tuner = makeTuner(algorithm, space, seed++);
    int done = 0;
    while (done < trials) {
      const auto batch = tuner->propose(std::min<std::size_t>(tuner->preferredBatch(), trials - done));
      if (batch.empty()) break;
      std::vector<Observation> obs;
      for (const Config& c : batch) obs.push_back({c, syntheticFitness(c)});
      tuner->observe(obs);
      done += static_cast<int>(batch.size());
    }
    configs += done;
  }
  // Wall time of the whole loop divided by the configurations it proposed.
  state.counters["us_per_config"] = benchmark::Counter(
      double(configs) / 1e6, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

}  // namespace

int main(int argc, char** argv) {
  for (const char* name : {"opevo", "random", "annealing", "genetic", "gbfs", "na2c"})
    benchmark::RegisterBenchmark((std::string("overhead400/") + name).c_str(),
                                 [name](benchmark::State& s) { tunerOverhead(s, name); })
        ->Unit(benchmark::kMillisecond);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
