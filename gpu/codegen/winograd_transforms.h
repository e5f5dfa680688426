#pragma once

#include <functional>
#include <string>
#include <vector>

#include "codegen/code_writer.h"
#include "ops/operator.h"

namespace opevo::codegen {

// The three matrices of Winograd's F(m, r) (Lavin & Gray), built by Toom-Cook from the
// interpolation points 0, 1, -1, 1/2, -2, 2, -1/2, 3, -3 (the first alpha - 1 of them) and
// infinity, alpha = m + r - 1. For an input row d of alpha values and a filter g of r taps, the m
// outputs of the correlation y[i] = sum_k d[i + k] g[k] are
//   y = AT * ((G * g) .* (BT * d)),
// and in two dimensions Y = AT [(G g G^T) .* (BT d BT^T)] AT^T. Each row of BT is scaled to whole
// numbers where it can be (the inverse scale moves into G's row), so that the input transform,
// which runs for every tile, multiplies by few fractions.
struct WinogradTransforms {
  int m = 0, r = 0, alpha = 0;
  std::vector<std::vector<double>> at;  // m x alpha
  std::vector<std::vector<double>> g;   // alpha x r
  std::vector<std::vector<double>> bt;  // alpha x alpha
};

// Throws InputError unless 1 <= m, 1 <= r and alpha <= 10.
WinogradTransforms winogradTransforms(int m, int r);

// The CPU Winograd kernel's weights (GeneratedKernel::packedWeights): the operator's weights
// B[F][C][R][R] transformed into U[alpha^2][C][F] = G g G^T per (output, input) channel pair,
// computed in double. What its ENTRY_pack_b writes, for programs that hold their weights (a
// network). Throws InputError for an operator the template does not take or weights of the
// wrong size.
std::vector<float> winogradWeights(const OperatorSpec& op, const std::vector<float>& weights);

// The two-dimensional transform X in X^T of an input (inner x inCols) as straight-line source:
// first the scalars <tmp>_<a>_<b> = sum over k of X[a][k] * in(k, b), then each result element
// (a, b) = sum over k of <tmp>_<a>_<k> * cols[b][k], handed to store (which writes the statements
// that use it). Scalars rather than an array, so that a CPU loop around the code vectorizes.
using TransformInput = std::function<std::string(int k, int b)>;
using TransformStore = std::function<void(int a, int b, const std::string& value)>;
void writeTransform(CodeWriter& w, const std::vector<std::vector<double>>& rows,
                    const std::vector<std::vector<double>>& cols, int inCols,
                    const TransformInput& in, const std::string& tmp, const TransformStore& store);

// The sum of coefficient * term over a row, as fp32 source ("x0 - x2 + 0.25f * x3"): zero
// coefficients are left out, +-1 are additions and subtractions; "0.0f" for an all-zero row.
std::string linearCombination(const std::vector<double>& coefficients,
                              const std::vector<std::string>& terms);

}  // namespace opevo::codegen
