#pragma once

// What the GPU start blockings (matmulGpuStartBlocking, conv2dGpuStartBlocking) size a CUDA/HIP
// run's first kernel by: the layout templates give each register tile a thread and each output
// tile a block, so the start chooses threads and blocks, where the CPU's chooses vector
// registers (vector_unit.h). Sized for NVIDIA's large GPUs (32-thread warps, 108-132 SMs); on
// AMD's 64-wide wavefronts and larger CU counts the tuner moves from there.

#include <cstdint>
#include <functional>

namespace opevo::layout {

// Blocks a start makes at least where cutting its output tiles allows: about one for each SM of
// an A100 (108), H100 or H200 (132).
inline constexpr std::int64_t kGpuStartBlocks = 128;
// Threads a start gives a block at most: eight warps, which leave an SM's 64K registers room for
// several blocks at the start's few accumulators.
inline constexpr std::int64_t kGpuStartThreads = 256;
// Threads a start gives a block at least, where the shape has as many: a block smaller than a
// warp leaves lanes of every warp it runs idle.
inline constexpr std::int64_t kGpuWarp = 32;

// One dimension's output tile of a GPU start, cut while there are fewer than kGpuStartBlocks
// blocks: `tiles` register tiles of the `units` the dimension holds, lowered to the next smaller
// divisor of `units` while `blocks(tiles)` is short and the block keeps kGpuWarp threads
// (`otherThreads`: the block's threads per register tile of this dimension). Returns the count
// of register tiles kept.
std::int64_t shrinkForBlocks(std::int64_t units, std::int64_t tiles, std::int64_t otherThreads,
                             const std::function<std::int64_t(std::int64_t)>& blocks);

}  // namespace opevo::layout
