#pragma once

#include <cstdint>

#include "ops/operator.h"
#include "space/search_space.h"

namespace opevo {

// The matrix-vector template (docs/codegen.md): a product with few rows of A, such as a dense
// layer at batch 1, has almost no reuse for the direct template's tiles to give; it is bound by
// reading B once. A group of LANES threads reads the K-contiguous rows of B (the weights, stored
// m x k as dense layers store them) for COLS output columns at a time, VECTOR floats a load and
// UNROLL loads in flight per column, every row of A reused against each load; the group's partial
// sums meet through warp shuffles, and K_SPLIT copies of the group (the block's warps) split K
// further and meet through shared memory.
//   tile_m:  output columns into [blocks, groups per block, columns per group]
//   lanes:   {1, 2, 4, 8, 16, 32} threads of one warp sharing a group's K
//   k_split: {1, 2, 4, 8, 16} groups of a block over one group's columns, each a part of K
//   vector:  {1, 2, 4} floats per load (dividing K, so that every row stays aligned)
//   unroll:  {1, 2, 4, 8} loads in flight per column and thread
// Constraints: whole warps (threads per block a multiple of 32, at most 1024); every thread has
// K to read (lanes * k_split * vector <= K); at most 64 accumulators (rows x COLS) and 64 floats
// of loads in flight (COLS x UNROLL x VECTOR) per thread; at most 48 KiB of shared memory.
// The CPU kernel reads tile_m, vector and unroll (vector x unroll partial sums per output along
// K); lanes and k_split change only how a GPU block shares the work.
// Its start point: 4 groups of 32 lanes a block, one column a group, float4 loads 2 deep.
SearchSpace matvecSpace(const OperatorSpec& op);
// Throws InputError naming what rules the operator out: MatMul or BatchMatMul with B stored
// transposed (m x k), at most 16 rows of A, K of at least 32 (a warp) and at most 65535 batches.
void requireMatVec(const OperatorSpec& op);
bool matvecApplies(const OperatorSpec& op);
// Whether a space is matvecSpace's (it has lanes).
bool isMatVecSpace(const SearchSpace& space);

// The most rows of A the template takes: each is an accumulator per column a thread computes.
inline constexpr std::int64_t kMatVecMaxRows = 16;

}  // namespace opevo
