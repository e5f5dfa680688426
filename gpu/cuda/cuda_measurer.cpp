#include "cuda/cuda_measurer.h"

#include "backends/compile_pipeline.h"

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <thread>

#include "codegen/kernel_codegen.h"
#include "common/error.h"
#include "cuda/cuda_driver.h"
#include "cuda/cuda_runner.h"
#include "cuda/nvrtc_compiler.h"
#include "worker/protocol.h"

namespace opevo {
namespace fs = std::filesystem;

struct CudaMeasurer::Compiled {
  std::size_t index = 0;
  bool ok = false;
  std::string log;
  std::string binaryPath;
  std::string entry;
  codegen::LaunchConfig launch;
  double seconds = 0;
};

namespace {

std::string defaultCacheDir() {
  fs::path base;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    base = xdg;
  else if (const char* home = std::getenv("HOME"); home && *home)
    base = fs::path(home) / ".cache";
  else
    base = fs::temp_directory_path();
  return (base / "opevo-studio" / "cuda-kernels").string();
}

nlohmann::json dimJson(const codegen::Dim3& d) { return {d.x, d.y, d.z}; }

}  // namespace

void addSharedMemoryConstraint(OperatorDefinition& def, std::int64_t maxSharedBytes) {
  // The template is instantiated against the space without this constraint (constraints are not
  // consulted by the generator); a configuration the template refuses is not ours to judge.
  def.space.addConstraint(
      "at most " + std::to_string(maxSharedBytes) + " bytes of shared memory per block (device)",
      [op = def.op, space = def.space, maxSharedBytes](const Config& c) {
        try {
          return codegen::generateKernel(op, space, c, codegen::Backend::Cuda).launch.sharedBytes <=
                 maxSharedBytes;
        } catch (const std::exception&) {
          return true;
        }
      });
}

CudaMeasurer::CudaMeasurer(OperatorDefinition def, CudaMeasurerOptions options)
    : m_def(std::move(def)), m_options(std::move(options)) {
  const cuda::CudaDriver& driver = cuda::CudaDriver::shared();
  if (!driver.ready()) throw InputError("the cuda backend cannot run here: " + driver.reason());
  if (!NvrtcCompiler::shared().available())
    throw InputError("the cuda backend needs NVRTC: " + NvrtcCompiler::shared().unavailableReason());
  m_arch = cudaCompileArch(driver.device().computeCapability());
  m_device = driver.device().describe();
  if (m_options.cacheDir.empty()) m_options.cacheDir = defaultCacheDir();
  fs::create_directories(m_options.cacheDir);
  m_worker = std::make_unique<WorkerClient>(m_options.workerPath);
}

CudaMeasurer::~CudaMeasurer() = default;

CudaMeasurer::Compiled CudaMeasurer::compile(const Config& config) const {
  Compiled c;
  try {
    const auto kernel = codegen::generateKernel(m_def.op, m_def.space, config, codegen::Backend::Cuda);
    c.entry = kernel.entry;
    c.launch = kernel.launch;
    // One file per (source, architecture): a configuration compiled once is reused across runs.
    const std::string stem =
        "k" + std::to_string(std::hash<std::string>{}(kernel.source + "\n//" + m_arch));
    const fs::path path =
        fs::path(m_options.cacheDir) / (stem + (m_arch.rfind("sm_", 0) == 0 ? ".cubin" : ".ptx"));
    c.binaryPath = path.string();
    if (fs::exists(path) && fs::file_size(path) > 0) {
      c.ok = true;
      return c;
    }
    const CompileResult r = NvrtcCompiler::shared().compile(kernel.source, m_arch);
    c.seconds = r.seconds;
    c.ok = r.ok;
    c.log = r.log;
    if (!r.ok) return c;
    // Written under a temporary name and renamed, so a reader never sees half a file.
    const fs::path tmp = path.string() + ".tmp" + std::to_string(std::hash<std::thread::id>{}(
                                                      std::this_thread::get_id()));
    std::ofstream(tmp, std::ios::binary).write(r.binary.data(), std::streamsize(r.binary.size()));
    fs::rename(tmp, path);
  } catch (const std::exception& e) {
    c.ok = false;
    c.log = e.what();
  }
  return c;
}

Measurement CudaMeasurer::timeInWorker(const Compiled& c) {
  const auto reply = m_worker->call(
      {{"cmd", "measure"},
       {"backend", "cuda"},
       {"op", operatorToJson(m_def.op)},
       {"binary", c.binaryPath},
       {"entry", c.entry},
       {"launch",
        {{"grid", dimJson(c.launch.grid)},
         {"block", dimJson(c.launch.block)},
         {"shared_bytes", c.launch.sharedBytes}}},
       {"cold_l2", m_options.coldL2},
       {"timing", timingToJson(m_options.timing)}},
      m_options.timeoutSeconds);
  return measurementFromReply(reply);
}

void CudaMeasurer::measureEach(const std::vector<Config>& configs, const TrialCallback& done) {
  compileThenUse<Compiled>(
      configs.size(), m_options.compileThreads, [&](std::size_t i) { return compile(configs[i]); },
      [&](std::size_t i, Compiled& c) {
        Measurement m;
        if (!c.ok) {
          m.status = TrialStatus::CompileError;
          m.message = c.log.substr(0, 2000);
        } else {
          m = timeInWorker(c);
        }
        m.compileMs = c.seconds * 1e3;
        done(i, m);
      });
}

std::vector<Measurement> CudaMeasurer::measure(const std::vector<Config>& configs) {
  return collectEach(configs);
}

std::optional<Measurer::Reference> CudaMeasurer::reference() {
  const auto reply = m_worker->call({{"cmd", "reference"},
                                     {"backend", "cuda"},
                                     {"op", operatorToJson(m_def.op)},
                                     {"cold_l2", m_options.coldL2},
                                     {"timing", timingToJson(m_options.timing)}},
                                    std::max(60.0, m_options.timeoutSeconds));
  if (!reply.ok || !reply.body.value("ok", false)) return std::nullopt;
  return Reference{reply.body.value("library", std::string("reference")),
                   measurementFromJson(reply.body["measurement"])};
}

}  // namespace opevo
