#pragma once

// A network run end to end on this CPU with chosen task configurations, checked against
// libtorch's forward on the same network, weights and input: what `opevo net run|tune|compare`
// and the window's Networks page report.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "net/cpu_network.h"
#include "net/network_json.h"
#include "net/task_templates.h"
#include "net/torch_reference.h"

namespace opevo::net {

struct EndToEndOptions {
  std::uint64_t seed = 1;
  int warmup = 3, runs = 20;
  bool reference = true;
  TorchForm torchForm = TorchForm::Eager;  // how libtorch's reference runs
};

// libtorch's median differs between processes on this machine (ResNet-18: 19-29 ms in most, 65-96
// ms in some, not yet explained): the reference runs in this many processes, its best median kept.
inline constexpr int kReferenceProcesses = 3;

// libtorch's forward, timed in kReferenceProcesses processes.
struct ReferenceTimes {
  std::optional<TorchResult> best;  // the process with the lowest median
  std::vector<double> medians;      // every process's median, in order
  std::string missing;              // why there is none
};

// A network output's error against its reference: the largest |out - ref| over the larger of
// 1 + |ref| and the reference's root mean square. Random weights keep no activation at unit scale
// as trained batch norms do, and each residual block adds to the stream: ResNet-50's outputs have
// an RMS near 8,000, and an output near zero carries the rounding of sums of terms that large
// (one at -8.45 was off by 0.009, 3e-7 of the RMS, in a correct run). Up to an RMS of 1 this is
// maxRelativeError; a network passes below kVerifyTolerance. NaN counts as +infinity.
double maxNetworkError(const std::vector<float>& out, const std::vector<float>& ref);

// network: a preset name or a file, as loadNetwork takes it.
ReferenceTimes timeReference(const std::string& network, const ParamOverrides& params,
                             const EndToEndOptions& options);

struct EndToEnd {
  double ms = 0;  // median of whole forward passes
  std::vector<double> timesMs;
  std::vector<StepTime> steps;
  std::vector<std::string> adoptedLayouts;  // NetworkProgram::adopted
  // The steps measured one by one: task kernels, their layout conversions, fixed kernels.
  double taskMs = 0, convertMs = 0, fixedMs = 0;
  ReferenceTimes reference;
  double error = -1;  // maxNetworkError against the reference
  bool verified = false;
  // On a GPU (runEndToEndCuda): the device, NVRTC's time for the program, and what the output was
  // checked against there instead of libtorch on this CPU (empty on the CPU).
  std::string device;
  double compileSeconds = 0;
  std::string deviceReference;
};

// Builds and runs the network on this CPU with these task configurations (of each task's space
// under `mode` and `templates`, taskDefinition). The reference is timed first (before this process
// runs a kernel of its own) unless one is given or options say none.
EndToEnd runEndToEnd(const std::string& network, const ParamOverrides& params, const Network& net,
                     const TaskGraph& graph, const std::vector<Config>& configs,
                     layout::TuningMode mode, const EndToEndOptions& options,
                     std::optional<ReferenceTimes> reference = std::nullopt,
                     TaskTemplates templates = {});

// The network run end to end on the CUDA device with these task configurations (of each task's
// GPU space, loop mode), and the same network with each task's plain reference kernel (one
// thread per output element, the epilogue included; the fixed kernels and the weights are the
// same), whose output the tuned one must match. Throws DeviceError where there is no CUDA device
// or a kernel faults, std::runtime_error when a kernel does not compile. `templates`: the plan's
// (buildNetworkProgram).
EndToEnd runEndToEndCuda(const Network& net, const TaskGraph& graph,
                         const std::vector<Config>& configs, const EndToEndOptions& options,
                         TaskTemplates templates = {});

// An end-to-end run's figures as results store them (NetworkSession::resultJson, `opevo net run
// --json`) and endToEndFromResult reads them back: end_to_end_ms, times_ms, conversions_ms,
// fixed_kernels_ms, steps, adopted_layouts, verified, reference.
nlohmann::json endToEndJson(const EndToEnd& e);

// [{"name", "kind", "ms"}] for every step of the chained program, in order.
nlohmann::json stepsJson(const EndToEnd& e);

// {"name", "ms", "process_medians_ms", "threads", "max_relative_error"}, or nulls with "missing";
// on a GPU {"name", "ms": null, "device", "max_relative_error"}.
nlohmann::json referenceJson(const EndToEnd& e);

}  // namespace opevo::net
