#pragma once

#include <cstdint>
#include <vector>

#include "kas/kas_regions.h"
#include "kas/micro_dag.h"

namespace opevo::kas {

// Where a node's elements live in a GPU block: the kernel's input and output (whole images in
// global memory), or a buffer in shared memory or in the block's part of the global scratch.
enum class KasArena { Input, Output, Shared, Scratch };

struct KasGpuBuffer {
  KasArena arena = KasArena::Shared;
  std::int64_t offset = 0, floats = 0;  // in its arena, for a root node (views use their root's)
};

// One block's memory plan for one layer and tile size. Intermediates are placed in node order,
// each at the lowest offset free of every buffer alive at the same time (alive from the node that
// writes it to the last that reads it or a view of it), in shared memory while that stays within
// the limit, else in the scratch. The last node writes the output directly unless it is a view.
struct KasGpuLayout {
  KasRegions regions;
  std::vector<KasGpuBuffer> buffers;  // one per node
  std::int64_t sharedFloats = 0, scratchFloats = 0;
  std::int64_t workingSetFloats = 0;  // with every intermediate in one arena
};
KasGpuLayout kasGpuLayout(const MicroDag& dag, const std::vector<std::vector<std::int64_t>>& dims,
                          std::int64_t tileH, std::int64_t tileW, std::int64_t sharedLimitBytes);

}  // namespace opevo::kas
