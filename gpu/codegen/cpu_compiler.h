#pragma once

#include <optional>
#include <string>
#include <vector>

#include "codegen/compile_result.h"

namespace opevo {

// The flags every generated CPU kernel is built with, here and in exported programs. On x86 the
// compiler is asked for 512-bit vectors: GCC's tuning for Intel's AVX-512 cores otherwise keeps
// vectorised loops at 256 bits, which halves the FMA throughput of a register-tiled kernel
// (ResNet-18's conv2 in joint layouts: 233 against 353 GFLOPS on a Xeon with AVX-512). Where
// there is no AVX-512 the flag changes nothing. -fno-trapping-math lets GCC turn an epilogue's
// two-sided clamp (relu6) into vector selects: with floating-point traps kept it compiles the
// clamp as a compare and a branch per output, whose cost follows the data's signs. MobileNetV2's
// depthwise features.8.conv.1.0 at batch 4 ran 0.13 ms on outputs of one sign and 0.90 ms on
// random signs (what the tuner's random operands give), 0.16 ms with the flag. No result
// changes: the flag allows no reassociation, only code that may raise a flag nobody reads.
std::vector<std::string> cpuKernelFlags();
// The same, as one line for a build command ("-O3 -march=native ...").
std::string cpuKernelFlagsText();

struct CpuCompilerOptions {
  // Empty: $OPEVO_CXX, else "c++" (found on PATH).
  std::string compiler;
  // cpuKernelFlags() and those of a shared library.
  std::vector<std::string> flags = sharedLibraryFlags();
  static std::vector<std::string> sharedLibraryFlags();
  // A compiler that has used this much CPU time is stopped and the build fails with that reason
  // (0: no limit); so is one still running after kCompileWallFactor times it (engine/
  // trial_failures.h: the machine's load, not the configuration). A configuration can make the
  // compiler crawl (a fully unrolled register tile of hundreds of statements took 76 s at -O3):
  // one such trial must not hold up a whole batch.
  double timeoutSeconds = 0;
};

// Writes source to directory/stem.cpp and builds directory/stem.so with the system compiler
// (CompileResult::path). Compile errors, and a compiler that cannot be run, are ok = false with
// the log. The directory must exist.
CompileResult compileCpuKernel(const std::string& source, const std::string& directory,
                               const std::string& stem = "opevo_kernel",
                               const CpuCompilerOptions& options = {});

// Builds a one-line kernel (in a temporary folder) with the compiler and flags of
// compileCpuKernel: nullopt when that works, else why not, naming the compiler and quoting its
// output. A missing or broken
// compiler is the machine's fault, not a configuration's: measurers check it before their first
// build and stop the run (resumable) instead of recording every configuration as a compile error.
// A compiler found working is not checked again in this process.
std::optional<std::string> cpuCompilerProblem(const CpuCompilerOptions& options = {});

// Call before dlopen-ing kernels built with -fopenmp if they may be dlclose-d: it keeps the
// OpenMP runtime (libgomp) loaded for the rest of the process. Otherwise closing the last kernel
// unloads libgomp while its idle worker threads are still spinning in it, and they crash.
// Returns false when libgomp cannot be found (kernels then load it themselves).
bool keepOpenMpRuntimeLoaded();

// A fresh directory under $TMPDIR (or /tmp), removed with everything in it on destruction.
class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "opevo");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return m_path; }

 private:
  std::string m_path;
};

}  // namespace opevo
