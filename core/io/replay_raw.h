#pragma once

// Internal to the replay reader: what the Kernel Tuner and T4 readers extract from a file before
// the common part turns it into a search space and a table.

#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/measurement.h"
#include "io/replay_dataset.h"

namespace opevo::replay {

struct RawEntry {
  std::string where;                          // "cache entry '16,1,...'" or "result 12"
  std::vector<const nlohmann::json*> values;  // one per parameter, in parameter order
  // Everything but speed; its costs as a replay charges them (ReplayDataset::deviceTimeNote):
  // compileMs, verifyMs, and measureMs (the benchmark and the verification).
  Measurement measurement;
  double timeMs = 0;  // the file's objective time (mean over runs)
  // Every numeric measurement that is a throughput (name -> value), kept until the common part
  // has chosen one unit for the whole file.
  std::vector<std::pair<std::string, double>> metrics;
  // What only an import keeps (ReplayDataset::FileEntry): a Kernel Tuner entry's timestamp as
  // written and its strategy_time. A T4 result's are read by the import itself.
  std::string timestamp;
  double strategyMs = 0;
};

// Which parts of a measurement's cost the entries of a file give, counted over its entries: the
// sentence that says what a replay charges (ReplayDataset::deviceTimeNote) names what is missing.
struct CostParts {
  std::size_t entries = 0;
  std::size_t compile = 0;  // entries with a compile time
  // With a benchmark total (Kernel Tuner's benchmark_time); one without is charged the sum of
  // its timed runs, which the note says. T4 holds none, which its note says of every result.
  std::size_t benchmark = 0;
  std::size_t verification = 0;  // with a verification time
};

struct RawDataset {
  DatasetFormat format = DatasetFormat::KernelTunerCache;
  std::string deviceName;
  std::string kernelName;
  std::string algorithm;
  std::string referenceLibrary;
  std::optional<double> referenceSpeed;
  std::vector<std::string> paramNames;
  // Values the file declares for each parameter (Kernel Tuner's tune_params), possibly none; the
  // values the entries use are added to them.
  std::vector<std::vector<const nlohmann::json*>> declared;
  std::vector<RawEntry> entries;
  std::vector<std::string> notes;
  // Throughput metrics the file names besides the values of its successful entries: Kernel
  // Tuner's "objective", our T4 exports' metadata.speed_unit, the metric keys of failed entries.
  // They give the unit when no entry succeeded.
  std::set<std::string> declaredMetrics;
  CostParts cost;
};

// Throughput metrics ("GFLOP/s", "GB/s", "TFLOPS") are higher-is-better and can serve as speed.
bool isThroughputName(const std::string& name);

// Both throw InputError naming path and the offending entry or field.
RawDataset readKernelTunerCache(const nlohmann::json& root, const std::string& path);
RawDataset readT4(const nlohmann::json& root, const std::vector<std::string>& paramOrder,
                  const std::string& path);

}  // namespace opevo::replay
