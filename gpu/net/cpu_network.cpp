#include "net/cpu_network.h"

#include <dlfcn.h>

#include <chrono>
#include <stdexcept>

#include "common/error.h"
#include "common/median.h"
#include "cpu/cache_eviction.h"
#include "cpu/cpu_runner.h"

namespace opevo::net {
namespace {

using TaskFn = void (*)(const float*, const float*, float*, const float*, const float*);
using FixedFn = void (*)(const float* const*, float*, const float* const*);
using ConvertFn = void (*)(const float*, float*);

double msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

CpuNetworkRun::CpuNetworkRun(const Network& net, const TaskGraph& graph,
                             const std::vector<Config>& configs, layout::TuningMode mode,
                             std::uint64_t seed, TaskTemplates templates)
    : m_dir("opevo-net"),
      m_program(buildNetworkProgram(net, graph, configs, mode, seed, codegen::Backend::Cpu,
                                    TaskKernels::Tuned, templates)) {
  const CompileResult built = compileCpuKernel(m_program.source, m_dir.path(), "network");
  if (built.noRoom) throw SystemError("network run: " + built.log);
  if (!built.ok) throw std::runtime_error("network run: the kernels do not compile:\n" + built.log);
  keepOpenMpRuntimeLoaded();
  m_library = dlopen(built.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!m_library) throw std::runtime_error(std::string("network run: ") + dlerror());

  m_storage.reserve(m_program.tensors.size());
  for (const ProgramTensor& t : m_program.tensors) {
    if (t.aliasOf >= 0) {
      m_data.push_back(m_data[static_cast<std::size_t>(t.aliasOf)]);
      continue;
    }
    m_storage.push_back(t.input.empty() ? std::vector<float>(static_cast<std::size_t>(t.elements))
                                        : t.input);
    m_data.push_back(m_storage.back().data());
  }
  auto pointer = [&](const ProgramOperand& o) -> const float* {
    if (o.kind == ProgramOperand::Kind::Tensor) return m_data[static_cast<std::size_t>(o.index)];
    if (o.kind == ProgramOperand::Kind::Param)
      return m_program.params[static_cast<std::size_t>(o.index)].data();
    return nullptr;
  };
  for (const ProgramStep& step : m_program.steps) {
    void* f = dlsym(m_library, step.entry.c_str());
    if (!f) throw std::runtime_error("network run: the library lacks " + step.entry);
    float* out = m_data[static_cast<std::size_t>(step.out)];
    if (step.kind == StepKind::Task) {
      auto fn = reinterpret_cast<TaskFn>(f);
      const float *a = pointer(step.in[0]), *b = pointer(step.in[1]), *bias = pointer(step.in[2]),
                  *residual = pointer(step.in[3]);
      Step s{step.name, step.kind, [=] { fn(a, b, out, bias, residual); }, {}, {}};
      for (std::size_t i = 0; i < step.in.size(); ++i) {
        const ProgramOperand& o = step.in[i];
        const bool param = o.kind == ProgramOperand::Kind::Param;
        if (!param && o.kind != ProgramOperand::Kind::Tensor) continue;
        const auto n = param ? m_program.params[static_cast<std::size_t>(o.index)].size()
                             : static_cast<std::size_t>(
                                   m_program.tensors[static_cast<std::size_t>(o.index)].elements);
        (param ? s.weights : s.activations).push_back({pointer(o), n});
      }
      s.activations.push_back(
          {out, static_cast<std::size_t>(
                    m_program.tensors[static_cast<std::size_t>(step.out)].elements)});
      m_steps.push_back(std::move(s));
      continue;
    }
    if (step.kind == StepKind::Convert) {
      auto fn = reinterpret_cast<ConvertFn>(f);
      const float* in = pointer(step.in[0]);
      m_steps.push_back({step.name, step.kind, [=] { fn(in, out); }, {}, {}});
      continue;
    }
    auto fn = reinterpret_cast<FixedFn>(f);
    std::vector<const float*> ins, params;
    for (const ProgramOperand& o : step.in) ins.push_back(pointer(o));
    for (const ProgramOperand& o : step.params) params.push_back(pointer(o));
    m_pointerLists.push_back(std::move(ins));
    const float* const* inPtr = m_pointerLists.back().data();
    m_pointerLists.push_back(std::move(params));
    const float* const* paramPtr = m_pointerLists.back().data();
    m_steps.push_back({step.name, step.kind, [=] { fn(inPtr, out, paramPtr); }, {}, {}});
  }
}

CpuNetworkRun::~CpuNetworkRun() {
  if (m_library) dlclose(m_library);
}

const std::vector<float>& CpuNetworkRun::forward() {
  for (const Step& s : m_steps) s.run();
  const float* out = m_data[static_cast<std::size_t>(m_program.output)];
  m_output.assign(out,
                  out + m_program.tensors[static_cast<std::size_t>(m_program.output)].elements);
  return m_output;
}

std::vector<double> CpuNetworkRun::time(int warmup, int runs) {
  for (int i = 0; i < warmup; ++i)
    for (const Step& s : m_steps) s.run();
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    const auto start = std::chrono::steady_clock::now();
    for (const Step& s : m_steps) s.run();
    times.push_back(msSince(start));
  }
  return times;
}

std::vector<CpuNetworkRun::StepTime> CpuNetworkRun::stepTimes(int runs) {
  std::vector<std::vector<double>> times(m_steps.size());
  for (int r = 0; r < runs; ++r)
    for (std::size_t i = 0; i < m_steps.size(); ++i) {
      const auto start = std::chrono::steady_clock::now();
      m_steps[i].run();
      times[i].push_back(msSince(start));
    }
  std::vector<StepTime> out;
  for (std::size_t i = 0; i < m_steps.size(); ++i)
    out.push_back({m_steps[i].name, m_steps[i].kind, median(times[i])});
  return out;
}

std::vector<CpuNetworkRun::StepTime> CpuNetworkRun::taskLoopTimes(int runs, bool coldWeights,
                                                                  bool coldActivations) {
  std::vector<StepTime> out;
  for (const Step& s : m_steps) {
    if (s.kind != StepKind::Task) continue;
    const auto evict = [&](const std::vector<Operand>& operands) {
      for (const Operand& o : operands) evictFromCaches(o.data, o.floats * sizeof(float));
    };
    s.run();  // a warm-up, as tuning's checked run is
    std::vector<double> times;
    for (int r = 0; r < runs; ++r) {
      if (coldWeights) evict(s.weights);
      if (coldActivations) evict(s.activations);
      const auto start = std::chrono::steady_clock::now();
      s.run();
      times.push_back(msSince(start));
    }
    out.push_back({s.name, s.kind, median(times)});
  }
  return out;
}

}  // namespace opevo::net
