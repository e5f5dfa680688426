#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "codegen/cpu_compiler.h"
#include "net/network_program.h"
#include "net/task_templates.h"
#include "net/tasks.h"
#include "space/search_space.h"

namespace opevo::net {

// A network run end to end on this CPU: each task's kernel built for its configuration and each
// fixed layer's kernel, all in one library (one compiler run), chained in one process on the
// input and weights drawn from the seed (weights.h), as the tuned network would run in
// production. OpenMP uses every core unless OMP_NUM_THREADS says otherwise.
class CpuNetworkRun {
 public:
  // configs[i] is a configuration of task i under `mode` and `templates` (taskDefinition).
  // Throws InputError when one does not fit its task, std::runtime_error with the compiler's log
  // when the build fails.
  CpuNetworkRun(const Network& net, const TaskGraph& graph, const std::vector<Config>& configs,
                layout::TuningMode mode, std::uint64_t seed, TaskTemplates templates = {});
  ~CpuNetworkRun();
  CpuNetworkRun(const CpuNetworkRun&) = delete;
  CpuNetworkRun& operator=(const CpuNetworkRun&) = delete;

  // One forward pass; the output tensor.
  const std::vector<float>& forward();
  // Wall time of whole forward passes (ms), after `warmup` untimed ones.
  std::vector<double> time(int warmup, int runs);
  // The median time of each step alone (task kernels, their layout conversions and fixed
  // kernels), by name: what the end-to-end time is made of.
  using StepTime = net::StepTime;
  std::vector<StepTime> stepTimes(int runs);
  // Each task step alone, run `runs` times in a loop (the median), its weights (b and the bias,
  // where they are parameters) and its activations (a, the residual, the output, and b where it
  // is one) evicted from the caches before each run where the flags say so: how tuning times a
  // task (TimingOptions::coldWeights and coldActivations), against stepTimes' time in the chain
  // (docs/results/networks.md, bench_chain_timing).
  std::vector<StepTime> taskLoopTimes(int runs, bool coldWeights, bool coldActivations);
  // The residual producers that write the reader's layout (NetworkProgram::adopted).
  const std::vector<std::string>& adoptedLayouts() const { return m_program.adopted; }
  // The program it runs (each task's configuration as it runs: NetworkProgram::configs).
  const NetworkProgram& program() const { return m_program; }

 private:
  // A range of floats a task step reads or writes.
  struct Operand {
    const float* data = nullptr;
    std::size_t floats = 0;
  };
  struct Step {
    std::string name;
    StepKind kind = StepKind::Task;
    std::function<void()> run;
    std::vector<Operand> weights, activations;  // a task's, for taskLoopTimes
  };

  TempDir m_dir;
  void* m_library = nullptr;
  NetworkProgram m_program;
  std::vector<std::vector<float>> m_storage;              // each tensor that is not a view
  std::vector<float*> m_data;                             // each tensor's data (views alias)
  std::vector<std::vector<const float*>> m_pointerLists;  // fixed kernels' in/params arrays
  std::vector<Step> m_steps;
  std::vector<float> m_output;
};

}  // namespace opevo::net
