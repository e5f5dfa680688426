#include "codegen/cpu_compiler.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
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
#include <vector>

#include "common/child_process.h"
#include "common/error.h"
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

// ENOSPC, EDQUOT or EFBIG (a file size limit, ulimit -f) when `folder`'s disk has no room left
// for a build's files, else 0. Written, not estimated from statvfs, so that a quota counts as
// well: a megabyte, about what a large kernel's build writes, so a disk with less free reads as
// full (it is, for builds). Synced, as a network file system may say so only then. The file has
// no name (O_TMPFILE), or loses it at once, so a kill leaves nothing behind.
int noRoomIn(const std::string& folder) {
  const auto noRoom = [](int error) {
    return error == ENOSPC || error == EDQUOT || error == EFBIG ? error : 0;
  };
  int fd = open(folder.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0 && noRoom(errno)) return errno;
  if (fd < 0) {  // a file system without O_TMPFILE
    static std::atomic<unsigned> count{0};
    const std::string probe =
        folder + "/.opevo-room-" + std::to_string(getpid()) + "-" + std::to_string(count++);
    fd = open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return noRoom(errno);
    unlink(probe.c_str());
  }
  const std::vector<char> block(1 << 20, 0);
  const ssize_t n = write(fd, block.data(), block.size());
  int error = n < 0 ? errno : n < static_cast<ssize_t>(block.size()) ? ENOSPC : 0;
  if (!error && fsync(fd) != 0) error = errno;
  if (close(fd) != 0 && !error) error = errno;
  return noRoom(error);
}

std::string noRoomText(const std::string& folder, int error) {
  return "no room to build kernels in " + folder + " (" + std::strerror(error) +
         "): free space there, or set XDG_CACHE_HOME (the kernel cache) or TMPDIR (the "
         "compiler's temporary files) to a folder on a disk with room";
}

}  // namespace

std::vector<std::string> cpuKernelFlags() {
#if defined(__x86_64__) || defined(__i386__)
  return {"-O3", "-march=native", "-mprefer-vector-width=512", "-fno-trapping-math", "-fopenmp"};
#else
  return {"-O3", "-march=native", "-fno-trapping-math", "-fopenmp"};
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
      const int error = errno;
      r.log = "cannot write " + src + ": " + std::strerror(error);
      // Any other reason (a folder removed, no permission) is the machine's as well.
      r.noRoom = true;
      if (error == ENOSPC || error == EDQUOT || error == EFBIG)
        r.log += "; " + noRoomText(directory, error);  // as the write failed, then where to look
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
    // A build that failed for want of room says only "c++ exited with status 1" (its log could
    // not be written either) or "ld returned 1 exit status": not a compile error of its kernel.
    const char* tmp = std::getenv("TMPDIR");
    for (const std::string& folder : {directory, std::string(tmp && *tmp ? tmp : "/tmp")})
      if (const int full = noRoomIn(folder)) {
        r.noRoom = true;
        r.log = noRoomText(folder, full);
        break;
      }
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
  if (r.noRoom) return r.log;  // not the compiler's fault: "install g++" would mislead
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
  if (!mkdtemp(pattern.data()))
    throw SystemError("cannot create a directory " + pattern + ": " + std::strerror(errno));
  m_path = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(m_path, ignored);
}

}  // namespace opevo
