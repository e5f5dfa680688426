#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ops/operator.h"

namespace opevo {

class OneDnnConv;

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
  // Tells this instance from every other of the process, also from a later one at a freed one's
  // address: what copies of the reference elsewhere (the GPU backends' on the device) are keyed by.
  const std::uint64_t serial;
  std::vector<float> a, b, bias, residual;
  // The data pointers of bias and residual, null when empty (the kernels' Bias and Residual).
  const float* biasData() const { return bias.empty() ? nullptr : bias.data(); }
  const float* residualData() const { return residual.empty() ? nullptr : residual.data(); }
  std::vector<float> reference;  // empty until computeReference()
  std::size_t outputSize() const;

  // OpenBLAS sgemm for MatMul / BatchMatMul (sgemv where the output is one row or one column);
  // for Conv2D oneDNN (direct algorithm, plain layouts)
  // where the build has it (onednn_conv.h), else the plain loop nest; then the epilogue.
  void computeReference();
  // Runs the reference computation once more into out.
  void referenceInto(std::vector<float>& out) const;
  // The plain loop nest in double precision, then the epilogue, whatever the build: the Conv2D
  // reference without oneDNN, and the oracle that oneDNN's result is tested against.
  void loopNestReferenceInto(std::vector<float>& out) const;

  // One output element computed exactly (double precision, plain loops, the epilogue applied):
  // what a result is spot-checked against where computing the whole reference on the host would
  // take too long (the GPU backends' reference comes from the device, spotCheck below).
  double exactOutputAt(std::size_t index) const;
  // Compares out with exactOutputAt at `count` output elements (the first, the last, and the
  // rest drawn with a fixed seed; every element when the output is smaller), with the tolerance
  // of maxRelativeError: an error message naming the first element that differs, or nullopt.
  std::optional<std::string> spotCheck(const std::vector<float>& out,
                                       std::size_t count = kSpotChecks) const;
  static constexpr std::size_t kSpotChecks = 4096;

  // What runCpuReference times: prepares the reference library's computation on a and b once,
  // here, and returns one run of it. For Conv2D with oneDNN that run is the convolution
  // primitive alone, on operands already reordered into oneDNN's preferred layouts (as its
  // inference users run it), without the epilogue; otherwise it is referenceInto into a buffer
  // of its own (OpenBLAS sgemm or sgemv, or the loop nest, with the epilogue). The callable uses
  // this object and must not outlive it. Throws std::runtime_error when oneDNN fails.
  std::function<void()> referenceTimer();
  // Evicts from the caches what the last referenceTimer's run reads and writes, as the kernel's
  // run evicts its own (evictedBeforeEachRun): b (oneDNN's reordered weights) where `coldB`, the
  // bias where `coldWeights`, the input, the residual and the output (oneDNN's prepared ones)
  // where `coldActivations`: TimingOptions' for the reference. Null when none. Same lifetime rule.
  std::function<void()> referenceEviction(bool coldWeights, bool coldB, bool coldActivations);
  // Names what referenceTimer runs: "oneDNN 2.6.3 brgconv:avx512_core" (version, then oneDNN's name
  // for the implementation it chose), "plain loop nest", "OpenBLAS sgemm" or "OpenBLAS sgemv".
  std::string referenceLibrary() const;

 private:
  // The epilogue, in double precision, on the operator's raw output.
  void applyEpilogue(std::vector<float>& out) const;
  // The epilogue on the raw value v of output element i.
  double epilogueAt(double v, std::size_t i) const;
  // The raw Conv2D output by the loop nest, no epilogue.
  void convolutionLoopNest(std::vector<float>& out) const;
  // True when Conv2D's reference comes from oneDNN.
  bool usesOneDnn() const;
  // The oneDNN convolution of op, created on first use (creating its primitives compiles code
  // just in time, a few milliseconds, so it is done once per operator). Shared so the callable
  // of referenceTimer keeps it alive.
  const std::shared_ptr<OneDnnConv>& oneDnn() const;
  mutable std::shared_ptr<OneDnnConv> oneDnn_;
  // Where the last referenceTimer's run writes when it is not oneDNN's (referenceEviction evicts
  // it), owned by that timer: the worker keeps these buffers for every trial of an operator, and
  // an output-sized buffer (287 MB for C2) must not stay with them.
  std::weak_ptr<std::vector<float>> timedOut_;
};

// Largest |c - ref| / (1 + |ref|) over the output; a kernel passes when it is below 1e-3.
double maxRelativeError(const std::vector<float>& c, const std::vector<float>& ref);
inline constexpr double kVerifyTolerance = 1e-3;

}  // namespace opevo
