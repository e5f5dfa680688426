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

// A kernel file as the commands read it: the kernel, and the group count G it was sampled with
// (the file's optional "groups", which `kas sample --out` writes; 0 when it has none). Without
// it, `show`, `solve` and `tune` would try G in their own order and could fit the kernel with
// another G than the one `sample` printed, and another FLOPs share.
struct KernelFile {
  MicroDag dag;
  std::int64_t groups = 0;
};
KernelFile readKernelFile(const std::string& path);

nlohmann::json solutionToJson(const MicroDag& dag, const Solution& s,
                              const std::vector<ConvTarget>& targets);

}  // namespace opevo::kas
