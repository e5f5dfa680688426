#pragma once

#include <string>

#include "net/network.h"

namespace opevo::net {

// The CPU kernel of a layer that is not tuned (pools, softmax, layer_norm, batch_norm,
// transpose, and elementwise layers no task absorbed): plain loops with the shapes baked in,
// OpenMP-parallel, self-contained like the tuned kernels. Signature:
//   extern "C" void ENTRY(const float* const* in, float* out, const float* const* params)
// in: the layer's input tensors in order; params: its parameters in Network::parameters order.
// Throws InputError for a complex layer or a view (flatten, reshape), which have no such kernel.
std::string fixedLayerCpuSource(const Network& net, const Layer& layer, const std::string& entry);

}  // namespace opevo::net
