#include "layout/gpu_start.h"

#include "layout/operand_layouts.h"

namespace opevo::layout {

std::int64_t shrinkForBlocks(std::int64_t units, std::int64_t tiles, std::int64_t otherThreads,
                             const std::function<std::int64_t(std::int64_t)>& blocks) {
  while (tiles > 1 && blocks(tiles) < kGpuStartBlocks) {
    const std::int64_t next = divisorUpTo(units, tiles - 1);
    if (next * otherThreads < kGpuWarp) break;
    tiles = next;
  }
  return tiles;
}

}  // namespace opevo::layout
