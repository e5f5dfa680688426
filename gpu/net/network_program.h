#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "net/tasks.h"
#include "space/search_space.h"

namespace opevo::net {

// A network as a program for the CPU: the source of every kernel it calls (each task's for its
// configuration, each fixed layer's), its tensors, its parameters drawn from the seed, and the
// calls in order. The in-process run (CpuNetworkRun) and the exported standalone program (net
// export) are both made from it, so they compute the very same thing.
struct ProgramOperand {
  enum class Kind { None, Tensor, Param };
  Kind kind = Kind::None;
  int index = 0;
};

struct ProgramTensor {
  std::string name;
  std::int64_t elements = 0;
  int aliasOf = -1;          // a view: the tensor whose data it is
  std::vector<float> input;  // a network input's data; empty otherwise
};

struct ProgramStep {
  std::string name;  // the complex layer (task) or the layer (fixed)
  bool task = false;
  std::string entry;
  // Task: {A, B, Bias, Residual} (Bias/Residual may be None), the kernel signature of
  // codegen/kernel_codegen.h. Fixed: the layer's inputs, then `params` its parameters.
  std::vector<ProgramOperand> in;
  std::vector<ProgramOperand> params;
  int out = 0;  // the tensor written
};

struct NetworkProgram {
  std::string source;
  std::vector<ProgramTensor> tensors;
  std::vector<std::vector<float>> params;
  std::vector<ProgramStep> steps;
  int output = 0;
};

// configs[i] is a configuration of defaultSpace(graph.tasks[i].op); throws InputError otherwise.
NetworkProgram buildNetworkProgram(const Network& net, const TaskGraph& graph,
                                   const std::vector<Config>& configs, std::uint64_t seed);

}  // namespace opevo::net
