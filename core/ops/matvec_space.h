#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

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
//   vector:  {1, 2, 4} floats per load (dividing K, so that every row stays aligned)
//   unroll:  {1, 2, 4, 8} loads in flight per column and thread
// and with gpuParams (SpaceTarget::MatVecGpu, what CUDA and HIP runs tune), the parameters that
// only share a GPU block's work, 32 and 1 where a configuration lacks them:
//   lanes:   {1, 2, 4, 8, 16, 32} threads of one warp sharing a group's K
//   k_split: {1, 2, 4, 8, 16} groups of a block over one group's columns, each a part of K
// Constraints: vector divides K; at most 64 accumulators (rows x COLS) and 64 floats of loads in
// flight (COLS x UNROLL x VECTOR) per thread; with gpuParams whole warps (threads per block a
// multiple of 32, at most 1024), at most 48 KiB of shared memory, and every thread has K to read
// (lanes x k_split x vector <= K: not for correctness, a thread without K is wasted). The CPU
// kernel keeps vector x unroll partial sums per output along K.
// Its start point: 4 groups of 32 lanes a block, one column a group, float4 loads 2 deep, or the
// nearest the shape allows (fewer groups, narrower loads; matvec_space.cpp).
SearchSpace matvecSpace(const OperatorSpec& op, bool gpuParams);
// What rules the operator out of the template, as a sentence without the operator's name: it
// takes MatMul or BatchMatMul with B stored transposed (m x k), at most 16 rows of A, K of at
// least 32 (a warp) and at most 65535 batches; none where it takes it.
std::optional<std::string> matvecMisfit(const OperatorSpec& op);
// Throws InputError naming the operator and matvecMisfit's reason.
void requireMatVec(const OperatorSpec& op);
bool matvecApplies(const OperatorSpec& op);
// Whether a space is one of matvecSpace's (it has tile_m and vector, and no tile_k).
bool isMatVecSpace(const SearchSpace& space);

// The most rows of A the template takes: each is an accumulator per column a thread computes.
inline constexpr std::int64_t kMatVecMaxRows = 16;
// The values of the template's discrete parameters, and lanes and k_split where a configuration
// (of the common space) has none.
inline constexpr std::array<std::int64_t, 6> kMatVecLanes{1, 2, 4, 8, 16, 32};
inline constexpr std::array<std::int64_t, 5> kMatVecKSplits{1, 2, 4, 8, 16};
inline constexpr std::array<std::int64_t, 3> kMatVecVectors{1, 2, 4};
inline constexpr std::array<std::int64_t, 4> kMatVecUnrolls{1, 2, 4, 8};
inline constexpr std::int64_t kMatVecLanesWhenAbsent = 32, kMatVecKSplitWhenAbsent = 1;

// The value of one of the template's discrete parameters in a configuration of its space (the
// value when absent for lanes and k_split).
std::int64_t matvecValue(const SearchSpace& space, const Config& c, const char* name);
// Threads per block of a configuration: groups x lanes x k_split.
std::int64_t matvecThreads(const SearchSpace& space, const Config& c);
// Bytes of shared memory a GPU block uses: where the K_SPLIT parts' sums meet (none for one).
std::int64_t matvecSharedBytes(std::int64_t rows, std::int64_t blockColumns, std::int64_t kSplit);

}  // namespace opevo
