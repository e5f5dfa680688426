// Loading each measured dataset for replay (gunzip, JSON parse, space and table): the cost a
// replay run pays once before its first trial.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "io/gzip_file.h"
#include "io/replay_dataset.h"

namespace {

// The project's own copy of the datasets, resources/datasets (OPEVO_DATASETS_DIR overrides).
std::string dataset(const char* relative) {
  if (const char* dir = std::getenv("OPEVO_DATASETS_DIR")) return std::string(dir) + "/" + relative;
  const auto checkout = std::filesystem::path(__FILE__).parent_path().parent_path();
  return (checkout / "resources" / "datasets" / relative).string();
}

void load(benchmark::State& state, const char* relative) {
  const std::string path = dataset(relative);
  for (auto _ : state) {
    const opevo::ReplayDataset ds = opevo::loadReplayDataset(path);
    benchmark::DoNotOptimize(ds.bestSpeed);
    state.counters["configurations"] = static_cast<double>(ds.table.size());
  }
}

void gunzipOnly(benchmark::State& state, const char* relative) {
  const std::string path = dataset(relative);
  for (auto _ : state) benchmark::DoNotOptimize(opevo::readMaybeGzipped(path).size());
}

BENCHMARK_CAPTURE(load, convolution_A100, "convolution_milo/A100.json.gz")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(load, convolution_A100_T4, "convolution_milo/A100_T4.json.gz")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(load, dedispersion_MI250X, "dedispersion_milo/MI250X.json.gz")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(load, gemm_RTX_2080_Ti, "gemm/RTX_2080_Ti.json.gz")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(gunzipOnly, gemm_RTX_2080_Ti, "gemm/RTX_2080_Ti.json.gz")
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
