#include "net/cpu_network.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <stdexcept>

#include "codegen/kernel_codegen.h"
#include "common/error.h"
#include "net/fixed_layer_code.h"
#include "net/weights.h"
#include "ops/presets.h"

namespace opevo::net {
namespace {

using TaskFn = void (*)(const float*, const float*, float*, const float*, const float*);
using FixedFn = void (*)(const float* const*, float*, const float* const*);

double msSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

float* CpuNetworkRun::buffer(const std::string& tensor) {
  for (auto& [name, data] : m_tensors)
    if (name == tensor) return data;
  throw std::logic_error("network run: no buffer for tensor '" + tensor + "'");
}

CpuNetworkRun::CpuNetworkRun(const Network& net, const TaskGraph& graph,
                             const std::vector<Config>& configs, std::uint64_t seed)
    : m_net(net), m_dir("opevo-net") {
  if (configs.size() != graph.tasks.size())
    throw InputError("network run: " + std::to_string(configs.size()) + " configurations for " +
                     std::to_string(graph.tasks.size()) + " tasks");
  // Tensors: inputs drawn from the seed, every layer's output allocated; views alias their source.
  for (const Input& in : net.inputs) {
    m_storage.push_back(drawInput(in, seed).data);
    m_tensors.emplace_back(in.name, m_storage.back().data());
  }
  for (const Layer& l : net.layers) {
    if (l.kind == LayerKind::Flatten || l.kind == LayerKind::Reshape) {
      m_tensors.emplace_back(l.name, buffer(l.inputs[0]));
      continue;
    }
    m_storage.emplace_back(static_cast<std::size_t>(elements(l.shape)), 0.0f);
    m_tensors.emplace_back(l.name, m_storage.back().data());
  }
  // One source, one compiler run: task kernels task_<i>, fixed kernels fixed_<j>.
  std::string source;
  for (std::size_t i = 0; i < graph.tasks.size(); ++i) {
    const OperatorSpec& op = graph.tasks[i].op;
    source += codegen::generateKernel(op, defaultSpace(op), configs[i], codegen::Backend::Cpu,
                                      {"task_" + std::to_string(i)})
                  .source +
              "\n";
  }
  std::vector<const Layer*> fixed;
  for (const FixedLayer& f : graph.fixed)
    if (!f.view) {
      source += fixedLayerCpuSource(net, *net.find(f.layer), "fixed_" + std::to_string(fixed.size())) +
                "\n";
      fixed.push_back(net.find(f.layer));
    }
  const CompileResult built = compileCpuKernel(source, m_dir.path(), "network");
  if (!built.ok) throw std::runtime_error("network run: the kernels do not compile:\n" + built.log);
  keepOpenMpRuntimeLoaded();
  m_library = dlopen(built.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!m_library) throw std::runtime_error(std::string("network run: ") + dlerror());
  auto symbol = [&](const std::string& name) {
    void* f = dlsym(m_library, name.c_str());
    if (!f) throw std::runtime_error("network run: the library lacks " + name);
    return f;
  };
  auto keep = [&](std::vector<float> data) {
    m_params.push_back(std::move(data));
    return static_cast<const float*>(m_params.back().data());
  };

  // Steps in layer order: a task's kernel where its last fused layer stands (every residual it
  // reads exists by then), a fixed kernel where its layer stands.
  std::map<std::string, std::pair<std::size_t, const Occurrence*>> taskAt;
  for (std::size_t i = 0; i < graph.tasks.size(); ++i)
    for (const Occurrence& o : graph.tasks[i].occurrences) taskAt[o.output] = {i, &o};
  for (const Layer& l : net.layers) {
    if (const auto it = taskAt.find(l.name); it != taskAt.end()) {
      const Occurrence& o = *it->second.second;
      const Layer& complex = *net.find(o.layer);
      auto fn = reinterpret_cast<TaskFn>(symbol("task_" + std::to_string(it->second.first)));
      const float* a = buffer(complex.inputs[0]);
      const float* b = nullptr;
      const float* bias = nullptr;
      if (complex.kind == LayerKind::MatMul || complex.kind == LayerKind::BatchMatMul) {
        b = buffer(complex.inputs[1]);
      } else {
        std::map<std::string, Tensor> p = layerParameters(net, complex, seed);
        b = keep(std::move(p["weight"].data));
        if (complex.bias) bias = keep(std::move(p["bias"].data));
      }
      for (const std::string& fused : o.fused)
        if (net.find(fused)->kind == LayerKind::BiasAdd)
          bias = keep(std::move(layerParameters(net, *net.find(fused), seed)["bias"].data));
      const float* residual = o.residuals.empty() ? nullptr : buffer(o.residuals.front());
      float* c = buffer(o.output);
      m_steps.push_back({o.layer, true, [=] { fn(a, b, c, bias, residual); }});
      continue;
    }
    const auto f = std::find(fixed.begin(), fixed.end(), &l);
    if (f == fixed.end()) continue;  // a complex or fused layer (its task runs later), or a view
    auto fn = reinterpret_cast<FixedFn>(symbol("fixed_" + std::to_string(f - fixed.begin())));
    std::vector<const float*> ins;
    for (const std::string& in : l.inputs) ins.push_back(buffer(in));
    std::vector<const float*> params;
    std::map<std::string, Tensor> drawn = layerParameters(net, l, seed);
    for (const Parameter& p : net.parameters(l)) params.push_back(keep(std::move(drawn[p.role].data)));
    m_pointerLists.push_back(std::move(ins));
    const float* const* inPtr = m_pointerLists.back().data();
    m_pointerLists.push_back(std::move(params));
    const float* const* paramPtr = m_pointerLists.back().data();
    float* out = buffer(l.name);
    m_steps.push_back({l.name, false, [=] { fn(inPtr, out, paramPtr); }});
  }
}

CpuNetworkRun::~CpuNetworkRun() {
  if (m_library) dlclose(m_library);
}

const std::vector<float>& CpuNetworkRun::forward() {
  for (const Step& s : m_steps) s.run();
  const float* out = buffer(m_net.output);
  m_output.assign(out, out + elements(m_net.shapeOf(m_net.output)));
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
    out.push_back({m_steps[i].name, m_steps[i].task, median(times[i])});
  return out;
}

}  // namespace opevo::net
