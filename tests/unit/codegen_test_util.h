#pragma once

// Helpers shared by the code generation tests: small operators, random data, a plain host
// reference, and compiling CPU sources into a loaded shared object.

#include <dlfcn.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "codegen/cpu_compiler.h"
#include "codegen/kernel_codegen.h"
#include "common/rng.h"
#include "ops/operator.h"
#include "ops/presets.h"

namespace opevo::test {

inline OperatorSpec smallMatMul(std::int64_t n, std::int64_t m, std::int64_t k) {
  OperatorSpec op;
  op.name = "small-mm";
  op.kind = OpKind::MatMul;
  op.n = n;
  op.m = m;
  op.k = k;
  return op;
}

inline OperatorSpec smallBatchMatMul(std::int64_t batch, std::int64_t n, std::int64_t m,
                                     std::int64_t k, bool transA, bool transB) {
  OperatorSpec op = smallMatMul(n, m, k);
  op.name = "small-bmm";
  op.kind = OpKind::BatchMatMul;
  op.batch = batch;
  op.transA = transA;
  op.transB = transB;
  return op;
}

inline OperatorSpec smallConv(std::int64_t batch, std::int64_t cin, std::int64_t cout,
                              std::int64_t hw, std::int64_t kernel, std::int64_t stride,
                              std::int64_t pad) {
  OperatorSpec op;
  op.name = "small-conv";
  op.kind = OpKind::Conv2D;
  op.batch = batch;
  op.inChannels = cin;
  op.outChannels = cout;
  op.height = op.width = hw;
  op.kernelH = op.kernelW = kernel;
  op.stride = stride;
  op.pad = pad;
  return op;
}

// One group per channel (MobileNet's 3x3 layers).
inline OperatorSpec smallDepthwiseConv(std::int64_t batch, std::int64_t channels, std::int64_t hw,
                                       std::int64_t kernel, std::int64_t stride, std::int64_t pad) {
  OperatorSpec op = smallConv(batch, channels, channels, hw, kernel, stride, pad);
  op.groups = channels;
  return op;
}

inline std::vector<float> randomData(std::int64_t count, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<float> v(static_cast<std::size_t>(count));
  for (float& x : v) x = static_cast<float>(2 * rng.uniform() - 1);
  return v;
}

// The epilogue on one value (bias by output channel or column, residual by position).
inline double applyEpilogue(const OperatorSpec& op, double v, std::int64_t channel, std::size_t at,
                            const std::vector<float>& bias, const std::vector<float>& residual) {
  for (const EpilogueStep& e : op.epilogue) {
    if (e.kind == EpilogueKind::Bias) v += bias[channel];
    if (e.kind == EpilogueKind::Relu) v = v < 0 ? 0 : v;
    if (e.kind == EpilogueKind::Relu6) v = v < 0 ? 0 : v > 6 ? 6 : v;
    if (e.kind == EpilogueKind::Gelu) v = v * 0.5 * std::erfc(-v / std::sqrt(2.0));
    if (e.kind == EpilogueKind::Scale) v *= e.factor;
    if (e.kind == EpilogueKind::Add) v += residual[at];
  }
  return v;
}

// The definition of each operator, written independently of the generator, in double. bias and
// residual: the epilogue's operands, when it has bias or add steps.
inline std::vector<float> hostReference(const OperatorSpec& op, const std::vector<float>& a,
                                        const std::vector<float>& b,
                                        const std::vector<float>& bias = {},
                                        const std::vector<float>& residual = {}) {
  std::vector<float> c(static_cast<std::size_t>(codegen::operandSizes(op).c));
  if (op.kind == OpKind::Conv2D) {
    const std::int64_t oh = op.outHeight(), ow = op.outWidth();
    const std::int64_t perGroupIn = op.inChannels / op.groups;
    const std::int64_t perGroupOut = op.outChannels / op.groups;
    std::size_t i = 0;
    for (std::int64_t n = 0; n < op.batch; ++n)
      for (std::int64_t f = 0; f < op.outChannels; ++f)
        for (std::int64_t y = 0; y < oh; ++y)
          for (std::int64_t x = 0; x < ow; ++x, ++i) {
            double s = 0;
            const std::int64_t first = (f / perGroupOut) * perGroupIn;
            for (std::int64_t ch = 0; ch < perGroupIn; ++ch)
              for (std::int64_t ky = 0; ky < op.kernelH; ++ky)
                for (std::int64_t kx = 0; kx < op.kernelW; ++kx) {
                  const std::int64_t iy = y * op.stride - op.pad + ky;
                  const std::int64_t ix = x * op.stride - op.pad + kx;
                  if (iy < 0 || iy >= op.height || ix < 0 || ix >= op.width) continue;
                  s += double(
                           a[((n * op.inChannels + first + ch) * op.height + iy) * op.width + ix]) *
                       b[((f * perGroupIn + ch) * op.kernelH + ky) * op.kernelW + kx];
                }
            c[i] = static_cast<float>(applyEpilogue(op, s, f, i, bias, residual));
          }
    return c;
  }
  const std::int64_t n = op.n, m = op.m, k = op.k;
  for (std::int64_t bt = 0; bt < op.batch; ++bt)
    for (std::int64_t r = 0; r < n; ++r)
      for (std::int64_t col = 0; col < m; ++col) {
        double s = 0;
        for (std::int64_t kk = 0; kk < k; ++kk) {
          const float av = op.transA ? a[bt * n * k + kk * n + r] : a[bt * n * k + r * k + kk];
          const float bv = op.transB ? b[bt * k * m + col * k + kk] : b[bt * k * m + kk * m + col];
          s += double(av) * bv;
        }
        const auto at = static_cast<std::size_t>((bt * n + r) * m + col);
        c[at] = static_cast<float>(applyEpilogue(op, s, col, at, bias, residual));
      }
  return c;
}

// Index of the first element off by more than 1e-3 relative (absolute below 1), or -1.
inline std::int64_t firstMismatch(const std::vector<float>& got, const std::vector<float>& want) {
  if (got.size() != want.size()) return 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(std::fabs(got[i] - want[i]) <= 1e-3 * std::max(1.0f, std::fabs(want[i]))))
      return static_cast<std::int64_t>(i);
  return -1;
}

using KernelFn = void (*)(const float*, const float*, float*, const float*, const float*);

// Random inputs of an operator, with its epilogue's bias and residual when it reads them.
struct TestOperands {
  std::vector<float> a, b, bias, residual;
  std::vector<float> reference;  // hostReference of the above
  const float* biasData() const { return bias.empty() ? nullptr : bias.data(); }
  const float* residualData() const { return residual.empty() ? nullptr : residual.data(); }
};

inline TestOperands randomOperands(const OperatorSpec& op, std::uint64_t seed) {
  const codegen::OperandSizes sizes = codegen::operandSizes(op);
  TestOperands x{randomData(sizes.a, seed),
                 randomData(sizes.b, seed + 1),
                 randomData(codegen::biasSize(op), seed + 2),
                 randomData(codegen::residualSize(op), seed + 3),
                 {}};
  x.reference = hostReference(op, x.a, x.b, x.bias, x.residual);
  return x;
}

// A shared object built from C++ source and loaded; closed (and its directory removed) at the end.
class LoadedObject {
 public:
  LoadedObject(const std::string& source, const std::vector<std::string>& flags)
      : m_dir("opevo-test") {
    keepOpenMpRuntimeLoaded();
    CpuCompilerOptions options;
    options.flags = flags;
    m_result = compileCpuKernel(source, m_dir.path(), "kernels", options);
    if (m_result.ok) m_handle = dlopen(m_result.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  }
  ~LoadedObject() {
    if (m_handle) dlclose(m_handle);
  }
  bool ok() const { return m_handle != nullptr; }
  const CompileResult& result() const { return m_result; }
  template <class F>
  F symbol(const std::string& name) const {
    return reinterpret_cast<F>(dlsym(m_handle, name.c_str()));
  }

 private:
  TempDir m_dir;
  CompileResult m_result;
  void* m_handle = nullptr;
};

// count random configurations satisfying the space's constraints and `accept`, seeded.
template <class Accept>
std::vector<Config> randomConfigs(const SearchSpace& space, int count, std::uint64_t seed,
                                  Accept accept) {
  Rng rng(seed);
  std::vector<Config> out;
  for (int tries = 0; static_cast<int>(out.size()) < count && tries < 10000; ++tries)
    if (auto c = space.randomValid(rng); c && accept(*c)) out.push_back(*c);
  return out;
}

inline std::vector<Config> randomConfigs(const SearchSpace& space, int count, std::uint64_t seed) {
  return randomConfigs(space, count, seed, [](const Config&) { return true; });
}

}  // namespace opevo::test
