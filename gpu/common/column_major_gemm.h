#pragma once

#include <cstdint>

#include "ops/operator.h"

namespace opevo {

// cuBLAS and rocBLAS are column-major: a row-major n x m C is a column-major m x n C^T =
// op(B)^T op(A)^T, so B goes first. A row-major buffer read column-major is its transpose, hence
// a stored operand needs the transpose flag exactly when the operator says it is stored
// transposed. These are the arguments of that call for the layouts of OperatorBuffers (batches
// contiguous), in the order both libraries take them.
struct ColumnMajorGemm {
  bool transFirst = false, transSecond = false;  // B's, then A's
  int m = 0, n = 0, k = 0;
  int ldFirst = 0, ldSecond = 0, ldc = 0;
  long long strideFirst = 0, strideSecond = 0, strideC = 0;
  int batch = 1;
  bool batched = false;  // use the strided-batched entry point
};

inline ColumnMajorGemm columnMajorGemm(const OperatorSpec& op) {
  ColumnMajorGemm g;
  g.transFirst = op.transB;
  g.transSecond = op.transA;
  g.m = static_cast<int>(op.m);
  g.n = static_cast<int>(op.n);
  g.k = static_cast<int>(op.k);
  g.ldFirst = static_cast<int>(op.transB ? op.k : op.m);
  g.ldSecond = static_cast<int>(op.transA ? op.n : op.k);
  g.ldc = g.m;
  g.strideFirst = op.k * op.m;
  g.strideSecond = op.n * op.k;
  g.strideC = op.n * op.m;
  g.batch = static_cast<int>(op.batch);
  g.batched = op.kind == OpKind::BatchMatMul && op.batch > 1;
  return g;
}

// Calls the library's sgemm or strided-batched sgemm (cuBLAS's and rocBLAS's take the same
// arguments, told apart only by their values of "no transpose" and "transpose") on device
// pointers; returns the library's status.
template <class Sgemm, class SgemmBatched>
int columnMajorSgemm(const OperatorSpec& op, void* handle, Sgemm sgemm, SgemmBatched batched,
                     int opNone, int opTranspose, std::uint64_t a, std::uint64_t b,
                     std::uint64_t c) {
  const ColumnMajorGemm g = columnMajorGemm(op);
  const float alpha = 1, beta = 0;
  auto* pa = reinterpret_cast<const float*>(a);
  auto* pb = reinterpret_cast<const float*>(b);
  auto* pc = reinterpret_cast<float*>(c);
  const int opB = g.transFirst ? opTranspose : opNone;
  const int opA = g.transSecond ? opTranspose : opNone;
  if (g.batched)
    return batched(handle, opB, opA, g.m, g.n, g.k, &alpha, pb, g.ldFirst, g.strideFirst, pa,
                   g.ldSecond, g.strideSecond, &beta, pc, g.ldc, g.strideC, g.batch);
  return sgemm(handle, opB, opA, g.m, g.n, g.k, &alpha, pb, g.ldFirst, pa, g.ldSecond, &beta, pc,
               g.ldc);
}

}  // namespace opevo
