#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/compile_result.h"

namespace opevo {

// NVRTC opened with dlopen at run time, so that a binary built without CUDA still runs (and
// compiles CUDA wherever the library is installed). Compilation needs no GPU. Thread-safe.
class NvrtcCompiler {
 public:
  // libnvrtc.so.13, .12, .11.2, .11, libnvrtc.so, then the same under $CUDA_HOME/lib64,
  // $CUDA_PATH/lib64 and /usr/local/cuda/lib64.
  static std::vector<std::string> defaultCandidates();
  // The process-wide compiler over defaultCandidates(), opened on first use.
  static const NvrtcCompiler& shared();

  // Opens the first candidate that is an NVRTC library.
  explicit NvrtcCompiler(const std::vector<std::string>& candidates);
  ~NvrtcCompiler();
  NvrtcCompiler(const NvrtcCompiler&) = delete;
  NvrtcCompiler& operator=(const NvrtcCompiler&) = delete;

  bool available() const { return m_api != nullptr; }
  // Why available() is false, naming the libraries that were tried.
  const std::string& unavailableReason() const { return m_reason; }
  // The library that was opened, and its version ("13.0").
  std::string library() const;
  std::string version() const;
  // Compute capabilities this NVRTC compiles for (75, 80, 90, ...); empty when it cannot say.
  std::vector<int> supportedArchs() const;
  // Empty when arch is sm_NN, sm_NNa/f or compute_NN for a capability this NVRTC supports;
  // otherwise one line saying why not and what is accepted.
  std::string checkArch(std::string_view arch) const;

  // Compiles one source for arch. sm_* produces a CUBIN (PTX for a capability when this NVRTC
  // is too old to emit CUBIN) and runs ptxas verbosely, filling CompileResult::resources;
  // compute_* produces PTX. extraOptions go to NVRTC unchanged (e.g. "-lineinfo").
  CompileResult compile(const std::string& source, const std::string& arch,
                        const std::vector<std::string>& extraOptions = {}) const;

 private:
  struct Api;
  std::unique_ptr<Api> m_api;
  std::string m_reason;
};

}  // namespace opevo
