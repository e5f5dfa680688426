#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kas/micro_dag.h"
#include "space/search_space.h"

namespace opevo::kas {

// How a Canvas kernel runs on a GPU: one thread block per tileH x tileW image tile (a block that
// gets more than one strides over the tiles), `threads` threads per block working together on
// each primitive, parallel over its channels x pixels.
struct KasGpuSchedule {
  std::int64_t tileH = 1, tileW = 1, threads = 128;
};

// Why a schedule cannot run a layer (a tile that does not divide the image, a block of more than
// 1024 threads), or "" when it can. generateKasGpuKernel and kasGpuLaunch throw
// std::invalid_argument with this message.
std::string kasGpuScheduleError(const MicroDag& dag,
                                const std::vector<std::vector<std::int64_t>>& dims,
                                const KasGpuSchedule& schedule);

// Shared memory a block may use unless told otherwise: 48 KiB is what every CUDA device gives
// without the opt-in attribute, and fits AMD's 64 KiB LDS.
inline constexpr std::int64_t kKasGpuSharedBytes = 48 * 1024;

// What one block needs. Intermediates go to shared memory while it has room, the rest to a global
// scratch buffer of scratchFloats per block; buffers no longer read are reused by later ones.
struct KasGpuFootprint {
  std::int64_t sharedBytes = 0;
  std::int64_t scratchFloats = 0;
  // Bytes of shared memory the tile would need to hold every intermediate there.
  std::int64_t workingSetBytes = 0;
  bool fitsShared() const { return scratchFloats == 0; }
};
KasGpuFootprint kasGpuFootprint(const MicroDag& dag,
                                const std::vector<std::vector<std::int64_t>>& dims,
                                const KasGpuSchedule& schedule,
                                std::int64_t sharedLimitBytes = kKasGpuSharedBytes);

// The launch of generateKasGpuKernel's kernel: grid x 1 x 1 blocks of threads x 1 x 1, sharedBytes
// of dynamic shared memory (above 48 KiB CUDA needs
// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES first) and a global scratch buffer of
// scratchFloats floats (0: pass null). A kernel that needs scratch launches fewer blocks than it
// has tiles when one per tile would take more than kKasGpuScratchBudgetFloats.
inline constexpr std::int64_t kKasGpuScratchBudgetFloats = std::int64_t{64} << 20;  // 256 MiB
struct KasGpuLaunch {
  std::int64_t grid = 1, block = 1, sharedBytes = 0, scratchFloats = 0;
  std::int64_t tiles = 1;
};
KasGpuLaunch kasGpuLaunch(const MicroDag& dag, const std::vector<std::vector<std::int64_t>>& dims,
                          const KasGpuSchedule& schedule,
                          std::int64_t sharedLimitBytes = kKasGpuSharedBytes);

// tile_h and tile_w over the divisors of H and W, threads in {64, 128, 256, 512} (whole AMD
// wavefronts). Starts at 8 x 8 pixels (or the image when smaller) and 128 threads.
SearchSpace kasGpuScheduleSpace(std::int64_t height, std::int64_t width);
// The same for one layer of a kernel, with the known constraint that a block's intermediates fit
// in sharedLimitBytes of shared memory, when any tile's do (a tile spilling to global scratch
// still runs, but every primitive then reads and writes through the caches); the start point is
// the largest such tile up to 8 x 8.
SearchSpace kasGpuScheduleSpace(const MicroDag& dag,
                                const std::vector<std::vector<std::int64_t>>& dims,
                                std::int64_t sharedLimitBytes = kKasGpuSharedBytes);
KasGpuSchedule kasGpuSchedule(const SearchSpace& space, const Config& config);

}  // namespace opevo::kas
