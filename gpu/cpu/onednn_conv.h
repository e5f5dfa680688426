#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ops/operator.h"

namespace opevo {

// oneDNN is optional: the build defines OPEVO_HAVE_ONEDNN only where CMake found it, and the
// project must still build and run without it (the plain loop nest is then the convolution
// reference). These say at run time which case this binary is.
bool oneDnnAvailable();
// The version of the oneDNN library loaded at run time ("2.6.3"), empty without oneDNN.
std::string oneDnnVersion();

// One oneDNN forward-inference convolution (fp32, direct algorithm, no bias: the epilogue is
// ours) for an OperatorSpec of kind Conv2D, on the CPU engine with oneDNN's own threading (all
// cores). Two uses:
//  - compute(): the correctness reference, on the operator's plain layouts (input NCHW, weights
//    F x C/groups x KH x KW, output NCHW).
//  - prepare() then runPrepared(): timing, as inference users run oneDNN: source, weights and
//    destination live in the layouts oneDNN prefers for this shape (blocked ones, typically),
//    the input and weights are reordered into them once in prepare(), and runPrepared() is the
//    convolution primitive alone.
// The class is declared in every build so code holding one need not change with the build; its
// constructor throws std::runtime_error when oneDNN is absent. Every oneDNN error becomes a
// std::runtime_error carrying oneDNN's message and the operator's name. Not thread-safe: one
// stream, one set of prepared buffers.
class OneDnnConv {
 public:
  explicit OneDnnConv(const OperatorSpec& op);
  ~OneDnnConv();
  OneDnnConv(const OneDnnConv&) = delete;
  OneDnnConv& operator=(const OneDnnConv&) = delete;

  // out = convolution of input with weights, all in the plain layouts above.
  void compute(const float* input, const float* weights, float* out) const;

  // Reorders input and weights (plain layouts) into oneDNN's preferred layouts; copies them, so
  // the arguments need not outlive the call. Call again to change the operands.
  void prepare(const float* input, const float* weights);
  bool prepared() const;
  // One run of the convolution primitive on the prepared operands; returns when it is done.
  // Throws std::logic_error before prepare().
  void runPrepared();
  // The output of the last runPrepared(), reordered back to plain NCHW (for checking the timed
  // path; not part of what is timed).
  void readPreparedOutput(float* nchw) const;
  // Where prepare() put the weights, and their size in bytes ({nullptr, 0} before it).
  std::pair<const void*, std::size_t> preparedWeights() const;
  // The same for the prepared input and the output (none before it).
  std::vector<std::pair<const void*, std::size_t>> preparedActivations() const;

  // oneDNN's name for the implementation of the timed primitive, e.g. "brgconv:avx512_core".
  std::string implementation() const;
  // The same for the plain-layout primitive of compute().
  std::string plainImplementation() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace opevo
