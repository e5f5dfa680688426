#include "codegen/cpu_compiler.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>

#include "common/child_process.h"
#include "engine/trial_failures.h"

namespace opevo {
namespace {

// Runs args[0] (looked up on PATH) with stdout and stderr into logPath; returns the exit status,
// or -1 with *error set when it could not be started (and *error set when it ran too long).
int runTo(const std::vector<std::string>& args, const std::string& logPath, double timeoutSeconds,
          std::string* error) {
  ChildStreams streams;
  streams.stdoutFile = logPath;
  streams.stderrToStdout = true;
  try {
    const pid_t pid = startChild(args, streams);
    if (timeoutSeconds <= 0) return waitChild(pid);
    const CpuLimitedWait w =
        waitChildCpuLimited(pid, timeoutSeconds, timeoutSeconds * kCompileWallFactor);
    if (w.cpuLimit) *error = compilerCrawlMessage(args[0], timeoutSeconds);
    if (w.wallLimit)
      *error = compilerStarvedMessage(args[0], w.wallSeconds, w.cpuSeconds, timeoutSeconds);
    return w.status;
  } catch (const std::exception& e) {
    *error = e.what();
    return -1;
  }
}

// The compiler a build runs: the options', else $OPEVO_CXX, else "c++" (found on PATH).
std::string compilerOf(const CpuCompilerOptions& options) {
  if (!options.compiler.empty()) return options.compiler;
  const char* env = std::getenv("OPEVO_CXX");
  return env && *env ? env : "c++";
}

}  // namespace

std::vector<std::string> cpuKernelFlags() {
#if defined(__x86_64__) || defined(__i386__)
  return {"-O3", "-march=native", "-mprefer-vector-width=512", "-fopenmp"};
#else
  return {"-O3", "-march=native", "-fopenmp"};
#endif
}

std::string cpuKernelFlagsText() {
  std::string text;
  for (const std::string& f : cpuKernelFlags()) text += (text.empty() ? "" : " ") + f;
  return text;
}

std::vector<std::string> CpuCompilerOptions::sharedLibraryFlags() {
  std::vector<std::string> flags = cpuKernelFlags();
  flags.insert(flags.end(), {"-shared", "-fPIC"});
  return flags;
}

CompileResult compileCpuKernel(const std::string& source, const std::string& directory,
                               const std::string& stem, const CpuCompilerOptions& options) {
  CompileResult r;
  r.arch = "native";
  const std::string src = directory + "/" + stem + ".cpp";
  const std::string out = directory + "/" + stem + ".so";
  const std::string logPath = directory + "/" + stem + ".log";
  {
    std::ofstream f(src);
    f << source;
    f.flush();
    if (!f) {
      r.log = "cannot write " + src + ": " + std::strerror(errno);
      r.sourceUnwritten = true;
      return r;
    }
  }
  const std::string compiler = compilerOf(options);
  std::vector<std::string> args = {compiler};
  args.insert(args.end(), options.flags.begin(), options.flags.end());
  args.insert(args.end(), {src, "-o", out});

  const auto start = std::chrono::steady_clock::now();
  std::string error;
  const int status = runTo(args, logPath, options.timeoutSeconds, &error);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::ifstream logFile(logPath);
  std::stringstream ss;
  ss << logFile.rdbuf();
  r.log = error.empty() ? ss.str() : error;
  if (status == 0 && error.empty()) {
    r.ok = true;
    r.kind = BinaryKind::SharedObject;
    r.path = out;
  } else if (error.empty()) {
    r.log +=
        (r.log.empty() ? "" : "\n") + compiler + " exited with status " + std::to_string(status);
  }
  return r;
}

std::optional<std::string> cpuCompilerProblem(const CpuCompilerOptions& options) {
  std::string key = compilerOf(options);
  for (const std::string& f : options.flags) key += " " + f;
  static std::mutex mutex;
  static std::set<std::string> working;
  {
    const std::lock_guard<std::mutex> lock(mutex);
    if (working.count(key)) return std::nullopt;
  }
  // A folder of its own: measurers of other processes may check at the same moment.
  const TempDir dir("opevo-toolchain");
  const CompileResult r =
      compileCpuKernel("extern \"C\" int opevo_toolchain_probe() { return 1; }\n", dir.path(),
                       "opevo_toolchain_probe", options);
  if (r.ok) {
    const std::lock_guard<std::mutex> lock(mutex);
    working.insert(key);
    return std::nullopt;
  }
  std::string log = r.log.substr(0, 600);
  while (!log.empty() && (log.back() == '\n' || log.back() == ' ')) log.pop_back();
  return "the C++ compiler cannot build kernels (" + key + "): " + log +
         ". Install g++ (apt-get install g++) or point OPEVO_CXX at a working compiler";
}

bool keepOpenMpRuntimeLoaded() {
  static const bool loaded = dlopen("libgomp.so.1", RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
  return loaded;
}

TempDir::TempDir(const std::string& prefix) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/" + prefix + "-XXXXXX";
  if (!mkdtemp(pattern.data())) throw std::runtime_error("cannot create a directory " + pattern);
  m_path = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(m_path, ignored);
}

}  // namespace opevo
