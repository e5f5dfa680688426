#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/shared_library.h"
#include "cuda/cuda_driver.h"
#include "ops/operator.h"

namespace opevo::cuda {

// A forward algorithm's name as cudnn.h's enum says it: 4 -> "FFT".
std::string cudnnForwardAlgorithmName(int algo);

// One line of cudnnFindConvolutionForwardAlgorithm's list, which comes fastest first.
struct CudnnFound {
  int algo = -1;
  float ms = 0;
  bool usable = false;  // ran (status 0) with FMA math, the math forward() runs with
};
// The algorithm the library is timed with, picked from cudnnFind's list, and the words saying
// how: ", the fastest of 6 by cudnnFind". FFT and Winograd do fewer multiply-adds than the
// operator counts, so a speed from them can pass the GPU's peak; where one is the fastest, the
// words also give how much faster it was than the fastest doing every multiply-add (the
// comparison a direct kernel's template can aim at). algo -1 where none is usable.
struct CudnnChoice {
  int algo = -1;
  std::string chosenBy;
};
CudnnChoice chooseFromFind(const std::vector<CudnnFound>& found);

// cuDNN opened with dlopen (libcudnn.so.9, .8), used as the reference result and speed for
// Conv2D, grouped (MobileNet's depthwise layers) or not: NCHW fp32, cross-correlation (what the
// generated kernels compute), FMA math only (no TF32, which would not pass the 1e-3
// verification). Like cuBLAS it runs on the primary context on the default stream, so the same
// CUDA events time it.
class Cudnn {
 public:
  // Null with *reason set when no cuDNN library loads, lacks an entry point, or cudnnCreate
  // fails.
  static std::unique_ptr<Cudnn> open(std::string* reason);
  ~Cudnn();
  Cudnn(const Cudnn&) = delete;
  Cudnn& operator=(const Cudnn&) = delete;

  // Which forward algorithm prepare() takes. Heuristic: the first that cuDNN's heuristic ranks
  // (what a framework runs by default; instant, enough to compute the reference result).
  // Fastest: the fastest of all that cudnnFindConvolutionForwardAlgorithm runs and times (a
  // framework's benchmark mode), the speed tuned kernels are compared with; the heuristic's
  // where cudnnFind fails.
  enum class Choice { Heuristic, Fastest };
  // Describes op to cuDNN, picks a forward algorithm and allocates its workspace. Throws
  // CudaError(-1, "cuDNN ...") with cuDNN's message on failure.
  void prepare(CudaDriver& driver, const OperatorSpec& op, Choice choice);
  // y = conv(x, w) for the prepared operator.
  void forward(DevicePtr x, DevicePtr w, DevicePtr y);

  const std::string& library() const { return m_lib->name(); }
  // "cuDNN convolution forward, algorithm 1 (implicit precomputed GEMM) (libcudnn.so.9)" once
  // prepared, with how it was chosen: "..., algorithm 1 (implicit precomputed GEMM), the fastest
  // of 6 by cudnnFind (libcudnn.so.9)".
  std::string describe() const;

 private:
  struct Api;
  Cudnn();
  void check(int status, const char* what) const;
  void release() noexcept;
  // Sets m_algo to the fastest FMA-math algorithm cudnnFind measures for the described operator
  // (cached under `key`), or leaves it unset with m_chosenBy saying why.
  void chooseFastest(const std::string& key);

  std::unique_ptr<SharedLibrary> m_lib;
  std::unique_ptr<Api> m_api;
  void* m_handle = nullptr;
  void *m_x = nullptr, *m_w = nullptr, *m_y = nullptr, *m_conv = nullptr;
  int m_algo = -1;
  std::string m_chosenBy;  // ", the fastest of N by cudnnFind", or why not; empty: the heuristic
  // cudnnFind's choice per operator, so that timing a reference again (the side-by-side rounds)
  // does not run every algorithm again.
  std::map<std::string, std::pair<int, std::string>> m_fastest;
  std::unique_ptr<DeviceBuffer> m_workspace;
};

}  // namespace opevo::cuda
