#pragma once

#include <cstddef>

namespace opevo {

// Evicts the bytes [data, data + bytes) from every level of the CPU's caches, so that the next
// read of them comes from memory. A network's chain reads each layer's weights once per
// inference, long after they were last used (ResNet-18's 46 MB of weights outgrow the caches),
// while a kernel timed alone in a loop finds them cached from its previous run: a Winograd kernel
// ran 0.93 ms warm and 1.15-1.7 ms with the caches flushed between calls.
void evictFromCaches(const void* data, std::size_t bytes);

}  // namespace opevo
