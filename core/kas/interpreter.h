#pragma once

#include <cstdint>
#include <vector>

#include "kas/micro_dag.h"

namespace opevo::kas {

// A tensor of a kernel at one layer, viewed as [channels, H, W]: its channel dims flattened (they
// always come first), H and W 1 where the tensor has no such dim. Row-major in every case, which
// is also the row-major order of the tensor's own dims.
struct FlatShape {
  std::int64_t channels = 1, h = 1, w = 1;
  bool hasH = false, hasW = false;
  std::vector<std::int64_t> channelDims;
  std::int64_t elements() const { return channels * h * w; }
};
FlatShape flatShape(const Shape& symbolic, const std::vector<std::int64_t>& dims);

// The learned weights of each node (empty for all but fcs): fc [out channels][in channels],
// grouped fc [groups][out per group][in per group], row-major.
using KernelWeights = std::vector<std::vector<float>>;
// Weights drawn uniformly from +-1/sqrt(fan in) by a seeded generator (what the verification and
// the timing runs use; training starts from its own).
KernelWeights randomWeights(const MicroDag& dag, const std::vector<std::vector<std::int64_t>>& dims,
                            std::uint64_t seed);
// Floats each node's weights take.
std::vector<std::int64_t> weightSizes(const MicroDag& dag,
                                      const std::vector<std::vector<std::int64_t>>& dims);

// The kernel computed primitive by primitive on whole tensors: the unfused reference every
// generated kernel is checked against. `dims` are the node shapes of one layer (layerCost), input
// is [C, H, W]; returns the last node's tensor.
std::vector<float> interpret(const MicroDag& dag,
                             const std::vector<std::vector<std::int64_t>>& dims,
                             const std::vector<float>& input, const KernelWeights& weights);

}  // namespace opevo::kas
