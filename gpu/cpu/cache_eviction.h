#pragma once

#include <cstddef>
#include <vector>

namespace opevo {

// Evicts the bytes [data, data + bytes) from every level of the CPU's caches, so that the next
// read of them comes from memory. A network's chain reads each layer's weights once per
// inference, long after they were last used (ResNet-18's 46 MB of weights outgrow the caches),
// while a kernel timed alone in a loop finds them cached from its previous run: a Winograd kernel
// ran 0.93 ms warm and 1.15-1.7 ms with the caches flushed between calls.
void evictFromCaches(const void* data, std::size_t bytes);

// A buffer as evictFromCaches takes it.
struct CachedBuffer {
  const void* data = nullptr;
  std::size_t bytes = 0;
  bool operator==(const CachedBuffer&) const = default;
};

// The operands of a timed run (a kernel's, as it reads them, or a reference's).
struct RunBuffers {
  CachedBuffer input, b, bias, residual, output;
};

// Which of them are evicted before each timed run, so that kernels and references are timed
// alike: b where it is cold (`coldB`: with the weights, or with the activations where b is one,
// TimingOptions::coldB), the bias with the weights, the input, the residual and the output with
// the activations. Empty buffers are left out.
std::vector<CachedBuffer> evictedBeforeEachRun(const RunBuffers& run, bool coldWeights, bool coldB,
                                               bool coldActivations);

}  // namespace opevo
