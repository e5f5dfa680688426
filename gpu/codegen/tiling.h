#pragma once

#include <array>
#include <cstdint>

#include "ops/operator.h"
#include "space/search_space.h"

namespace opevo::codegen {

// The factors of a MatMul/BatchMatMul configuration, named by what they mean in TVM's template
// (REFERENCE.md): n and m are [block, virtual thread, thread, inner], k is [outer, middle, inner],
// b is [block, thread] (both 1 for MatMul). GPU spaces only: splitK (split_k) blocks share one
// output tile's K loop, each k[0] / splitK outer steps of it; stages (2: double-buffered) shared
// memory stages, the next slab fetched into registers while this one is multiplied.
struct MatMulTiling {
  std::array<std::int64_t, 2> b{1, 1};
  std::array<std::int64_t, 4> n{}, m{};
  std::array<std::int64_t, 3> k{};
  std::int64_t splitK = 1;
  std::int64_t stages = 1;

  std::int64_t blockN() const { return n[1] * n[2] * n[3]; }
  std::int64_t blockM() const { return m[1] * m[2] * m[3]; }
  std::int64_t kStep() const { return k[1] * k[2]; }
  std::int64_t threads() const { return b[1] * n[2] * m[2]; }
  // Accumulators one thread keeps: every virtual thread's inner tile.
  std::int64_t accumulators() const { return n[1] * n[3] * m[1] * m[3]; }
};

// Conv2D direct NCHW: f, y, x (out channels, rows, columns) are [block, vthread, thread, inner];
// rc, ry, rx (in channels, kernel rows, kernel columns) are [outer, inner]. GPU spaces only:
// splitK (split_k) blocks share one output tile's input channels, each rc[0] / splitK outer steps.
struct Conv2DTiling {
  std::array<std::int64_t, 4> f{}, y{}, x{};
  std::array<std::int64_t, 2> rc{}, ry{}, rx{};
  std::int64_t autoUnrollMaxStep = 512;
  bool unrollExplicit = true;
  std::int64_t splitK = 1;

  std::int64_t blockF() const { return f[1] * f[2] * f[3]; }
  std::int64_t blockY() const { return y[1] * y[2] * y[3]; }
  std::int64_t blockX() const { return x[1] * x[2] * x[3]; }
  std::int64_t threads() const { return f[2] * y[2] * x[2]; }
  std::int64_t accumulators() const { return f[1] * f[3] * y[1] * y[3] * x[1] * x[3]; }
  // Rows and columns of padded input one outer reduction step needs for the block's outputs.
  std::int64_t patchH(std::int64_t stride) const { return (blockY() - 1) * stride + ry[1]; }
  std::int64_t patchW(std::int64_t stride) const { return (blockX() - 1) * stride + rx[1]; }
};

// The GPU Winograd template (ops/winograd_space.h): f (output channels) and t (output tiles) are
// [block, thread, inner], e (transform elements) [thread, inner], rc (input channels) [outer,
// inner].
struct WinogradTiling {
  std::array<std::int64_t, 3> f{}, t{};
  std::array<std::int64_t, 2> e{}, rc{};

  std::int64_t blockF() const { return f[1] * f[2]; }
  std::int64_t blockT() const { return t[1] * t[2]; }
  std::int64_t threads() const { return f[1] * t[1] * e[0]; }
  std::int64_t accumulators() const { return f[2] * t[2] * e[1]; }
};

// The matrix-vector template (ops/matvec_space.h): m is [blocks, groups, columns per group]; a
// group of `lanes` threads reads K `vector` floats a load, `unroll` loads in flight per column,
// and `kSplit` groups of a block share its columns, each over a part of K. lanes and kSplit are
// 32 and 1 for a configuration of the common space.
struct MatVecTiling {
  std::array<std::int64_t, 3> m{};
  std::int64_t lanes = 32, kSplit = 1, vector = 1, unroll = 1;

  std::int64_t blockM() const { return m[1] * m[2]; }
  std::int64_t threads() const { return m[1] * lanes * kSplit; }
};

// Read the factors from a configuration of the operator's space (parameters found by name, as in
// defaultSpace). Throws InputError when the operator kind does not match, a parameter is missing,
// has the wrong number of factors, or its factors do not multiply to the dimension it tiles.
// Conv2D's auto_unroll_max_step and unroll_explicit may be absent (512 and 1 are used), as may
// split_k and MatMul's stages (1); a split_k that does not divide tile_k's (Conv2D: tile_rc's)
// outer factor, or stages other than 1 and 2, is an InputError.
MatMulTiling matmulTiling(const OperatorSpec& op, const SearchSpace& space, const Config& config);
Conv2DTiling conv2dTiling(const OperatorSpec& op, const SearchSpace& space, const Config& config);
// Also InputError for an operator the Winograd template does not take.
WinogradTiling winogradTiling(const OperatorSpec& op, const SearchSpace& space,
                              const Config& config);
// Also InputError for an operator the template does not take or a value it does not take.
MatVecTiling matvecTiling(const OperatorSpec& op, const SearchSpace& space, const Config& config);

}  // namespace opevo::codegen
