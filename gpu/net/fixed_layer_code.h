#pragma once

#include <string>

#include "codegen/kernel_codegen.h"
#include "layout/layout.h"
#include "net/network.h"

namespace opevo::net {

// The CPU kernel of a layer that is not tuned (pools, softmax, layer_norm, batch_norm,
// transpose, and elementwise layers no task absorbed): plain loops with the shapes baked in,
// OpenMP-parallel, self-contained like the tuned kernels. Signature:
//   extern "C" void ENTRY(const float* const* in, float* out, const float* const* params)
// in: the layer's input tensors in order; params: its parameters in Network::parameters order.
// Throws InputError for a complex layer or a view (flatten, reshape), which have no such kernel.
std::string fixedLayerCpuSource(const Network& net, const Layer& layer, const std::string& entry);

// Threads per block of a fixed layer's GPU kernel.
inline constexpr std::int64_t kFixedLayerThreads = 256;

// The same layer's kernel for CUDA or HIP (the one-module source with its prelude, and its
// launch): the CPU kernel's loop over independent items (elements, pooled outputs, channels of a
// global pool, rows of a softmax or layer_norm), one GPU thread per item, no shared memory. Same
// signature as above (__global__), in, out and params in device memory, in and params arrays of
// device pointers. Throws InputError as above, and for the cpu backend.
struct FixedGpuKernel {
  std::string source;
  codegen::LaunchConfig launch;
};
FixedGpuKernel fixedLayerGpuKernel(const Network& net, const Layer& layer, const std::string& entry,
                                   codegen::Backend backend);

// ALT's layout propagation onto a simple layer: a pooling layer (max, average, global average)
// that reads its NCHW input where `input` stores it, so the tuned operator that wrote it in that
// layout needs no conversion after it. True when the layer is a pool and the layout is made of
// splits and reorders only (each element's offset is then a sum of one term per logical dim;
// layouts with pads or overlapping windows are converted instead, as ALT does).
bool canReadLayout(const Layer& layer, const layout::Layout& input);
// The pool's kernel reading its input laid out as `input` (canReadLayout must hold; throws
// InputError otherwise); the output is plain NCHW, and the signature is the one above.
std::string fixedLayerCpuSource(const Network& net, const Layer& layer, const std::string& entry,
                                const layout::Layout& input);

}  // namespace opevo::net
