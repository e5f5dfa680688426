#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/kernel_codegen.h"
#include "layout/tuning_mode.h"
#include "net/task_templates.h"
#include "net/tasks.h"
#include "space/search_space.h"

namespace opevo::net {

// A network as a program for the CPU or a GPU: the source of every kernel it calls (each task's
// for its configuration, each fixed layer's), its tensors, its parameters drawn from the seed, and
// the calls in order. The in-process runs (CpuNetworkRun, CudaNetworkRun) and the exported
// standalone program (net export) are all made from it, so they compute the very same thing.
struct ProgramOperand {
  enum class Kind { None, Tensor, Param };
  Kind kind = Kind::None;
  int index = 0;
};

struct ProgramTensor {
  std::string name;
  std::int64_t elements = 0;  // 0 for one no step writes or reads (a dropped conversion's output)
  int aliasOf = -1;           // a view: the tensor whose data it is
  std::vector<float> input;   // a network input's data; empty otherwise
};

// Task: a task's kernel, `in` = {A, B, Bias, Residual} (Bias/Residual may be None), the kernel
// signature of codegen/kernel_codegen.h. Fixed: a fixed layer's kernel (in: the layer's inputs,
// then `params` its parameters), void(const float* const* in, float* out, const float* const*
// params). Convert: a layout conversion of a task whose kernel uses layouts of its own (in: the
// one tensor converted), void(const float* in, float* out): plain activations into the task's
// layouts before it, its output back to plain after it; an output that only other layout tasks
// read goes straight from its layout into theirs (one pass, no plain copy). The conversions run
// in every forward pass and count in its time; weights are converted once, when the program is
// built.
enum class StepKind { Task, Fixed, Convert };
// "task", "fixed", "convert".
std::string_view stepKindName(StepKind kind);

// How long one step of a program takes alone (the median of runs), by name.
struct StepTime {
  std::string name;
  StepKind kind = StepKind::Task;
  double ms = 0;
};

struct ProgramStep {
  std::string name;  // the complex layer (task, conversion) or the layer (fixed)
  StepKind kind = StepKind::Task;
  std::string entry;
  std::vector<ProgramOperand> in;
  std::vector<ProgramOperand> params;
  int out = 0;  // the tensor written
};

// A GPU program's kernel: the module (NetworkProgram::modules) holding it, and its launch.
struct ProgramKernel {
  int module = -1;
  codegen::LaunchConfig launch;
};

struct NetworkProgram {
  codegen::Backend backend = codegen::Backend::Cpu;
  std::string source;                // CPU: every kernel, one library
  std::vector<std::string> modules;  // CUDA/HIP: one module per kernel, compiled side by side
  std::map<std::string, ProgramKernel> kernels;  // CUDA/HIP: by ProgramStep::entry
  std::vector<ProgramTensor> tensors;
  std::vector<std::vector<float>> params;
  std::vector<ProgramStep> steps;
  int output = 0;
  // The layouts tasks took from each other so that a tensor is read as it is (--mode joint): a
  // residual's producer writing its reader's output layout, a 1x1 convolution reading its
  // producer's; one sentence each, naming both tasks, only where a conversion step was saved.
  // And a depthwise convolution on its producer's channel blocks ("... takes the channel
  // blocks of its input (...) as ... writes them: ..."), whether it took them here or was tuned
  // on them: "it reads them as they are, with no conversion" where the producer's tiles hold
  // whole rows or one row each (its layout is then the depthwise input's), "its conversion copies
  // whole blocks" where the conversion stays but converts straight from them.
  std::vector<std::string> adopted;
  // Each task's configuration as its kernel runs: the one given, or with the layout it took from
  // a link (above). A task tuned on its links (net/layout_constraints.h) runs the configuration
  // its tuning measured.
  std::vector<Config> configs;
};

// Which kernel a task step calls: the one generated for its configuration, or the operator's plain
// reference kernel (one thread or iteration per output element, epilogue included), which a GPU
// network's tuned run is verified against.
enum class TaskKernels { Tuned, Reference };

// configs[i] is a configuration of task i's space under `mode` (taskDefinition(task, mode); on
// CUDA and HIP the GPU templates' space, withSpaceTarget(..., gpuTarget(...)), as a GPU run
// tunes it); throws InputError otherwise, and for a GPU program in a layout mode (the GPU tasks
// tune loops only so far). A GPU task's configuration of the common space (a run stored before GPU
// runs had a space of their own) is taken with the GPU templates' own parameters at their value
// when absent. With `templates` (a plan's NetworkTuningPlan::templates), a GPU task that one of
// them takes has a configuration of that template's space.
NetworkProgram buildNetworkProgram(const Network& net, const TaskGraph& graph,
                                   const std::vector<Config>& configs, layout::TuningMode mode,
                                   std::uint64_t seed,
                                   codegen::Backend backend = codegen::Backend::Cpu,
                                   TaskKernels kernels = TaskKernels::Tuned,
                                   TaskTemplates templates = {});

}  // namespace opevo::net
