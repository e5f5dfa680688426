#pragma once

// What `opevo net run` and `opevo net tune` share: the end-to-end run of a network with chosen
// configurations, checked against libtorch, and its report.

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "net/cpu_network.h"
#include "net/network_json.h"
#include "net/torch_reference.h"

namespace opevo::cli {

net::ParamOverrides paramOverrides(const std::vector<std::string>& texts);

struct EndToEndOptions {
  std::uint64_t seed = 1;
  int warmup = 3, runs = 20;
  bool reference = true;
  bool chatty = true;  // a line on standard error before the build
};

// libtorch's median differs between processes on this machine (ResNet-18: 19-29 ms in most, 65-96
// ms in some, not yet explained): the reference runs in this many processes, its best median kept.
inline constexpr int kReferenceProcesses = 3;

struct EndToEnd {
  double ms = 0;  // median of whole forward passes
  std::vector<double> timesMs;
  std::vector<net::CpuNetworkRun::StepTime> steps;
  double taskMs = 0, fixedMs = 0;             // the steps measured one by one
  std::optional<net::TorchResult> reference;  // the process with the lowest median
  std::vector<double> referenceMedians;       // every process's median, in order
  std::string missing;                        // why there is no reference
  double error = -1;                          // max relative error against the reference
  bool verified = false;
};

// Builds and runs the network on this CPU with these task configurations; the reference is run
// on the same network text and params.
EndToEnd runEndToEnd(const std::string& network, const net::ParamOverrides& params,
                     const net::Network& net, const net::TaskGraph& graph,
                     const std::vector<Config>& configs, const EndToEndOptions& options);

// {"name", "ms", "threads", "max_relative_error"}, or nulls with "missing".
nlohmann::json referenceJson(const EndToEnd& e);
// The end-to-end line and the reference line.
void printEndToEnd(const std::string& what, const EndToEnd& e, int runs);
// Throws RunFailed when the output differs from the reference.
void requireVerified(const EndToEnd& e);

void addNetTuneCommand(CLI::App& net);
void addNetCompareCommand(CLI::App& net);

}  // namespace opevo::cli
