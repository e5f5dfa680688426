#include "cuda/nvrtc_compiler.h"

#include <chrono>
#include <cstdlib>
#include <regex>

#include "common/shared_library.h"
#include "cuda/ptxas_info.h"

namespace opevo {

// The entry points used, declared here rather than taken from nvrtc.h so that the build needs no
// CUDA headers. nvrtcResult is an int enum; nvrtcProgram an opaque pointer.
struct NvrtcCompiler::Api {
  using Program = struct _nvrtcProgram*;
  std::unique_ptr<SharedLibrary> lib;
  const char* (*getErrorString)(int) = nullptr;
  int (*version)(int*, int*) = nullptr;
  int (*getNumSupportedArchs)(int*) = nullptr;
  int (*getSupportedArchs)(int*) = nullptr;
  int (*createProgram)(Program*, const char*, const char*, int, const char* const*,
                       const char* const*) = nullptr;
  int (*destroyProgram)(Program*) = nullptr;
  int (*compileProgram)(Program, int, const char* const*) = nullptr;
  int (*getPTXSize)(Program, std::size_t*) = nullptr;
  int (*getPTX)(Program, char*) = nullptr;
  int (*getCUBINSize)(Program, std::size_t*) = nullptr;  // NVRTC 11.1 and later
  int (*getCUBIN)(Program, char*) = nullptr;
  int (*getProgramLogSize)(Program, std::size_t*) = nullptr;
  int (*getProgramLog)(Program, char*) = nullptr;

  std::string error(int code) const {
    const char* s = getErrorString ? getErrorString(code) : nullptr;
    return s ? s : "NVRTC error " + std::to_string(code);
  }
};

std::vector<std::string> NvrtcCompiler::defaultCandidates() {
  const std::vector<std::string> names = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2",
                                          "libnvrtc.so.11", "libnvrtc.so"};
  std::vector<std::string> dirs;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* v = std::getenv(var); v && *v) dirs.push_back(std::string(v) + "/lib64/");
  dirs.push_back("/usr/local/cuda/lib64/");
  std::vector<std::string> out = names;  // the loader's own search path first
  for (const std::string& d : dirs)
    for (const std::string& n : names) out.push_back(d + n);
  return out;
}

const NvrtcCompiler& NvrtcCompiler::shared() {
  static const NvrtcCompiler compiler(defaultCandidates());
  return compiler;
}

NvrtcCompiler::NvrtcCompiler(const std::vector<std::string>& candidates) {
  std::string tried;
  auto lib = SharedLibrary::openFirst(candidates, "nvrtcCompileProgram", &tried);
  if (!lib) {
    m_reason =
        "NVRTC not found (tried " + tried + "); install the CUDA toolkit's NVRTC or set CUDA_HOME";
    return;
  }
  auto api = std::make_unique<Api>();
  auto bind = [&](auto& fn, const char* name) {
    fn = lib->symbol<std::remove_reference_t<decltype(fn)>>(name);
  };
  bind(api->getErrorString, "nvrtcGetErrorString");
  bind(api->version, "nvrtcVersion");
  bind(api->getNumSupportedArchs, "nvrtcGetNumSupportedArchs");
  bind(api->getSupportedArchs, "nvrtcGetSupportedArchs");
  bind(api->createProgram, "nvrtcCreateProgram");
  bind(api->destroyProgram, "nvrtcDestroyProgram");
  bind(api->compileProgram, "nvrtcCompileProgram");
  bind(api->getPTXSize, "nvrtcGetPTXSize");
  bind(api->getPTX, "nvrtcGetPTX");
  bind(api->getCUBINSize, "nvrtcGetCUBINSize");
  bind(api->getCUBIN, "nvrtcGetCUBIN");
  bind(api->getProgramLogSize, "nvrtcGetProgramLogSize");
  bind(api->getProgramLog, "nvrtcGetProgramLog");
  if (!api->createProgram || !api->destroyProgram || !api->getPTXSize || !api->getPTX ||
      !api->getProgramLogSize || !api->getProgramLog) {
    m_reason = lib->name() + " lacks NVRTC entry points it should have";
    return;
  }
  api->lib = std::move(lib);
  m_api = std::move(api);
}

NvrtcCompiler::~NvrtcCompiler() = default;

std::string NvrtcCompiler::library() const {
  return m_api ? m_api->lib->name() : "";
}

std::string NvrtcCompiler::version() const {
  int major = 0, minor = 0;
  if (!m_api || !m_api->version || m_api->version(&major, &minor) != 0) return "";
  return std::to_string(major) + "." + std::to_string(minor);
}

std::vector<int> NvrtcCompiler::supportedArchs() const {
  int n = 0;
  if (!m_api || !m_api->getNumSupportedArchs || !m_api->getSupportedArchs ||
      m_api->getNumSupportedArchs(&n) != 0 || n <= 0)
    return {};
  std::vector<int> archs(static_cast<std::size_t>(n));
  if (m_api->getSupportedArchs(archs.data()) != 0) return {};
  return archs;
}

std::string NvrtcCompiler::checkArch(std::string_view arch) const {
  static const std::regex form(R"((sm|compute)_(\d{2,3})([af]?))");
  std::cmatch m;
  if (!std::regex_match(arch.begin(), arch.end(), m, form))
    return "CUDA architecture '" + std::string(arch) +
           "' is not of the form sm_NN or compute_NN (e.g. sm_80, sm_90)";
  const std::vector<int> archs = supportedArchs();
  if (archs.empty()) return "";  // an NVRTC that cannot list them rejects bad ones itself
  const int cc = std::stoi(m[2]);
  std::string listed;
  for (int a : archs) {
    if (a == cc) return "";
    listed += (listed.empty() ? "sm_" : ", sm_") + std::to_string(a);
  }
  return "CUDA architecture '" + std::string(arch) + "' is not supported by NVRTC " + version() +
         " (supported: " + listed + ")";
}

CompileResult NvrtcCompiler::compile(const std::string& source, const std::string& arch,
                                     const std::vector<std::string>& extraOptions) const {
  CompileResult r;
  r.arch = arch;
  if (!m_api) {
    r.log = m_reason;
    return r;
  }
  const Api& api = *m_api;
  // Before NVRTC 11.1 a real architecture could not be compiled to CUBIN: fall back to PTX for
  // the same capability, which the driver compiles when it loads the module.
  std::string target = arch;
  const bool real = arch.rfind("sm_", 0) == 0;
  if (real && !api.getCUBINSize) target = "compute_" + arch.substr(3);
  std::vector<std::string> options = {"--gpu-architecture=" + target, "--std=c++17"};
  if (target.rfind("sm_", 0) == 0) options.push_back("--ptxas-options=-v");
  options.insert(options.end(), extraOptions.begin(), extraOptions.end());
  std::vector<const char*> argv;
  for (const std::string& o : options) argv.push_back(o.c_str());

  const auto start = std::chrono::steady_clock::now();
  Api::Program program = nullptr;
  if (int rc = api.createProgram(&program, source.c_str(), "opevo_kernel.cu", 0, nullptr, nullptr);
      rc != 0) {
    r.log = "nvrtcCreateProgram: " + api.error(rc);
    return r;
  }
  const int rc = api.compileProgram(program, static_cast<int>(argv.size()), argv.data());
  std::size_t size = 0;
  if (api.getProgramLogSize(program, &size) == 0 && size > 1) {
    r.log.resize(size);
    api.getProgramLog(program, r.log.data());
    r.log.resize(size - 1);  // drop the terminating NUL
  }
  if (rc != 0) {
    if (r.log.empty()) r.log = api.error(rc);
  } else if (target.rfind("sm_", 0) == 0) {
    r.kind = BinaryKind::Cubin;
    if (api.getCUBINSize(program, &size) == 0 && size > 0) {
      r.binary.resize(size);
      r.ok = api.getCUBIN(program, r.binary.data()) == 0;
    }
    r.resources = parsePtxasInfo(r.log);
  } else {
    r.kind = BinaryKind::Ptx;
    if (api.getPTXSize(program, &size) == 0 && size > 0) {
      r.binary.resize(size);
      r.ok = api.getPTX(program, r.binary.data()) == 0;
    }
  }
  api.destroyProgram(&program);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  auto note = [&r](const std::string& line) { r.log += (r.log.empty() ? "" : "\n") + line; };
  if (rc == 0 && !r.ok) note("NVRTC produced no binary");
  if (target != arch) note("compiled to PTX for " + target + ": this NVRTC cannot emit CUBIN");
  return r;
}

}  // namespace opevo
