#include "cpu/cpu_measurer.h"

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <stdexcept>

#include "backends/compile_pipeline.h"
#include "codegen/cpu_compiler.h"
#include "codegen/kernel_codegen.h"
#include "common/error.h"
#include "common/kernel_cache.h"
#include "probe/backend_probe.h"
#include "worker/protocol.h"

namespace opevo {
namespace {

// A stable file stem per source text, so a configuration compiled once is reused across runs.
std::string stemFor(const std::string& source) {
  std::string stem = "k";
  return stem.append(std::to_string(std::hash<std::string>{}(source)));
}

}  // namespace

CpuMeasurer::CpuMeasurer(OperatorDefinition def, CpuMeasurerOptions options)
    : m_def(std::move(def)), m_options(std::move(options)), m_cutoff(m_options.cutoffFactor) {
  if (m_options.cacheDir.empty()) m_options.cacheDir = defaultKernelCacheDir();
  makeKernelCacheDir(m_options.cacheDir);
  for (const BackendInfo& b : probeBackends())
    if (b.name == "cpu" && !b.devices.empty())
      m_device = b.devices[0].name + ", " + b.devices[0].detail;
  m_worker = std::make_unique<WorkerClient>(m_options.workerPath);
}

CpuMeasurer::~CpuMeasurer() = default;

std::string CpuMeasurer::label() const {
  // Stored with each run: its times are not comparable with a warm run's (loadHistory).
  const TimingOptions& t = m_options.timing;
  const char* cold = t.coldWeights && t.coldActivations ? " (weights and activations cold)"
                     : t.coldWeights                    ? " (weights cold)"
                     : t.coldActivations                ? " (activations cold)"
                                                        : "";
  return "cpu: " + m_device + cold;
}

Measurement CpuMeasurer::timeInWorker(const std::string& library) {
  TimingOptions timing = m_cutoff.applied(m_options.timing);
  timing.trialMs = m_options.timeoutSeconds * 1e3;
  const auto reply = m_worker->call({{"cmd", "measure"},
                                     {"backend", "cpu"},
                                     {"op", operatorToJson(m_def.op)},
                                     {"library", library},
                                     {"timing", timingToJson(timing)}},
                                    m_options.timeoutSeconds);
  Measurement m = measurementFromReply(reply);
  m_cutoff.observe(m);
  return m;
}

void buildThenTime(const std::vector<Config>& configs, int compileThreads,
                   double compileTimeoutSeconds, const std::string& cacheDir,
                   const std::function<std::string(const Config&)>& source,
                   const std::function<Measurement(const std::string& library)>& time,
                   const Measurer::TrialCallback& done) {
  CpuCompilerOptions build;
  build.timeoutSeconds = compileTimeoutSeconds;
  // The machine's, not the configurations' (no compiler, no room): the run stops, resumable.
  if (const auto problem = cpuCompilerProblem(build)) throw SystemError(*problem);
  std::vector<CompileResult> built(configs.size());
  compileThenUse<CompileResult>(
      configs.size(), compileThreads,
      [&](std::size_t i) {
        CompileResult r;
        try {
          const std::string text = source(configs[i]);
          r = compileCpuKernel(text, cacheDir, stemFor(text), build);
        } catch (const std::exception& e) {
          r.ok = false;
          r.log = e.what();
        }
        return r;
      },
      [&](std::size_t i, CompileResult& r) { built[i] = std::move(r); });
  for (std::size_t i = 0; i < configs.size(); ++i) {
    // The machine's failure, not the configuration's: no trial, and the run stops with the
    // reason (its trials so far are stored; a resume goes on once there is room).
    if (built[i].noRoom) throw SystemError(built[i].log);
    Measurement m;
    if (!built[i].ok) {
      m.status = TrialStatus::CompileError;
      m.message = built[i].log.substr(0, 2000);
    } else {
      m = time(built[i].path);
    }
    m.compileMs = built[i].seconds * 1e3;
    done(i, m);
  }
}

void CpuMeasurer::measureEach(const std::vector<Config>& configs, const TrialCallback& done) {
  buildThenTime(
      configs, m_options.compileThreads, m_options.compileTimeoutSeconds, m_options.cacheDir,
      [&](const Config& c) {
        return codegen::generateKernel(m_def.op, m_def.space, c, codegen::Backend::Cpu).source;
      },
      [&](const std::string& library) { return timeInWorker(library); }, done);
}

std::vector<Measurement> CpuMeasurer::measure(const std::vector<Config>& configs) {
  return collectEach(configs);
}

std::optional<Measurer::Reference> CpuMeasurer::reference() {
  const auto reply = m_worker->call({{"cmd", "reference"},
                                     {"backend", "cpu"},
                                     {"op", operatorToJson(m_def.op)},
                                     {"timing", timingToJson(m_options.timing)}},
                                    std::max(60.0, m_options.timeoutSeconds));
  if (!reply.ok || !reply.body.value("ok", false)) return std::nullopt;
  return Reference{reply.body.value("library", std::string("reference")),
                   measurementFromJson(reply.body["measurement"])};
}

}  // namespace opevo
