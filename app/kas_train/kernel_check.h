#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "kas/budget_solver.h"
#include "kas/micro_dag.h"

namespace opevo::kastrain {

struct CheckResult {
  bool ok = true;
  nlohmann::json report;  // "layers": per target the largest difference found
};

// The torch module of the kernel against the interpreter (its specification) at every target,
// on the weights randomWeights draws and a batch of `batch` random images: each image's output
// must agree within `tolerance` of the largest magnitude. On a mismatch the report names the
// first node whose value differs, with the values at the worst element.
CheckResult checkKernel(const kas::MicroDag& dag, const kas::Solution& solution,
                        const std::vector<kas::ConvTarget>& targets, std::uint64_t seed,
                        int batch = 2, double tolerance = 1e-4);

}  // namespace opevo::kastrain
