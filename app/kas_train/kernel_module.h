#pragma once

#include <torch/torch.h>

#include <cstdint>
#include <vector>

#include "kas/interpreter.h"
#include "kas/micro_dag.h"

namespace opevo::kastrain {

// A Canvas kernel at one layer as a libtorch module: every node of the micro-DAG becomes the
// torch ops that compute what core/kas/interpreter.cpp (the specification) computes, with a batch
// dim in front. Every tensor is held flat as [N, channels, h, w] (FlatShape: the channel dims
// flattened, h or w 1 where the tensor has no such dim), which is also its own dims' row-major
// order, so a view recovers them where a primitive acts on one.
class KernelModuleImpl : public torch::nn::Module {
 public:
  // `dims`: each node's concrete dims at this layer (Solution::layers[i].shapes). The fcs'
  // weights start uniform in +-1/sqrt(fan in), drawn from torch's (seeded) generator.
  KernelModuleImpl(const kas::MicroDag& dag, std::vector<std::vector<std::int64_t>> dims);

  // [N, C, H, W] -> [N, C, H, W]
  torch::Tensor forward(const torch::Tensor& input);
  // Every node's value, flat [N, channels, h, w]; the check compares them node by node.
  std::vector<torch::Tensor> forwardAll(const torch::Tensor& input);

  // Replaces the fcs' weights by the interpreter's layout (fc [out][in], grouped fc
  // [groups][out/g][in/g]).
  void setWeights(const kas::KernelWeights& weights);

  const kas::MicroDag& dag() const { return m_dag; }
  const std::vector<std::vector<std::int64_t>>& dims() const { return m_dims; }

 private:
  torch::Tensor node(std::size_t i, const std::vector<torch::Tensor>& values) const;
  torch::Tensor blend(std::size_t i, const torch::Tensor& lhs, const torch::Tensor& rhs) const;
  torch::Tensor fold(std::size_t i, const torch::Tensor& in) const;

  kas::MicroDag m_dag;
  std::vector<std::vector<std::int64_t>> m_dims;
  std::vector<kas::FlatShape> m_flat;
  // Per node, undefined where it has none: an fc's weight as a 1x1 convolution's
  // [out, in/groups, 1, 1] (whose grouping is the interpreter's), and the LHS channel each output
  // channel of a blend reads (blendChannelMap), left out where that is the identity.
  std::vector<torch::Tensor> m_weights;
  std::vector<std::int64_t> m_groups;
  std::vector<torch::Tensor> m_channelMaps;
};
TORCH_MODULE(KernelModule);

}  // namespace opevo::kastrain
