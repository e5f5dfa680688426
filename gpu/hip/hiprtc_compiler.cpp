#include "hip/hiprtc_compiler.h"

#include <algorithm>
#include <chrono>
#include <mutex>

#include "common/shared_library.h"
#include "hip/amdgpu_metadata.h"

namespace opevo {

// Declared here rather than taken from hip/hiprtc.h so that the build needs no HIP headers.
struct HiprtcCompiler::Api {
  using Program = struct _hiprtcProgram*;
  std::unique_ptr<SharedLibrary> lib;
  const char* (*getErrorString)(int) = nullptr;
  int (*version)(int*, int*) = nullptr;
  int (*runtimeVersion)(int*) = nullptr;  // hipRuntimeGetVersion, in libamdhip64 only
  int (*createProgram)(Program*, const char*, const char*, int, const char**,
                       const char**) = nullptr;
  int (*destroyProgram)(Program*) = nullptr;
  int (*compileProgram)(Program, int, const char**) = nullptr;
  int (*getCodeSize)(Program, std::size_t*) = nullptr;
  int (*getCode)(Program, char*) = nullptr;
  int (*getProgramLogSize)(Program, std::size_t*) = nullptr;
  int (*getProgramLog)(Program, char*) = nullptr;

  std::string error(int code) const {
    const char* s = getErrorString ? getErrorString(code) : nullptr;
    return s ? s : "hiprtc error " + std::to_string(code);
  }
};

std::vector<std::string> HiprtcCompiler::defaultCandidates() {
  const std::vector<std::string> names = {"libhiprtc.so.6",   "libhiprtc.so.5",   "libhiprtc.so",
                                          "libamdhip64.so.6", "libamdhip64.so.5", "libamdhip64.so"};
  std::vector<std::string> out = names;
  for (const std::string& n : names) out.push_back("/opt/rocm/lib/" + n);
  return out;
}

const HiprtcCompiler& HiprtcCompiler::shared() {
  static const HiprtcCompiler compiler(defaultCandidates());
  return compiler;
}

HiprtcCompiler::HiprtcCompiler(const std::vector<std::string>& candidates) {
  std::string tried;
  auto lib = SharedLibrary::openFirst(candidates, "hiprtcCompileProgram", &tried);
  if (!lib) {
    m_reason =
        "hiprtc not found (tried " + tried + "); install ROCm's hiprtc or Debian's libamdhip64-dev";
    return;
  }
  auto api = std::make_unique<Api>();
  auto bind = [&](auto& fn, const char* name) {
    fn = lib->symbol<std::remove_reference_t<decltype(fn)>>(name);
  };
  bind(api->getErrorString, "hiprtcGetErrorString");
  bind(api->version, "hiprtcVersion");
  bind(api->runtimeVersion, "hipRuntimeGetVersion");
  bind(api->createProgram, "hiprtcCreateProgram");
  bind(api->destroyProgram, "hiprtcDestroyProgram");
  bind(api->compileProgram, "hiprtcCompileProgram");
  bind(api->getCodeSize, "hiprtcGetCodeSize");
  bind(api->getCode, "hiprtcGetCode");
  bind(api->getProgramLogSize, "hiprtcGetProgramLogSize");
  bind(api->getProgramLog, "hiprtcGetProgramLog");
  if (!api->createProgram || !api->destroyProgram || !api->getCodeSize || !api->getCode ||
      !api->getProgramLogSize || !api->getProgramLog) {
    m_reason = lib->name() + " lacks hiprtc entry points it should have";
    return;
  }
  api->lib = std::move(lib);
  m_api = std::move(api);
}

HiprtcCompiler::~HiprtcCompiler() = default;

std::string HiprtcCompiler::library() const {
  return m_api ? m_api->lib->name() : "";
}

std::string HiprtcCompiler::version() const {
  if (!m_api) return "";
  // hiprtcVersion gives hiprtc's own API version (9.0 in ROCm 5.2), not the release: prefer the
  // HIP runtime's, encoded major * 10^7 + minor * 10^5 + patch, where the library has it.
  int v = 0;
  if (m_api->runtimeVersion && m_api->runtimeVersion(&v) == 0 && v > 0)
    return std::to_string(v / 10000000) + "." + std::to_string(v / 100000 % 100) + "." +
           std::to_string(v % 100000);
  int major = 0, minor = 0;
  if (!m_api->version || m_api->version(&major, &minor) != 0) return "";
  return "API " + std::to_string(major) + "." + std::to_string(minor);
}

std::vector<std::string> HiprtcCompiler::knownArchs() const {
  // Each compiled with Debian's libamdhip64 5.2.3, which aborts on gfx940 and gfx1100. Newer
  // ROCm releases know more targets; add them here once they have been tried.
  return {"gfx803", "gfx900", "gfx906", "gfx908", "gfx90a", "gfx1010", "gfx1030"};
}

std::string HiprtcCompiler::checkArch(std::string_view arch) const {
  const std::vector<std::string> archs = knownArchs();
  if (std::find(archs.begin(), archs.end(), arch) != archs.end()) return "";
  std::string listed;
  for (const std::string& a : archs) listed += (listed.empty() ? "" : ", ") + a;
  return "AMD GPU architecture '" + std::string(arch) + "' is not one hiprtc " + version() +
         " is known to compile for (known: " + listed + ")";
}

CompileResult HiprtcCompiler::compile(const std::string& source, const std::string& arch,
                                      const std::vector<std::string>& extraOptions) const {
  CompileResult r;
  r.arch = arch;
  if (!m_api) {
    r.log = m_reason;
    return r;
  }
  if (std::string bad = checkArch(arch); !bad.empty()) {
    r.log = bad;
    return r;
  }
  const Api& api = *m_api;
  std::vector<std::string> options = {"--gpu-architecture=" + arch, "-O3"};
  options.insert(options.end(), extraOptions.begin(), extraOptions.end());
  std::vector<const char*> argv;
  for (const std::string& o : options) argv.push_back(o.c_str());

  const auto start = std::chrono::steady_clock::now();
  // One compilation at a time: hiprtc parses its options into LLVM's process-wide option
  // registry, and compilations from several threads at once corrupted the heap ("clang (LLVM
  // option parsing)malloc(): unaligned tcache chunk detected", Debian's hiprtc 5.2; once in eight
  // runs of a test compiling a network's modules side by side).
  static std::mutex serial;
  const std::lock_guard<std::mutex> lock(serial);
  Api::Program program = nullptr;
  if (int rc = api.createProgram(&program, source.c_str(), "opevo_kernel.hip", 0, nullptr, nullptr);
      rc != 0) {
    r.log = "hiprtcCreateProgram: " + api.error(rc);
    return r;
  }
  const int rc = api.compileProgram(program, static_cast<int>(argv.size()), argv.data());
  std::size_t size = 0;
  if (api.getProgramLogSize(program, &size) == 0 && size > 0) {
    r.log.resize(size);
    api.getProgramLog(program, r.log.data());
    while (!r.log.empty() && r.log.back() == '\0') r.log.pop_back();
  }
  if (rc != 0) {
    if (r.log.empty()) r.log = api.error(rc);
  } else if (api.getCodeSize(program, &size) == 0 && size > 0) {
    r.kind = BinaryKind::AmdCodeObject;
    r.binary.resize(size);
    r.ok = api.getCode(program, r.binary.data()) == 0;
    if (r.ok) r.resources = readAmdgpuResources(r.binary);
  }
  api.destroyProgram(&program);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (rc == 0 && !r.ok) r.log += std::string(r.log.empty() ? "" : "\n") + "hiprtc produced no code";
  return r;
}

}  // namespace opevo
