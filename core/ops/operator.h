#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ops/epilogue.h"

namespace opevo {

enum class OpKind { MatMul, BatchMatMul, Conv2D };

std::string_view opKindName(OpKind kind);

// A tensor operator in fp32. MatMul and BatchMatMul compute C[b] = op(A[b]) * op(B[b]) with C of
// n x m and a reduction of length k; op transposes when trans* is set (A stored k x n, B stored
// m x k). Conv2D is direct NCHW convolution with square stride and padding; with groups > 1 the
// channels split into that many independent convolutions (output channel f reads input channels
// of its group only). An epilogue, applied in order to every output element, comes from fusing a
// network's elementwise layers into the operator (core/net).
struct OperatorSpec {
  std::string name;
  OpKind kind = OpKind::MatMul;

  std::int64_t batch = 1;
  std::int64_t n = 0, m = 0, k = 0;
  bool transA = false, transB = false;

  std::int64_t inChannels = 0, height = 0, width = 0;
  std::int64_t outChannels = 0, kernelH = 0, kernelW = 0;
  std::int64_t stride = 1, pad = 0;
  std::int64_t groups = 1;

  Epilogue epilogue;

  std::int64_t outHeight() const { return (height + 2 * pad - kernelH) / stride + 1; }
  std::int64_t outWidth() const { return (width + 2 * pad - kernelW) / stride + 1; }

  // Multiply-adds count as two operations; epilogue steps add theirs per output element.
  double flops() const;
  std::int64_t outputElements() const;
  // One line, e.g. "MatMul 512x1024 @ 1024x1024".
  std::string describe() const;
  // Throws InputError naming every impossible dimension, in one line (operatorProblems).
  void validate() const;
};

}  // namespace opevo
