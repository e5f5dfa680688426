#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "net/network.h"

namespace opevo::net {

struct Tensor {
  Shape shape;
  std::vector<float> data;
};

// The network's input and learned tensors, drawn from a seed by (layer, role) name, so a process
// that reads the file without folding batch norms (the libtorch reference) draws the very same
// numbers. Weights are Kaiming-uniform (activations keep their scale through ReLU stacks), biases
// and norm shifts small, norm scales and variances near 1.
Tensor drawInput(const Input& input, std::uint64_t seed);
Tensor drawParameter(const std::string& layer, const Parameter& p, std::uint64_t seed);

// The parameters a layer computes with, by role: as drawn, except that a convolution with a
// folded batch norm gets the norm folded in (weight scaled per output channel, bias shifted).
std::map<std::string, Tensor> layerParameters(const Network& net, const Layer& layer,
                                              std::uint64_t seed);

}  // namespace opevo::net
