#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kas/micro_dag.h"
#include "space/search_space.h"

namespace opevo::kas {

// How a fused kernel is scheduled: the image is cut into tile_h x tile_w tiles run in parallel;
// in a tile every primitive is computed over the part of its tensor the tile needs (wider where
// an unfold or shift reaches its neighbours, the whole image along a dim folded or softmaxed
// over), so intermediates stay in per-thread buffers instead of whole tensors. An fc keeps
// fc_block output channels x fc_width pixels of sums in registers over its whole reduction (the
// tile's pixels as one run where whole rows of both buffers follow each other).
struct KasSchedule {
  std::int64_t tileH = 1, tileW = 1, fcBlock = 1, fcWidth = 16;
};

// tile_h and tile_w over the divisors of H and W (path topology), fc_block in {1, 2, 4, 8},
// fc_width in {8, 16, 32, 64}. The start point is 8 whole rows (or the whole image when smaller),
// blocks of 4 x 16.
SearchSpace kasScheduleSpace(std::int64_t height, std::int64_t width);
KasSchedule kasSchedule(const SearchSpace& space, const Config& config);

// The fused kernel of one layer's instance (`dims`: every node's concrete shape, layerCost):
//   extern "C" void ENTRY(const float* input, const float* const* weights, float* output)
// input [C, H, W], weights[i] node i's (KernelWeights layout; null where a node has none),
// output [C, H, W]; OpenMP over tiles.
std::string generateKasCpuKernel(const MicroDag& dag,
                                 const std::vector<std::vector<std::int64_t>>& dims,
                                 const KasSchedule& schedule,
                                 const std::string& entry = "opevo_kas_kernel");

}  // namespace opevo::kas
