#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "kas/budget_solver.h"
#include "kas/micro_dag.h"

namespace opevo::kas {

// A kernel file (docs/kas.md): {"format": "opevo-kas-kernel", "nodes": [{"op": "input"},
// {"op": "unfold", "input": 0, "dim": 1}, {"op": "fc", "input": 1}, ...], "substitutions":
// {"x1": "C"}}. Node 0 is the input; an fc's variable is numbered in node order.
nlohmann::json kernelToJson(const MicroDag& dag);
// Throws InputError naming `source`, the node and the field at fault, or the type error found.
MicroDag kernelFromJson(const nlohmann::json& j, const std::string& source);
MicroDag loadKernel(const std::string& path);

nlohmann::json solutionToJson(const MicroDag& dag, const Solution& s,
                              const std::vector<ConvTarget>& targets);

}  // namespace opevo::kas
