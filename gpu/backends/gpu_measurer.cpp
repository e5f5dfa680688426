#include "backends/gpu_measurer.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "backends/compile_pipeline.h"
#include "common/kernel_cache.h"
#include "layout/operand_layouts.h"
#include "worker/protocol.h"

namespace opevo {
namespace fs = std::filesystem;

struct GpuMeasurer::Compiled {
  std::size_t index = 0;
  bool ok = false;
  std::string log;
  std::string binaryPath;
  std::string entry;
  codegen::LaunchConfig launch;
  // A kernel in layouts of its own: [A, B, C] as layout JSON, for the worker to pack the
  // operands with (the layouts are the configuration's, rebuilt here from the definition
  // rather than parsed back from the kernel); null otherwise.
  nlohmann::json layouts;
  bool winogradWeights = false;  // GeneratedKernel::packedWeights: the worker transforms B
  double seconds = 0;
};

namespace {

nlohmann::json dimJson(const codegen::Dim3& d) {
  return {d.x, d.y, d.z};
}

}  // namespace

void addDeviceLimitConstraint(OperatorDefinition& def, std::int64_t maxSharedBytes,
                              codegen::Backend backend, std::int64_t maxLocalBytesPerThread) {
  std::string name =
      "at most " + std::to_string(maxSharedBytes) + " bytes of shared memory per block";
  if (maxLocalBytesPerThread > 0)
    name += " and under " + std::to_string(maxLocalBytesPerThread / 1024) +
            " KiB of accumulators per thread";
  // The template is instantiated against the space without this constraint (constraints are not
  // consulted by the generator); a configuration the template refuses is not ours to judge.
  def.space.addConstraint(name + " (device)", [op = def.op, space = def.space, maxSharedBytes,
                                               maxLocalBytesPerThread, backend](const Config& c) {
    try {
      const codegen::GeneratedKernel k = codegen::generateKernel(op, space, c, backend);
      if (k.launch.sharedBytes > maxSharedBytes) return false;
      return maxLocalBytesPerThread <= 0 ||
             k.accumulators * std::int64_t(sizeof(float)) < maxLocalBytesPerThread;
    } catch (const std::exception&) {
      return true;
    }
  });
}

GpuMeasurer::GpuMeasurer(std::string backend, codegen::Backend codegenBackend,
                         OperatorDefinition def, GpuMeasurerOptions options)
    : m_backend(std::move(backend)),
      m_codegenBackend(codegenBackend),
      m_def(std::move(def)),
      m_options(std::move(options)),
      m_cutoff(m_options.cutoffFactor) {}

GpuMeasurer::~GpuMeasurer() = default;

void GpuMeasurer::start(std::string device, std::string arch) {
  m_device = std::move(device);
  m_arch = std::move(arch);
  if (m_options.cacheDir.empty())
    m_options.cacheDir = defaultKernelCacheDir(m_backend + "-kernels");
  makeKernelCacheDir(m_options.cacheDir);
  m_worker = std::make_unique<WorkerClient>(m_options.workerPath);
}

GpuMeasurer::Compiled GpuMeasurer::compile(const Config& config) const {
  Compiled c;
  try {
    const auto kernel = codegen::generateKernel(m_def.op, m_def.space, config, m_codegenBackend);
    c.entry = kernel.entry;
    c.launch = kernel.launch;
    c.winogradWeights = kernel.packedWeights;
    if (kernel.usesLayouts()) {
      const layout::OperandLayouts l = layout::operandLayouts(m_def.op, m_def.space, config);
      c.layouts = nlohmann::json::array({l.a.toJson(), l.b.toJson(), l.c.toJson()});
    }
    // One file per (source, architecture): a configuration compiled once is reused across runs.
    const std::string stem =
        "k" + std::to_string(std::hash<std::string>{}(kernel.source + "\n//" + m_arch));
    const fs::path path = fs::path(m_options.cacheDir) / (stem + binaryExtension());
    c.binaryPath = path.string();
    if (fs::exists(path) && fs::file_size(path) > 0) {
      c.ok = true;
      return c;
    }
    const CompileResult r = compileSource(kernel.source);
    c.seconds = r.seconds;
    c.ok = r.ok;
    c.log = r.log;
    if (!r.ok) return c;
    // Written under a temporary name and renamed, so a reader never sees half a file.
    const fs::path tmp = path.string() + ".tmp" +
                         std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()));
    std::ofstream(tmp, std::ios::binary).write(r.binary.data(), std::streamsize(r.binary.size()));
    fs::rename(tmp, path);
  } catch (const std::exception& e) {
    c.ok = false;
    c.log = e.what();
  }
  return c;
}

Measurement GpuMeasurer::timeInWorker(const Compiled& c) {
  nlohmann::json request = {{"cmd", "measure"},
                            {"backend", m_backend},
                            {"op", operatorToJson(m_def.op)},
                            {"binary", c.binaryPath},
                            {"entry", c.entry},
                            {"launch",
                             {{"grid", dimJson(c.launch.grid)},
                              {"block", dimJson(c.launch.block)},
                              {"shared_bytes", c.launch.sharedBytes}}},
                            {"cold_l2", m_options.coldL2},
                            {"timing", timingToJson(m_cutoff.applied(m_options.timing))}};
  if (!c.layouts.is_null()) request["layouts"] = c.layouts;
  if (c.winogradWeights) request["winograd_weights"] = true;
  Measurement m = measurementFromReply(m_worker->call(request, m_options.timeoutSeconds));
  m_cutoff.observe(m);
  return m;
}

void GpuMeasurer::measureEach(const std::vector<Config>& configs, const TrialCallback& done) {
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

std::vector<Measurement> GpuMeasurer::measure(const std::vector<Config>& configs) {
  return collectEach(configs);
}

std::optional<Measurer::Reference> GpuMeasurer::reference() {
  const auto reply = m_worker->call({{"cmd", "reference"},
                                     {"backend", m_backend},
                                     {"op", operatorToJson(m_def.op)},
                                     {"cold_l2", m_options.coldL2},
                                     {"timing", timingToJson(m_options.timing)}},
                                    std::max(60.0, m_options.timeoutSeconds));
  if (!reply.ok || !reply.body.value("ok", false)) return std::nullopt;
  return Reference{reply.body.value("library", std::string("reference")),
                   measurementFromJson(reply.body["measurement"])};
}

}  // namespace opevo
