#pragma once

#include <nlohmann/json.hpp>

#include "cpu/cpu_runner.h"
#include "engine/measurement.h"

namespace opevo::kas {

// Inside opevo-worker: a "measure_kas" request (worker/protocol.h) loads the fused kernel
// library, runs it once on seeded input and weights, checks the result against the
// primitive-by-primitive reference (interpreter.h), then times it. A kernel that crashes or hangs
// takes the worker down, not the engine. `taken`: when the worker took the request, from which
// TimingOptions::trialMs counts (timeCheckedKernel).
Measurement runKasKernel(
    const nlohmann::json& request, const TimingOptions& timing,
    std::chrono::steady_clock::time_point taken = std::chrono::steady_clock::now());

// The request for one kernel library: the kernel file's JSON and the layer's symbol values.
nlohmann::json kasRequest(const nlohmann::json& kernel, const nlohmann::json& bindings,
                          const std::string& library, const std::string& entry);

}  // namespace opevo::kas
