#pragma once

// Internal to codegen/: the per-operator templates behind generateKernel.

#include <functional>
#include <string>

#include "codegen/code_writer.h"
#include "codegen/kernel_codegen.h"
#include "codegen/tiling.h"
#include "layout/conv2d_layout.h"
#include "layout/matmul_layout.h"

namespace opevo::codegen::detail {

// What every template needs besides its tiling.
struct KernelContext {
  const OperatorSpec* op = nullptr;
  Backend backend = Backend::Cuda;
  std::string entry;
  std::string configText;  // SearchSpace::format of the configuration, for the header comment
  std::int64_t maxGridZ = 65535;
};

// The parameter list of every entry point: (A, B, C, Bias, Residual). Bias and Residual are read
// only when the operator's epilogue has a bias or an add step, and may be null otherwise.
std::string kernelParams(Backend backend);

// Statements that turn the float variable `value` into the operator's epilogue applied to it, for
// the output element at flat offset `offset` (into C and Residual) whose output channel (Conv2D)
// or column (MatMul) is `channel`. Nothing for an empty epilogue.
void writeEpilogue(CodeWriter& w, const OperatorSpec& op, Backend backend, const std::string& value,
                   const std::string& channel, const std::string& offset);

// Macros that differ between CUDA and HIP; the kernel text after them is shared.
std::string gpuPrelude(Backend backend);
// "int" when every element offset of A, B and C fits in 32 bits, else "long long".
std::string indexType(const OperatorSpec& op);
// The comment block at the top of every kernel.
void writeHeader(CodeWriter& w, const KernelContext& ctx, const std::string& what,
                 const std::string& launch);
std::string describeLaunch(const LaunchConfig& launch);
// The backend's prelude, then the entry point for blocks of up to `threads` threads, opened (close
// it with w.close()), its first line `using index_t = <index>;`. Between them, for split K, the
// turns of `splitKTiles` output tiles, named <entry>_turn (writeSplitKTurns).
void openGpuKernel(CodeWriter& w, const KernelContext& ctx, std::int64_t threads,
                   const std::string& index, std::int64_t splitKTiles = 0);

// Split K (split_k_code.cpp): blocks along grid z, after every other block of the launch, share
// one output tile's reduction and add their partial sums into C in turn. The kernel names its
// split `split`, its thread `tid`, and has the constant SPLIT_K.
// The turn counters of `tiles` output tiles, at module scope (before the kernel), named `turn`.
void writeSplitKTurns(CodeWriter& w, const std::string& turn, std::int64_t tiles);
// After the accumulation: waits for this split's turn on output tile `tile` (an expression),
// writes the stores (`writeStores`, whose sums writeSplitKSum finishes), then ends the turn.
void writeSplitKStore(CodeWriter& w, const std::string& turn, const std::string& tile,
                      const std::function<void()>& writeStores);
// In such a store: adds the earlier splits' partial sum at `offset` to the float `value`, and
// applies the epilogue (writeEpilogue's arguments) where this split is the last.
void writeSplitKSum(CodeWriter& w, const OperatorSpec& op, Backend backend,
                    const std::string& value, const std::string& channel,
                    const std::string& offset);

// Offsets (as expressions over the generated constants N, M, K) of A's element (batch, row, k) and
// B's element (batch, k, col) in their stored, possibly transposed layouts. batch is ignored for
// MatMul.
std::string aOffset(const OperatorSpec& op, const std::string& batch, const std::string& row,
                    const std::string& k);
std::string bOffset(const OperatorSpec& op, const std::string& batch, const std::string& k,
                    const std::string& col);

// What the layout templates share (defined in conv2d_layout_gpu_template.cpp).
// The stride, in elements, of a layout's physical dim named `dim`; InputError when it has none.
std::int64_t physicalStride(const layout::Layout& l, const std::string& dim);
// "int" when every offset into the three laid-out buffers fits in 32 bits (padded, unfolded
// layouts are larger than the logical tensors indexType measures), else "long long".
std::string layoutIndexType(const layout::OperandLayouts& l);
// Threads of a block that computes `registerTiles` register tiles of `accumulators` floats each,
// one tile per thread at a time: all of them up to a register budget, never above 1024.
std::int64_t layoutThreadsPerBlock(std::int64_t registerTiles, std::int64_t accumulators);
// The blocks launched for `tiles` output tiles (one block per tile, grid.x only): capped where a
// grid-stride loop takes over, so that no operator reaches a grid or work-item limit.
std::int64_t layoutGridBlocks(std::int64_t tiles);
// GPU register tiles of at most this many accumulators get their loops unrolled (up to
// kUnrollSteps innermost steps), which keeps them in registers; larger ones live in local memory
// whatever is done, and rolled loops keep their compile times short (matmul_gpu_template.cpp).
inline constexpr std::int64_t kRegisterTile = 256;
inline constexpr std::int64_t kUnrollSteps = 512;

// One operand's slab copy of the GPU MatMul template: `bTh` x `kStep` x `extent` floats copied by
// `threads` threads, K fastest or `extent` fastest as global memory stores it, four floats a
// copy when `vector` (matmul_gpu_template.cpp). The GPU Conv2D template's weight copy is one too:
// its taps are the K steps, its block's output channels the extent.
struct SlabShape {
  std::int64_t extent, kStep, bTh, threads;
  bool kContiguous, vector;
};
// Shared-memory wavefronts of the first warp's stores of such a copy into rows of `ld` floats.
std::int64_t slabStoreWavefronts(const SlabShape& s, std::int64_t ld);
// The shared row length the template uses: `extent` plus the padding with the fewest wavefronts.
std::int64_t paddedSlabRow(const SlabShape& s);

GeneratedKernel matmulGpu(const KernelContext& ctx, const MatMulTiling& t);
GeneratedKernel conv2dGpu(const KernelContext& ctx, const Conv2DTiling& t);
GeneratedKernel conv2dWinogradGpu(const KernelContext& ctx, const WinogradTiling& t);
GeneratedKernel conv2dWinogradCpu(const KernelContext& ctx, const WinogradTiling& t);
GeneratedKernel matmulCpu(const KernelContext& ctx, const MatMulTiling& t);
GeneratedKernel matvecGpu(const KernelContext& ctx, const MatVecTiling& t);
GeneratedKernel matvecCpu(const KernelContext& ctx, const MatVecTiling& t);
GeneratedKernel conv2dCpu(const KernelContext& ctx, const Conv2DTiling& t);
GeneratedKernel conv2dLayoutCpu(const KernelContext& ctx, const layout::Conv2DBlocking& b);
GeneratedKernel matmulLayoutCpu(const KernelContext& ctx, const layout::MatMulBlocking& b);
GeneratedKernel conv2dLayoutGpu(const KernelContext& ctx, const layout::Conv2DBlocking& b);
GeneratedKernel matmulLayoutGpu(const KernelContext& ctx, const layout::MatMulBlocking& b);
GeneratedKernel referenceGpu(const KernelContext& ctx);
GeneratedKernel referenceCpu(const KernelContext& ctx);
GeneratedKernel epilogueGpu(const KernelContext& ctx);
GeneratedKernel comparisonGpu(Backend backend);

}  // namespace opevo::codegen::detail
