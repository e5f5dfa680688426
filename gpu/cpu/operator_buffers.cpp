#include "cpu/operator_buffers.h"

#include <cblas.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>

#include "codegen/kernel_codegen.h"
#include "common/rng.h"
#include "cpu/cache_eviction.h"
#include "cpu/onednn_conv.h"

namespace opevo {

OperatorBuffers::OperatorBuffers(const OperatorSpec& spec)
    : op(spec), serial([] {
        static std::atomic<std::uint64_t> next{1};
        return next++;
      }()) {
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

// A (batch) matmul with one row or one column of output: a matrix-vector product per batch.
bool isMatVec(const OperatorSpec& op) {
  return op.kind != OpKind::Conv2D && (op.n == 1 || op.m == 1);
}

double gelu(double x) {
  return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
}

}  // namespace

double OperatorBuffers::epilogueAt(double v, std::size_t i) const {
  const std::size_t channels = std::size_t(op.kind == OpKind::Conv2D ? op.outChannels : op.m);
  const std::size_t plane =
      op.kind == OpKind::Conv2D ? std::size_t(op.outHeight() * op.outWidth()) : 1;
  const std::size_t channel = (i / plane) % channels;
  for (const EpilogueStep& s : op.epilogue) {
    switch (s.kind) {
      case EpilogueKind::Bias:
        v += bias[channel];
        break;
      case EpilogueKind::Relu:
        v = std::max(v, 0.0);
        break;
      case EpilogueKind::Relu6:
        v = std::min(std::max(v, 0.0), 6.0);
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
  return v;
}

void OperatorBuffers::applyEpilogue(std::vector<float>& out) const {
  if (op.epilogue.empty()) return;
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = float(epilogueAt(out[i], i));
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
  if (isMatVec(op)) {
    // One row (or column) of output is a matrix-vector product: OpenBLAS's sgemv, several times
    // faster there than its sgemm (a 1x4096 by 4096x1000 dense layer: 96 against 16 GFLOP/s),
    // is what a tuned kernel is held against.
    for (std::int64_t batch = 0; batch < op.batch; ++batch) {
      const float* a0 = a.data() + batch * n * k;
      const float* b0 = b.data() + batch * k * m;
      float* c0 = out.data() + batch * n * m;
      if (n == 1)  // c[m] = B^T a with B k x m, or B a with B stored m x k
        cblas_sgemv(CblasRowMajor, op.transB ? CblasNoTrans : CblasTrans, op.transB ? m : k,
                    op.transB ? k : m, 1.0f, b0, op.transB ? k : m, a0, 1, 0.0f, c0, 1);
      else  // c[n] = A b with A n x k, or A^T b with A stored k x n
        cblas_sgemv(CblasRowMajor, op.transA ? CblasTrans : CblasNoTrans, op.transA ? k : n,
                    op.transA ? n : k, 1.0f, a0, op.transA ? n : k, b0, 1, 0.0f, c0, 1);
    }
    applyEpilogue(out);
    return;
  }
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

namespace {

// Output element (bi, f, y, x) of a convolution: the loop nest's innermost sum, in double.
double convolutionAt(const OperatorSpec& op, const std::vector<float>& a,
                     const std::vector<float>& b, std::int64_t bi, std::int64_t f, std::int64_t y,
                     std::int64_t x) {
  // Groups: output channel f reads the cg input channels of its group.
  const std::int64_t cg = op.inChannels / op.groups, fg = op.outChannels / op.groups;
  double acc = 0;
  for (std::int64_t c = 0; c < cg; ++c)
    for (std::int64_t ky = 0; ky < op.kernelH; ++ky) {
      const std::int64_t iy = y * op.stride - op.pad + ky;
      if (iy < 0 || iy >= op.height) continue;
      for (std::int64_t kx = 0; kx < op.kernelW; ++kx) {
        const std::int64_t ix = x * op.stride - op.pad + kx;
        if (ix < 0 || ix >= op.width) continue;
        acc +=
            double(a[((bi * op.inChannels + (f / fg) * cg + c) * op.height + iy) * op.width + ix]) *
            double(b[((f * cg + c) * op.kernelH + ky) * op.kernelW + kx]);
      }
    }
  return acc;
}

}  // namespace

void OperatorBuffers::convolutionLoopNest(std::vector<float>& out) const {
  out.assign(outputSize(), 0.0f);
  const std::int64_t oh = op.outHeight(), ow = op.outWidth();
  for (std::int64_t bi = 0; bi < op.batch; ++bi)
    for (std::int64_t f = 0; f < op.outChannels; ++f)
      for (std::int64_t y = 0; y < oh; ++y)
        for (std::int64_t x = 0; x < ow; ++x)
          out[((bi * op.outChannels + f) * oh + y) * ow + x] =
              float(convolutionAt(op, a, b, bi, f, y, x));
}

double OperatorBuffers::exactOutputAt(std::size_t index) const {
  const auto i = std::int64_t(index);
  double v = 0;
  if (op.kind == OpKind::Conv2D) {
    const std::int64_t oh = op.outHeight(), ow = op.outWidth();
    v = convolutionAt(op, a, b, i / (ow * oh * op.outChannels), (i / (ow * oh)) % op.outChannels,
                      (i / ow) % oh, i % ow);
  } else {
    const std::int64_t n = op.n, m = op.m, k = op.k;
    const std::int64_t batch = i / (n * m), row = (i / m) % n, col = i % m;
    const float* A = a.data() + batch * n * k;
    const float* B = b.data() + batch * k * m;
    for (std::int64_t j = 0; j < k; ++j)
      v += double(op.transA ? A[j * n + row] : A[row * k + j]) *
           double(op.transB ? B[col * k + j] : B[j * m + col]);
  }
  return epilogueAt(v, index);
}

std::optional<std::string> OperatorBuffers::spotCheck(const std::vector<float>& out,
                                                      std::size_t count) const {
  const std::size_t size = outputSize();
  if (out.size() != size)
    return "the output has " + std::to_string(out.size()) + " elements, not " +
           std::to_string(size);
  if (size == 0) return std::nullopt;
  const bool every = size <= count;
  Rng rng(67890);
  for (std::size_t s = 0; s < (every ? size : count); ++s) {
    const std::size_t i = every ? s : s == 0 ? 0 : s == 1 ? size - 1 : rng.below(size);
    const double want = exactOutputAt(i);
    const double e = std::fabs(double(out[i]) - want) / (1.0 + std::fabs(want));
    if (!(e <= kVerifyTolerance))
      return "output element " + std::to_string(i) + " is " + std::to_string(out[i]) +
             ", the exact result is " + std::to_string(want) + " (relative error " +
             std::to_string(e) + ")";
  }
  return std::nullopt;
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
  timedOut_ = out;
  return [this, out] { referenceInto(*out); };
}

std::function<void()> OperatorBuffers::referenceEviction(bool coldWeights, bool coldB,
                                                         bool coldActivations) {
  if (usesOneDnn()) {
    // oneDNN's prepared copies, asked on every call as the last referenceTimer made them: its
    // reordered weights as b (its convolution has no bias, cpu/onednn_conv.h), its input and
    // output as the activations.
    if (!coldB && !coldActivations) return nullptr;
    std::shared_ptr<OneDnnConv> conv = oneDnn();
    return [conv, coldWeights, coldB, coldActivations] {
      RunBuffers run;
      const auto [weights, weightBytes] = conv->preparedWeights();
      run.b = {weights, weightBytes};
      for (const CachedBuffer& c : evictedBeforeEachRun(run, coldWeights, coldB, false))
        evictFromCaches(c.data, c.bytes);
      if (coldActivations)
        for (const auto& [data, bytes] : conv->preparedActivations()) evictFromCaches(data, bytes);
    };
  }
  // Nothing to evict: no callback, as the kernel's timing passes none.
  if (!coldB && !coldActivations && (!coldWeights || bias.empty())) return nullptr;
  return [this, coldWeights, coldB, coldActivations] {
    const std::shared_ptr<std::vector<float>> out = timedOut_.lock();
    for (const CachedBuffer& c : evictedBeforeEachRun(
             {{a.data(), a.size() * sizeof(float)},
              {b.data(), b.size() * sizeof(float)},
              {bias.data(), bias.size() * sizeof(float)},
              {residual.data(), residual.size() * sizeof(float)},
              {out ? out->data() : nullptr, out ? out->size() * sizeof(float) : 0}},
             coldWeights, coldB, coldActivations))
      evictFromCaches(c.data, c.bytes);
  };
}

std::string OperatorBuffers::referenceLibrary() const {
  if (op.kind != OpKind::Conv2D) return isMatVec(op) ? "OpenBLAS sgemv" : "OpenBLAS sgemm";
  if (!usesOneDnn()) return "plain loop nest";
  return "oneDNN " + oneDnnVersion() + " " + oneDnn()->implementation();
}

void OperatorBuffers::computeReference() {
  if (!reference.empty()) return;
  // After a threaded call OpenBLAS's threads spin for about a tenth of a second, and a kernel
  // timed in that window shares the cores with them: a fresh worker's first MM1 timing (right
  // after this check's sgemm) came out 2-3x slow in one worker of three. The check needs the
  // result, not speed, so OpenBLAS computes it on the calling thread alone.
  struct OneThread {
    int before = openblas_get_num_threads();
    OneThread() { openblas_set_num_threads(1); }
    ~OneThread() { openblas_set_num_threads(before); }
  } oneThread;
  referenceInto(reference);
}

namespace {

double maxRelativeErrorOf(const float* c, const float* ref, std::size_t n) {
  double worst = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double e = std::fabs(double(c[i]) - double(ref[i])) / (1.0 + std::fabs(double(ref[i])));
    if (!(e <= worst)) worst = e;  // NaN counts as the worst
    if (std::isnan(e)) return INFINITY;
  }
  return worst;
}

}  // namespace

double maxRelativeError(const std::vector<float>& c, const std::vector<float>& ref) {
  if (c.size() != ref.size()) return INFINITY;
  // Every trial's whole output is compared: C2's 72 M elements took one core 0.76 s on the 2-core
  // development machine (loaded), where the H200's C2 trials were 0.48 s apart at the median, so
  // large outputs are split over the cores.
  constexpr std::size_t kPerThread = std::size_t{1} << 22;
  const std::size_t threads = std::min<std::size_t>(
      std::max(1u, std::thread::hardware_concurrency()), c.size() / kPerThread + 1);
  if (threads <= 1) return maxRelativeErrorOf(c.data(), ref.data(), c.size());
  std::vector<double> worst(threads, 0);
  std::vector<std::thread> pool;
  const std::size_t chunk = (c.size() + threads - 1) / threads;
  for (std::size_t t = 0; t < threads; ++t) {
    const std::size_t begin = std::min(c.size(), t * chunk);
    const std::size_t end = std::min(c.size(), begin + chunk);
    pool.emplace_back([&, t, begin, end] {
      worst[t] = maxRelativeErrorOf(c.data() + begin, ref.data() + begin, end - begin);
    });
  }
  for (std::thread& t : pool) t.join();
  return *std::max_element(worst.begin(), worst.end());
}

}  // namespace opevo
