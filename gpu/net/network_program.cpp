#include "net/network_program.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "codegen/kernel_codegen.h"
#include "common/error.h"
#include "net/fixed_layer_code.h"
#include "net/weights.h"
#include "ops/presets.h"

namespace opevo::net {

NetworkProgram buildNetworkProgram(const Network& net, const TaskGraph& graph,
                                   const std::vector<Config>& configs, std::uint64_t seed) {
  if (configs.size() != graph.tasks.size())
    throw InputError("network run: " + std::to_string(configs.size()) + " configurations for " +
                     std::to_string(graph.tasks.size()) + " tasks");
  NetworkProgram p;
  std::map<std::string, int> tensorIndex;
  auto tensor = [&](const std::string& name) {
    const auto it = tensorIndex.find(name);
    if (it == tensorIndex.end()) throw std::logic_error("network program: no tensor " + name);
    return ProgramOperand{ProgramOperand::Kind::Tensor, it->second};
  };
  auto param = [&](std::vector<float> data) {
    p.params.push_back(std::move(data));
    return ProgramOperand{ProgramOperand::Kind::Param, static_cast<int>(p.params.size()) - 1};
  };
  // Tensors: the inputs drawn from the seed, every layer's output; views alias their source.
  for (const Input& in : net.inputs) {
    tensorIndex[in.name] = static_cast<int>(p.tensors.size());
    p.tensors.push_back({in.name, elements(in.shape), -1, drawInput(in, seed).data});
  }
  for (const Layer& l : net.layers) {
    ProgramTensor t{l.name, elements(l.shape), -1, {}};
    if (l.kind == LayerKind::Flatten || l.kind == LayerKind::Reshape) {
      t.aliasOf = tensor(l.inputs[0]).index;
      while (p.tensors[static_cast<std::size_t>(t.aliasOf)].aliasOf >= 0)
        t.aliasOf = p.tensors[static_cast<std::size_t>(t.aliasOf)].aliasOf;
    }
    tensorIndex[l.name] = static_cast<int>(p.tensors.size());
    p.tensors.push_back(std::move(t));
  }
  // One source: task kernels task_<i>, fixed kernels fixed_<j>.
  for (std::size_t i = 0; i < graph.tasks.size(); ++i) {
    const OperatorSpec& op = graph.tasks[i].op;
    p.source += codegen::generateKernel(op, defaultSpace(op), configs[i], codegen::Backend::Cpu,
                                        {"task_" + std::to_string(i)})
                    .source +
                "\n";
  }
  std::map<std::string, std::string> fixedEntry;
  for (const FixedLayer& f : graph.fixed)
    if (!f.view) {
      const std::string entry = "fixed_" + std::to_string(fixedEntry.size());
      p.source += fixedLayerCpuSource(net, *net.find(f.layer), entry) + "\n";
      fixedEntry[f.layer] = entry;
    }
  // Calls in layer order: a task's kernel where its last fused layer stands (every residual it
  // reads exists by then), a fixed kernel where its layer stands.
  std::map<std::string, std::pair<std::size_t, const Occurrence*>> taskAt;
  for (std::size_t i = 0; i < graph.tasks.size(); ++i)
    for (const Occurrence& o : graph.tasks[i].occurrences) taskAt[o.output] = {i, &o};
  const ProgramOperand none;
  for (const Layer& l : net.layers) {
    if (const auto it = taskAt.find(l.name); it != taskAt.end()) {
      const Occurrence& o = *it->second.second;
      const Layer& complex = *net.find(o.layer);
      ProgramStep s{o.layer, true, "task_" + std::to_string(it->second.first),
                    {},      {},   tensor(o.output).index};
      ProgramOperand b = none, bias = none;
      if (complex.kind == LayerKind::MatMul || complex.kind == LayerKind::BatchMatMul) {
        b = tensor(complex.inputs[1]);
      } else {
        std::map<std::string, Tensor> drawn = layerParameters(net, complex, seed);
        b = param(std::move(drawn["weight"].data));
        if (complex.bias) bias = param(std::move(drawn["bias"].data));
      }
      for (const std::string& fused : o.fused)
        if (net.find(fused)->kind == LayerKind::BiasAdd)
          bias = param(std::move(layerParameters(net, *net.find(fused), seed)["bias"].data));
      s.in = {tensor(complex.inputs[0]), b, bias,
              o.residuals.empty() ? none : tensor(o.residuals.front())};
      p.steps.push_back(std::move(s));
      continue;
    }
    const auto f = fixedEntry.find(l.name);
    if (f == fixedEntry.end()) continue;  // a complex or fused layer (its task runs later), a view
    ProgramStep s{l.name, false, f->second, {}, {}, tensor(l.name).index};
    for (const std::string& in : l.inputs) s.in.push_back(tensor(in));
    std::map<std::string, Tensor> drawn = layerParameters(net, l, seed);
    for (const Parameter& q : net.parameters(l))
      s.params.push_back(param(std::move(drawn[q.role].data)));
    p.steps.push_back(std::move(s));
  }
  p.output = tensor(net.output).index;
  return p;
}

}  // namespace opevo::net
