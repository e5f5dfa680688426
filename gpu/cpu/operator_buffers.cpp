#include "cpu/operator_buffers.h"

#include <cblas.h>

#include <cmath>

#include "common/rng.h"

namespace opevo {

OperatorBuffers::OperatorBuffers(const OperatorSpec& spec) : op(spec) {
  std::size_t aSize = 0, bSize = 0;
  if (op.kind == OpKind::Conv2D) {
    aSize = std::size_t(op.batch * op.inChannels * op.height * op.width);
    bSize = std::size_t(op.outChannels * op.inChannels * op.kernelH * op.kernelW);
  } else {
    aSize = std::size_t(op.batch * op.n * op.k);
    bSize = std::size_t(op.batch * op.k * op.m);
  }
  Rng rng(12345);
  a.resize(aSize);
  b.resize(bSize);
  for (float& x : a) x = float(rng.uniform() * 2 - 1);
  for (float& x : b) x = float(rng.uniform() * 2 - 1);
}

std::size_t OperatorBuffers::outputSize() const {
  if (op.kind == OpKind::Conv2D)
    return std::size_t(op.batch * op.outChannels * op.outHeight() * op.outWidth());
  return std::size_t(op.batch * op.n * op.m);
}

void OperatorBuffers::referenceInto(std::vector<float>& out) const {
  out.assign(outputSize(), 0.0f);
  if (op.kind != OpKind::Conv2D) {
    const int n = int(op.n), m = int(op.m), k = int(op.k);
    for (std::int64_t batch = 0; batch < op.batch; ++batch) {
      cblas_sgemm(CblasRowMajor, op.transA ? CblasTrans : CblasNoTrans,
                  op.transB ? CblasTrans : CblasNoTrans, n, m, k, 1.0f, a.data() + batch * n * k,
                  op.transA ? n : k, b.data() + batch * k * m, op.transB ? k : m, 0.0f,
                  out.data() + batch * n * m, m);
    }
    return;
  }
  const std::int64_t oh = op.outHeight(), ow = op.outWidth();
  for (std::int64_t bi = 0; bi < op.batch; ++bi)
    for (std::int64_t f = 0; f < op.outChannels; ++f)
      for (std::int64_t y = 0; y < oh; ++y)
        for (std::int64_t x = 0; x < ow; ++x) {
          double acc = 0;
          for (std::int64_t c = 0; c < op.inChannels; ++c)
            for (std::int64_t ky = 0; ky < op.kernelH; ++ky) {
              const std::int64_t iy = y * op.stride - op.pad + ky;
              if (iy < 0 || iy >= op.height) continue;
              for (std::int64_t kx = 0; kx < op.kernelW; ++kx) {
                const std::int64_t ix = x * op.stride - op.pad + kx;
                if (ix < 0 || ix >= op.width) continue;
                acc += double(a[((bi * op.inChannels + c) * op.height + iy) * op.width + ix]) *
                       double(b[((f * op.inChannels + c) * op.kernelH + ky) * op.kernelW + kx]);
              }
            }
          out[((bi * op.outChannels + f) * oh + y) * ow + x] = float(acc);
        }
}

void OperatorBuffers::computeReference() {
  if (reference.empty()) referenceInto(reference);
}

double maxRelativeError(const std::vector<float>& c, const std::vector<float>& ref) {
  if (c.size() != ref.size()) return INFINITY;
  double worst = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    const double e = std::fabs(double(c[i]) - double(ref[i])) / (1.0 + std::fabs(double(ref[i])));
    if (!(e <= worst)) worst = e;  // NaN counts as the worst
    if (std::isnan(e)) return INFINITY;
  }
  return worst;
}

}  // namespace opevo
