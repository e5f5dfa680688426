#pragma once

namespace opevo::layout {

// The vector unit a CPU kernel is built for (gpu/codegen/cpu_compiler.h: -march=native, 512-bit
// vectors preferred where the core has them): floats per vector and vector registers. The start
// blockings size their register tiles by it: a tile sized for AVX-512's 32 registers of 16 floats
// has twice the accumulators AVX2's 16 registers of 8 can hold (BERT's ffn_in on an AVX2 EPYC:
// 10.5 ms with AVX-512's tile, 7.5 ms with AVX2's own).
struct VectorUnit {
  int floats = 16;
  int registers = 32;
  // A matmul register tile's accumulators, as measured: AVX-512 24 of its 32 registers (MM1);
  // AVX2 all 16 (BERT's ffn_in, 128 x 3072 x 768, on an AVX2 EPYC: 8 rows by two vectors 7.5 ms,
  // 4 by two 14.8 ms, 8 by four 10.5 ms).
  int matmulAccumulators = 24;
};

inline constexpr VectorUnit kAvx512{16, 32, 24};
inline constexpr VectorUnit kAvx2{8, 16, 16};

// This machine's: AVX-512 where the core has AVX512F, AVX2 (or AVX) 8 floats in 16 registers,
// else 4 floats (SSE: 16 registers; AArch64's NEON: 32).
VectorUnit nativeVectorUnit();

}  // namespace opevo::layout
