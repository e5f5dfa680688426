#include "codegen/winograd_transforms.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <utility>

#include "common/error.h"
#include "ops/winograd_space.h"

namespace opevo::codegen {
namespace {

using Matrix = std::vector<std::vector<double>>;

Matrix zeros(int rows, int cols) {
  return Matrix(static_cast<std::size_t>(rows),
                std::vector<double>(static_cast<std::size_t>(cols)));
}

// Gauss-Jordan with partial pivoting; the Vandermonde matrices here are at most 10 x 10 of small
// points, far from singular.
Matrix inverse(Matrix a) {
  const std::size_t n = a.size();
  Matrix inv = zeros(static_cast<int>(n), static_cast<int>(n));
  for (std::size_t i = 0; i < n; ++i) inv[i][i] = 1;
  for (std::size_t col = 0; col < n; ++col) {
    std::size_t pivot = col;
    for (std::size_t row = col + 1; row < n; ++row)
      if (std::fabs(a[row][col]) > std::fabs(a[pivot][col])) pivot = row;
    std::swap(a[col], a[pivot]);
    std::swap(inv[col], inv[pivot]);
    const double d = a[col][col];
    for (std::size_t k = 0; k < n; ++k) a[col][k] /= d, inv[col][k] /= d;
    for (std::size_t row = 0; row < n; ++row) {
      if (row == col || a[row][col] == 0) continue;
      const double f = a[row][col];
      for (std::size_t k = 0; k < n; ++k)
        a[row][k] -= f * a[col][k], inv[row][k] -= f * inv[col][k];
    }
  }
  return inv;
}

// The rows of the evaluation of a polynomial of `terms` coefficients at the points, the last row
// at infinity (its leading coefficient).
Matrix evaluation(const std::vector<double>& points, int terms) {
  Matrix e = zeros(static_cast<int>(points.size()) + 1, terms);
  for (std::size_t j = 0; j < points.size(); ++j)
    for (int k = 0; k < terms; ++k) e[j][static_cast<std::size_t>(k)] = std::pow(points[j], k);
  e.back()[static_cast<std::size_t>(terms - 1)] = 1;
  return e;
}

// The smallest whole scale (up to 1000) that makes every entry of the row a whole number; 0 when
// none does.
double wholeScale(const std::vector<double>& row) {
  for (int s = 1; s <= 1000; ++s) {
    bool whole = true;
    for (double v : row) whole = whole && std::fabs(v * s - std::round(v * s)) < 1e-9;
    if (whole) return s;
  }
  return 0;
}

std::string floatLiteral(double v) {
  char text[48];
  std::snprintf(text, sizeof text, "%.9g", v);
  std::string s = text;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s + "f";
}

}  // namespace

WinogradTransforms winogradTransforms(int m, int r) {
  if (m < 1 || r < 1 || m + r - 1 > 10)
    throw InputError("Winograd F(" + std::to_string(m) + ", " + std::to_string(r) +
                     "): m and r must be at least 1 and m + r - 1 at most 10");
  // The order decides which points a transform uses: 6 points take 1/2 and -2 rather than 2 and
  // -2 (or 1/2 and -1/2). Summed over 512 channels in fp32, F(4x4, 3x3) and F(2x2, 5x5) on
  // {0, +-1, +-2} left 1 output in 1,000 over 2e-4 of our tolerance's measure and some at
  // 7e-4 to 9e-4; on {0, +-1, 1/2, -2} 1 in 8,000 and none over 5e-4 (96,000 and 24,000 outputs
  // of random data, docs/codegen.md). 8 points are the usual 0, +-1, +-2, +-1/2.
  static const double kPoints[] = {0, 1, -1, 0.5, -2, 2, -0.5, 3, -3};
  WinogradTransforms w;
  w.m = m, w.r = r, w.alpha = m + r - 1;
  const std::vector<double> points(kPoints, kPoints + (w.alpha - 1));
  // Toom-Cook's linear convolution is c = inverse(V) [(Ea a) .* (Eb b)] with V, Ea and Eb the
  // evaluations of alpha, m and r coefficients; the correlation is its transpose.
  const Matrix ea = evaluation(points, m), interp = inverse(evaluation(points, w.alpha));
  w.g = evaluation(points, r);
  w.at = zeros(m, w.alpha);
  w.bt = zeros(w.alpha, w.alpha);
  for (int i = 0; i < w.alpha; ++i) {
    for (int k = 0; k < m; ++k) w.at[k][i] = ea[i][k];
    for (int k = 0; k < w.alpha; ++k) w.bt[i][k] = interp[k][i];
    if (double s = wholeScale(w.bt[i]); s > 0) {
      // Then the whole numbers' common factor is divided out again (e.g. 32, 16, -32, -16 become
      // 2, 1, -2, -1): the smallest constants.
      long long common = 0;
      for (double v : w.bt[i]) common = std::gcd(common, std::llabs(std::llround(v * s)));
      if (common > 1) s /= static_cast<double>(common);
      for (double& v : w.bt[i]) v = std::round(v * s);
      for (double& v : w.g[i]) v /= s;
    }
  }
  return w;
}

std::string linearCombination(const std::vector<double>& coefficients,
                              const std::vector<std::string>& terms) {
  std::string s;
  for (std::size_t k = 0; k < coefficients.size(); ++k) {
    const double c = coefficients[k];
    if (c == 0) continue;
    const bool negative = c < 0;
    if (s.empty())
      s += negative ? "-" : "";
    else
      s += negative ? " - " : " + ";
    const double magnitude = std::fabs(c);
    if (magnitude != 1) s += floatLiteral(magnitude) + " * ";
    s += terms[k];
  }
  return s.empty() ? "0.0f" : s;
}

void writeTransform(CodeWriter& w, const std::vector<std::vector<double>>& rows,
                    const std::vector<std::vector<double>>& cols, int inCols,
                    const TransformInput& in, const std::string& tmp, const TransformStore& store) {
  const int outRows = static_cast<int>(rows.size()), inner = static_cast<int>(rows[0].size());
  auto name = [&](int a, int b) { return tmp + "_" + std::to_string(a) + "_" + std::to_string(b); };
  for (int a = 0; a < outRows; ++a)
    for (int b = 0; b < inCols; ++b) {
      std::vector<std::string> terms;
      for (int k = 0; k < inner; ++k) terms.push_back(in(k, b));
      w.line("const float " + name(a, b) + " = " + linearCombination(rows[a], terms) + ";");
    }
  for (int a = 0; a < outRows; ++a)
    for (std::size_t b = 0; b < cols.size(); ++b) {
      std::vector<std::string> terms;
      for (int k = 0; k < inCols; ++k) terms.push_back(name(a, k));
      store(a, static_cast<int>(b), linearCombination(cols[b], terms));
    }
}

std::vector<float> winogradWeights(const OperatorSpec& op, const std::vector<float>& weights) {
  const WinogradShape shape = winogradShape(op);
  const std::int64_t r = shape.r, alpha = shape.alpha, c = op.inChannels, f = op.outChannels;
  if (static_cast<std::int64_t>(weights.size()) != f * c * r * r)
    throw InputError(op.name + ": " + std::to_string(weights.size()) + " weights, expected " +
                     std::to_string(f * c * r * r));
  const WinogradTransforms x =
      winogradTransforms(static_cast<int>(shape.m), static_cast<int>(shape.r));
  std::vector<float> u(static_cast<std::size_t>(alpha * alpha * c * f));
  std::vector<double> gk(static_cast<std::size_t>(alpha * r));  // G g
  for (std::int64_t o = 0; o < f; ++o)
    for (std::int64_t i = 0; i < c; ++i) {
      const float* g = weights.data() + (o * c + i) * r * r;
      for (std::int64_t a = 0; a < alpha; ++a)
        for (std::int64_t b = 0; b < r; ++b) {
          double s = 0;
          for (std::int64_t k = 0; k < r; ++k) s += x.g[std::size_t(a)][std::size_t(k)] * g[k * r + b];
          gk[std::size_t(a * r + b)] = s;
        }
      for (std::int64_t a = 0; a < alpha; ++a)
        for (std::int64_t b = 0; b < alpha; ++b) {
          double s = 0;
          for (std::int64_t k = 0; k < r; ++k)
            s += gk[std::size_t(a * r + k)] * x.g[std::size_t(b)][std::size_t(k)];
          u[std::size_t(((a * alpha + b) * c + i) * f + o)] = static_cast<float>(s);
        }
    }
  return u;
}

}  // namespace opevo::codegen
