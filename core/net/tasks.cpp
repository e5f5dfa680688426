#include "net/tasks.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "common/error.h"

namespace opevo::net {
namespace {

// The epilogue step a fusable layer becomes when it follows `tensor`, or nothing when it cannot
// be fused there (a bias on another axis, an add of the tensor to itself).
std::optional<EpilogueStep> stepFor(const Network& net, const Layer& l, const std::string& tensor,
                                    const OperatorSpec& op) {
  switch (l.kind) {
    case LayerKind::BiasAdd: {
      // The bias runs along output channels (conv) or columns (matmul): the axis the template
      // indexes it by.
      // bias_add runs along axis 1 of a rank-4 tensor, else along the last: the fused kernel's
      // axis only when the two agree.
      const Shape& s = net.shapeOf(tensor);
      if ((op.kind == OpKind::Conv2D) != (s.size() == 4)) return std::nullopt;
      return EpilogueStep{EpilogueKind::Bias, 1};
    }
    case LayerKind::Relu:
      return EpilogueStep{EpilogueKind::Relu, 1};
    case LayerKind::Relu6:
      return EpilogueStep{EpilogueKind::Relu6, 1};
    case LayerKind::Gelu:
      return EpilogueStep{EpilogueKind::Gelu, 1};
    case LayerKind::Scale:
      return EpilogueStep{EpilogueKind::Scale, l.factor};
    case LayerKind::Add:
      if (l.inputs[0] == l.inputs[1]) return std::nullopt;
      return EpilogueStep{EpilogueKind::Add, 1};
    default:
      return std::nullopt;
  }
}

}  // namespace

OperatorSpec operatorOf(const Network& net, const Layer& l) {
  OperatorSpec op;
  op.name = l.name;
  const Shape& x = net.shapeOf(l.inputs[0]);
  switch (l.kind) {
    case LayerKind::Conv2D:
      op.kind = OpKind::Conv2D;
      op.batch = x[0];
      op.inChannels = x[1];
      op.height = x[2];
      op.width = x[3];
      op.outChannels = l.outChannels;
      op.kernelH = l.kernelH;
      op.kernelW = l.kernelW;
      op.stride = l.stride;
      op.pad = l.pad;
      op.groups = l.groups;
      break;
    case LayerKind::Dense:
      op.kind = OpKind::MatMul;
      op.k = x.back();
      op.n = elements(x) / op.k;
      op.m = l.units;
      op.transB = true;
      break;
    case LayerKind::MatMul:
    case LayerKind::BatchMatMul: {
      const std::size_t r = x.size();
      op.kind = l.kind == LayerKind::MatMul ? OpKind::MatMul : OpKind::BatchMatMul;
      op.batch = r == 3 ? x[0] : 1;
      op.n = l.transA ? x[r - 1] : x[r - 2];
      op.k = l.transA ? x[r - 2] : x[r - 1];
      op.m = l.shape.back();
      op.transA = l.transA;
      op.transB = l.transB;
      break;
    }
    default:
      throw InputError("layer '" + l.name + "' (" + std::string(layerKindName(l.kind)) +
                       ") is not a tunable operator");
  }
  if (l.bias) op.epilogue.push_back({EpilogueKind::Bias, 1});
  return op;
}

TaskGraph extractTasks(const Network& net) {
  TaskGraph graph;
  std::set<std::string> absorbed;
  std::map<std::string, std::size_t> byKey;  // the operator's full description -> task
  for (const Layer& l : net.layers) {
    if (absorbed.count(l.name)) continue;
    if (!isComplex(l.kind)) {
      const bool view = l.kind == LayerKind::Reshape || l.kind == LayerKind::Flatten;
      graph.fixed.push_back({l.name, view});
      continue;
    }
    OperatorSpec op = operatorOf(net, l);
    Occurrence at{l.name, {}, {}, l.name, l.inputs.empty() ? std::string() : l.inputs[0]};
    // Follow the single reader while it is elementwise: TVM's fusion of an injective epilogue.
    for (;;) {
      if (at.output == net.output) break;
      const std::vector<const Layer*> readers = net.consumers(at.output);
      if (readers.size() != 1 || !isFusable(readers[0]->kind)) break;
      const Layer& next = *readers[0];
      // An add already taken by the other operand's kernel (ResNet's shortcut convolution).
      if (absorbed.count(next.name)) break;
      const std::optional<EpilogueStep> step = stepFor(net, next, at.output, op);
      if (!step) break;
      // A kernel takes one bias vector and one residual tensor: a second of either stays out.
      const bool taken = std::any_of(op.epilogue.begin(), op.epilogue.end(),
                                     [&](const EpilogueStep& e) { return e.kind == step->kind; });
      if (taken && (step->kind == EpilogueKind::Bias || step->kind == EpilogueKind::Add)) break;
      if (step->kind == EpilogueKind::Add)
        at.residuals.push_back(next.inputs[0] == at.output ? next.inputs[1] : next.inputs[0]);
      op.epilogue.push_back(*step);
      at.fused.push_back(next.name);
      absorbed.insert(next.name);
      at.output = next.name;
    }
    // The description rounds scale factors for display; the key keeps them exact.
    std::string key = op.describe();
    for (const EpilogueStep& e : op.epilogue) {
      char exact[40];
      std::snprintf(exact, sizeof exact, " %.17g", e.factor);
      key += exact;
    }
    const auto position = static_cast<std::size_t>(net.find(at.output) - net.layers.data());
    const bool weights = l.kind == LayerKind::Conv2D || l.kind == LayerKind::Dense;
    const auto it = byKey.find(key);
    if (it != byKey.end()) {
      Task& task = graph.tasks[it->second];
      task.position = std::min(task.position, position);
      task.readsWeights = task.readsWeights && weights;
      task.occurrences.push_back(std::move(at));
      continue;
    }
    byKey[key] = graph.tasks.size();
    graph.tasks.push_back({l.name, std::move(op), {std::move(at)}, position, weights});
  }
  return graph;
}

std::map<std::string, std::size_t> tensorWriters(const TaskGraph& graph) {
  std::map<std::string, std::size_t> writer;
  for (std::size_t i = 0; i < graph.tasks.size(); ++i)
    for (const Occurrence& o : graph.tasks[i].occurrences) writer[o.output] = i;
  return writer;
}

}  // namespace opevo::net
