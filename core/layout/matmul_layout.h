#pragma once

// ALT's one-level layout template for MatMul and BatchMatMul (seed 003, sec. 5.1): the tiles of
// each operand are factorization parameters named "layout.*", beside the loops of the blocked CPU
// template (gpu/codegen) that reads and writes them. The layouts are those a packing GEMM library
// builds for itself, made tunable:
//   A (b, n, k)  ->  b, n_o, k_o, k_i, n_i   row panels: for each k, a_n rows side by side
//   B (b, k, m)  ->  b, m_o, k_o, k_i, m_i   column panels: for each k, b_m columns side by side
//   C (b, n, m)  ->  b, n_o, m_o, n_i, m_i   output tiles, each one contiguous block
// The logical dims follow the stored order of a transposed operand (A as b, k, n; B as b, m, k), so
// that the plain layout of each is its buffer as the user holds it. A MatMul has a batch of 1.

#include <cstdint>

#include "layout/operand_layouts.h"
#include "layout/vector_unit.h"
#include "ops/operator.h"
#include "space/search_space.h"

namespace opevo::layout {

// The numbers a configuration of matmulLayoutSpace chooses.
struct MatMulBlocking {
  // Layout tiles (the second factor of each layout.* parameter).
  std::int64_t aN = 1, aK = 1, bK = 1, bM = 1, cN = 1, cM = 1;
  // The register tile (rows x columns) computed at once inside an output tile; each divides its
  // output tile. Its columns are the vector lanes.
  std::int64_t regN = 1, regM = 1;
  // Depth of the K stage: the part of A's row panels and B's column panels one output tile
  // accumulates before moving on, kept in cache for all of its register tiles.
  std::int64_t kStage = 1;
  // True: output tiles along n are the outer parallel loop (threads share B's panels); false:
  // tiles along m are.
  bool rowTilesOuter = true;
  // True: register tiles of one output tile are visited row by row; false: column by column.
  bool regRowsOuter = true;
  // GCC unroll count of the K loop.
  int unrollK = 1;

  std::int64_t accumulators() const { return regN * regM; }
};

OperandLayouts matmulLayouts(const OperatorSpec& op, const MatMulBlocking& b);

// layout.a_n, layout.a_k, layout.b_k, layout.b_m, layout.c_n, layout.c_m (each [outer, tile]);
// tile_n, tile_m ([outer, register tile]); tile_k ([stages, stage depth]); tile_order and
// reg_order (perm:2); unroll_k {1, 2, 4, 8}. Constraints: each register tile divides its output
// tile, at most kMaxAccumulators accumulators. MatMul and BatchMatMul only: throws InputError
// otherwise. Its start point is `device`'s start blocking.
SearchSpace matmulLayoutSpace(const OperatorSpec& op, StartDevice device = StartDevice::Cpu);

// The blocking matmulLayoutSpace(op) starts from (its startPoint()), chosen as packing GEMM
// libraries choose theirs for the vector unit: two vectors of columns by as many rows as leave
// registers for the accumulators, A and B packed in panels of the register tile, a K stage of up
// to 1024, and loop orders that keep the larger of A's and B's blocks in cache. Without a unit,
// this machine's (nativeVectorUnit).
MatMulBlocking matmulStartBlocking(const OperatorSpec& op, VectorUnit unit);
MatMulBlocking matmulStartBlocking(const OperatorSpec& op);

// The blocking a GPU run of matmulLayoutSpace(op) starts from (the CUDA/HIP layout template: one
// thread per register tile, one block per output tile, operands read from global memory): up to
// 4 x 4 accumulators a thread, a warp's threads side by side along the columns (reg_order 0,1)
// so that at each k they read consecutive columns of one B panel and one broadcast run of A's,
// at most kGpuStartThreads threads a block, output tiles cut (rows first) towards
// kGpuStartBlocks blocks while a block keeps a warp (gpu_start.h), and A's and B's panels as
// tall and as wide as the output tile. The same on every host.
MatMulBlocking matmulGpuStartBlocking(const OperatorSpec& op);

// Reads a configuration of matmulLayoutSpace(op). Throws InputError naming a missing or
// mismatched parameter.
MatMulBlocking matmulBlocking(const OperatorSpec& op, const SearchSpace& space, const Config& c);

}  // namespace opevo::layout
