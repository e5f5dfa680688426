#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/compile_result.h"

namespace opevo {

// hiprtc opened with dlopen at run time: a separate libhiprtc (ROCm 5.3 and later) or the one
// inside libamdhip64 (Debian's 5.2). Compilation needs no AMD GPU. Thread-safe: compilations
// from several threads run one at a time (hiprtc itself is not).
class HiprtcCompiler {
 public:
  static std::vector<std::string> defaultCandidates();
  // The process-wide compiler over defaultCandidates(), opened on first use.
  static const HiprtcCompiler& shared();

  explicit HiprtcCompiler(const std::vector<std::string>& candidates);
  ~HiprtcCompiler();
  HiprtcCompiler(const HiprtcCompiler&) = delete;
  HiprtcCompiler& operator=(const HiprtcCompiler&) = delete;

  bool available() const { return m_api != nullptr; }
  const std::string& unavailableReason() const { return m_reason; }
  std::string library() const;
  // The ROCm release ("5.2.21153") when the library can tell, else "API 9.0" (hiprtc's own).
  std::string version() const;
  // The architectures accepted: hiprtc aborts the whole process on one it does not know (gfx1100
  // with ROCm 5.2), so only these, each checked to compile, are passed on.
  std::vector<std::string> knownArchs() const;
  // Empty when arch is one of knownArchs(), otherwise one line listing them.
  std::string checkArch(std::string_view arch) const;

  // Compiles one source to a code object for arch (refused without calling hiprtc unless
  // checkArch(arch) is empty) and reads every kernel's resources from the code object.
  CompileResult compile(const std::string& source, const std::string& arch,
                        const std::vector<std::string>& extraOptions = {}) const;

 private:
  struct Api;
  std::unique_ptr<Api> m_api;
  std::string m_reason;
};

}  // namespace opevo
