#include "cpu/operator_buffers.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>

#include "codegen/kernel_codegen.h"
#include "common/rng.h"
#include "cpu/onednn_conv.h"

namespace opevo {

OperatorBuffers::OperatorBuffers(const OperatorSpec& spec) : op(spec) {
  const codegen::OperandSizes sizes = codegen::operandSizes(op);
  Rng rng(12345);
  a.resize(std::size_t(sizes.a));
  b.resize(std::size_t(sizes.b));
  bias.resize(std::size_t(codegen::biasSize(op)));
  residual.resize(std::size_t(codegen::residualSize(op)));
  for (auto* v : {&a, &b, &bias, &residual})
    for (float& x : *v) x = float(rng.uniform() * 2 - 1);
}

namespace {

double gelu(double x) {
  return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
}

}  // namespace

void OperatorBuffers::applyEpilogue(std::vector<float>& out) const {
  if (op.epilogue.empty()) return;
  const std::size_t channels = std::size_t(op.kind == OpKind::Conv2D ? op.outChannels : op.m);
  const std::size_t plane =
      op.kind == OpKind::Conv2D ? std::size_t(op.outHeight() * op.outWidth()) : 1;
  for (std::size_t i = 0; i < out.size(); ++i) {
    double v = out[i];
    const std::size_t channel = (i / plane) % channels;
    for (const EpilogueStep& s : op.epilogue) {
      switch (s.kind) {
        case EpilogueKind::Bias:
          v += bias[channel];
          break;
        case EpilogueKind::Relu:
          v = std::max(v, 0.0);
          break;
        case EpilogueKind::Gelu:
          v = gelu(v);
          break;
        case EpilogueKind::Scale:
          v *= s.factor;
          break;
        case EpilogueKind::Add:
          v += residual[i];
          break;
      }
    }
    out[i] = float(v);
  }
}

std::size_t OperatorBuffers::outputSize() const {
  if (op.kind == OpKind::Conv2D)
    return std::size_t(op.batch * op.outChannels * op.outHeight() * op.outWidth());
  return std::size_t(op.batch * op.n * op.m);
}

bool OperatorBuffers::usesOneDnn() const {
  return op.kind == OpKind::Conv2D && oneDnnAvailable();
}

const std::shared_ptr<OneDnnConv>& OperatorBuffers::oneDnn() const {
  if (!oneDnn_) oneDnn_ = std::make_shared<OneDnnConv>(op);
  return oneDnn_;
}

void OperatorBuffers::referenceInto(std::vector<float>& out) const {
  if (op.kind == OpKind::Conv2D) {
    if (!usesOneDnn()) {
      loopNestReferenceInto(out);
      return;
    }
    out.assign(outputSize(), 0.0f);
    oneDnn()->compute(a.data(), b.data(), out.data());
    applyEpilogue(out);
    return;
  }
  out.assign(outputSize(), 0.0f);
  const int n = int(op.n), m = int(op.m), k = int(op.k);
  for (std::int64_t batch = 0; batch < op.batch; ++batch) {
    cblas_sgemm(CblasRowMajor, op.transA ? CblasTrans : CblasNoTrans,
                op.transB ? CblasTrans : CblasNoTrans, n, m, k, 1.0f, a.data() + batch * n * k,
                op.transA ? n : k, b.data() + batch * k * m, op.transB ? k : m, 0.0f,
                out.data() + batch * n * m, m);
  }
  applyEpilogue(out);
}

void OperatorBuffers::loopNestReferenceInto(std::vector<float>& out) const {
  if (op.kind != OpKind::Conv2D) {
    // MatMul has no loop nest here: its reference is OpenBLAS in every build.
    referenceInto(out);
    return;
  }
  convolutionLoopNest(out);
  applyEpilogue(out);
}

void OperatorBuffers::convolutionLoopNest(std::vector<float>& out) const {
  out.assign(outputSize(), 0.0f);
  const std::int64_t oh = op.outHeight(), ow = op.outWidth();
  // Groups: output channel f reads the cg input channels of its group.
  const std::int64_t cg = op.inChannels / op.groups, fg = op.outChannels / op.groups;
  for (std::int64_t bi = 0; bi < op.batch; ++bi)
    for (std::int64_t f = 0; f < op.outChannels; ++f)
      for (std::int64_t y = 0; y < oh; ++y)
        for (std::int64_t x = 0; x < ow; ++x) {
          double acc = 0;
          for (std::int64_t c = 0; c < cg; ++c)
            for (std::int64_t ky = 0; ky < op.kernelH; ++ky) {
              const std::int64_t iy = y * op.stride - op.pad + ky;
              if (iy < 0 || iy >= op.height) continue;
              for (std::int64_t kx = 0; kx < op.kernelW; ++kx) {
                const std::int64_t ix = x * op.stride - op.pad + kx;
                if (ix < 0 || ix >= op.width) continue;
                acc +=
                    double(
                        a[((bi * op.inChannels + (f / fg) * cg + c) * op.height + iy) * op.width +
                          ix]) *
                    double(b[((f * cg + c) * op.kernelH + ky) * op.kernelW + kx]);
              }
            }
          out[((bi * op.outChannels + f) * oh + y) * ow + x] = float(acc);
        }
}

std::function<void()> OperatorBuffers::referenceTimer() {
  if (usesOneDnn()) {
    std::shared_ptr<OneDnnConv> conv = oneDnn();
    // Reordered on every call, so a timer always runs on the current operands; the reorders are
    // outside what is timed, as an inference user reorders weights once at load time.
    conv->prepare(a.data(), b.data());
    return [conv] { conv->runPrepared(); };
  }
  auto out = std::make_shared<std::vector<float>>();
  return [this, out] { referenceInto(*out); };
}

std::string OperatorBuffers::referenceLibrary() const {
  if (op.kind != OpKind::Conv2D) return "OpenBLAS sgemm";
  if (!usesOneDnn()) return "plain loop nest";
  return "oneDNN " + oneDnnVersion() + " " + oneDnn()->implementation();
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
