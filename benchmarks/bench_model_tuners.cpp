// Cost of the model-based tuners' thinking between measurements, on MM1's space with default
// settings: one AutoTVM batch of 64 (retraining on ~2,000 measured trials, then simulated
// annealing and diversity-aware selection) and one Ansor round (retraining, then evolutionary
// search), plus their parts (training alone, prediction of one annealing step).
#include <benchmark/benchmark.h>

#include <cmath>
#include <type_traits>

#include "model/cost_model.h"
#include "ops/presets.h"
#include "tuners/ansor_tuner.h"
#include "tuners/autotvm_tuner.h"
#include "tuners/random_tuner.h"

namespace {

using namespace opevo;

const SearchSpace& mm1() {
  static const SearchSpace space = defaultSpace(preset("MM1"));
  return space;
}

// A smooth stand-in for measured speed (the one in tests/unit/model_tuners_test.cpp): one
// optimum region in log2 tile sizes, zero for kernels that would fail.
double synthetic(const Config& c) {
  auto l = [](std::int64_t x) { return std::log2(static_cast<double>(x)); };
  auto sq = [](double x) { return x * x; };
  const Vertex &n = c[0], &m = c[1], &k = c[2];
  if (l(n[2]) + l(m[2]) < 5 || l(n[3]) + l(m[3]) > 6) return 0;
  const double d2 = sq(l(n[2]) - 4) + sq(l(m[2]) - 4) + sq(l(n[3]) - 2) + sq(l(m[3]) - 2) +
                    sq(l(n[1]) - 1) + sq(l(m[1]) - 1) + sq(l(k[1]) - 3) + sq(l(k[2]) - 1);
  return 10.0 * std::exp(-d2 / 8.0);
}

std::vector<Observation> measure(const std::vector<Config>& configs) {
  std::vector<Observation> results;
  for (const Config& c : configs) results.push_back({c, synthetic(c)});
  return results;
}

// Runs the tuner itself up to `trials` measurements, so the state (chains, population, history)
// is what a real run has at that point.
void warmUp(Tuner& tuner, std::size_t trials) {
  while (tuner.history().size() < trials) {
    const std::vector<Config> batch = tuner.propose(64);
    if (batch.empty()) break;
    tuner.observe(measure(batch));
  }
}

// A run resumed from 2,000 stored trials (random ones): the first proposal trains the model on
// exactly those trials and searches from fresh annealing chains or a fresh population.
template <typename T>
void batchResumed2000(benchmark::State& state) {
  RandomTuner random(mm1(), {}, 3);
  const std::vector<Observation> stored = measure(random.propose(2000));
  for (auto _ : state) {
    state.PauseTiming();
    T tuner(mm1(), T::defaultSettings(), 1);
    tuner.observe(stored);
    state.ResumeTiming();
    const std::vector<Config> batch = tuner.propose(64);
    benchmark::DoNotOptimize(batch.data());
    state.PauseTiming();
    if (tuner.trainings() != 1 || batch.size() != 64) state.SkipWithError("model not used");
    state.ResumeTiming();
  }
}
BENCHMARK(batchResumed2000<AutoTvmTuner>)
    ->Name("autotvm_batch64_resumed2000")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(8);
BENCHMARK(batchResumed2000<AnsorTuner>)
    ->Name("ansor_round64_resumed2000")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(8);

// Inside a run: the tuner itself has measured 1,920 trials; each iteration the previous batch's
// results arrive and the next batch is proposed, which retrains on everything (1,984 trials at
// the first iteration, 2,432 at the eighth) and anneals from the persistent chains.
template <typename T>
void batchInRun2000(benchmark::State& state) {
  T tuner(mm1(), T::defaultSettings(), 1);
  warmUp(tuner, 1920);
  std::vector<Config> batch = tuner.propose(64);
  for (auto _ : state) {
    state.PauseTiming();
    tuner.observe(measure(batch));
    state.ResumeTiming();
    batch = tuner.propose(64);
    benchmark::DoNotOptimize(batch.data());
  }
  state.counters["trainings"] = static_cast<double>(tuner.trainings());
  if constexpr (std::is_same_v<T, AutoTvmTuner>)
    state.counters["sa_steps_last"] = static_cast<double>(tuner.lastAnnealSteps());
}
BENCHMARK(batchInRun2000<AutoTvmTuner>)
    ->Name("autotvm_batch64_inrun2000")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(8);
BENCHMARK(batchInRun2000<AnsorTuner>)
    ->Name("ansor_round64_inrun2000")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(8);

// Training alone on 2,000 random trials with each tuner's default model settings.
template <typename T>
void train2000(benchmark::State& state) {
  RandomTuner random(mm1(), {}, 1);
  const std::vector<Observation> data = measure(random.propose(2000));
  CostModel model(mm1(), costModelParams(T::defaultSettings(), 1));
  for (auto _ : state) benchmark::DoNotOptimize(model.train(data, {}));
}
BENCHMARK(train2000<AutoTvmTuner>)->Name("autotvm_train2000")->Unit(benchmark::kMillisecond);
BENCHMARK(train2000<AnsorTuner>)->Name("ansor_train2000")->Unit(benchmark::kMillisecond);

// Features and prediction of `rows` configurations: one annealing step is 128 rows, one
// evolutionary generation 2,048.
template <typename T>
void predict(benchmark::State& state) {
  RandomTuner random(mm1(), {}, 2);
  const std::vector<Observation> data = measure(random.propose(2000));
  CostModel model(mm1(), costModelParams(T::defaultSettings(), 1));
  model.train(data, {});
  std::vector<Config> rows;
  for (std::int64_t i = 0; i < state.range(0); ++i) rows.push_back(data[i % data.size()].config);
  std::vector<float> scores;
  for (auto _ : state) {
    model.predict(rows, scores);
    benchmark::DoNotOptimize(scores.data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(predict<AutoTvmTuner>)->Name("autotvm_predict")->Arg(128)->Unit(benchmark::kMicrosecond);
BENCHMARK(predict<AnsorTuner>)->Name("ansor_predict")->Arg(2048)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
