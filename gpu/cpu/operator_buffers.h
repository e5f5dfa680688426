#pragma once

#include <vector>

#include "ops/operator.h"

namespace opevo {

// Deterministic inputs of an operator and its reference output, shared by every trial of a run
// so the reference is computed once. Layouts (row-major, fp32):
//   MatMul / BatchMatMul: A is [batch][n][k] ([batch][k][n] when transA), B is [batch][k][m]
//   ([batch][m][k] when transB), C is [batch][n][m].
//   Conv2D: A (input) is [batch][in_channels][height][width], B (weights) is
//   [out_channels][in_channels / groups][kernel_h][kernel_w], C is
//   [batch][out_channels][out_h][out_w].
// The epilogue's operands: bias (one per output channel or column) and residual (shaped as C),
// empty when the epilogue does not read them.
struct OperatorBuffers {
  explicit OperatorBuffers(const OperatorSpec& op);

  const OperatorSpec op;
  std::vector<float> a, b, bias, residual;
  // The data pointers of bias and residual, null when empty (the kernels' Bias and Residual).
  const float* biasData() const { return bias.empty() ? nullptr : bias.data(); }
  const float* residualData() const { return residual.empty() ? nullptr : residual.data(); }
  std::vector<float> reference;  // empty until computeReference()
  std::size_t outputSize() const;

  // OpenBLAS for MatMul / BatchMatMul, a plain loop nest for Conv2D; then the epilogue.
  void computeReference();
  // Runs the reference computation once more into out (for timing the reference library).
  void referenceInto(std::vector<float>& out) const;

 private:
  // The epilogue, in double precision, on the operator's raw output.
  void applyEpilogue(std::vector<float>& out) const;
};

// Largest |c - ref| / (1 + |ref|) over the output; a kernel passes when it is below 1e-3.
double maxRelativeError(const std::vector<float>& c, const std::vector<float>& ref);
inline constexpr double kVerifyTolerance = 1e-3;

}  // namespace opevo
