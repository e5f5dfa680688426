#include "kas/kas_measurer.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>

#include "common/error.h"
#include "common/kernel_cache.h"
#include "cpu/cpu_measurer.h"
#include "kas/kas_json.h"
#include "kas/kas_runner.h"
#include "ops/operator_json.h"
#include "probe/backend_probe.h"
#include "space/text.h"
#include "worker/protocol.h"

namespace opevo::kas {

KasLayer kasLayer(const MicroDag& dag, const ConvTarget& target, const LayerSizes& sizes) {
  return {dag, target, sizes.bindings, sizes.shapes, sizes.flops};
}

nlohmann::json measuringJson(const KasMeasurerOptions& o) {
  return {{"compile_threads", o.compileThreads},
          {"timeout", o.timeoutSeconds},
          {"min_time_ms", o.timing.minTotalMs},
          {"slow_cutoff", o.cutoffFactor}};
}

KasMeasurerOptions measuringFromJson(const nlohmann::json& j, KasMeasurerOptions o) {
  try {
    o.compileThreads = j.value("compile_threads", o.compileThreads);
    o.timeoutSeconds = j.value("timeout", o.timeoutSeconds);
    o.timing.minTotalMs = j.value("min_time_ms", o.timing.minTotalMs);
    o.cutoffFactor = j.value("slow_cutoff", o.cutoffFactor);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(std::string("kernel search settings, measuring: ") + e.what());
  }
  return o;
}

void checkMeasuring(const KasMeasurerOptions& o) {
  if (o.compileThreads < 1)
    throw InputError("--compile-threads " + std::to_string(o.compileThreads) +
                     ": expected 1 or more");
  if (!(o.timeoutSeconds > 0 && std::isfinite(o.timeoutSeconds)))
    throw InputError("--timeout " + formatNumber(o.timeoutSeconds) + ": expected seconds above 0");
  if (!(o.cutoffFactor >= 0 && std::isfinite(o.cutoffFactor)))
    throw InputError("--slow-cutoff " + formatNumber(o.cutoffFactor) +
                     ": expected 0 (time every schedule fully) or more");
  if (!(o.timing.minTotalMs >= 0 && std::isfinite(o.timing.minTotalMs)))
    throw InputError("--min-time-ms " + formatNumber(o.timing.minTotalMs) + ": expected 0 or more");
  // As `opevo tune` refuses it. Here no trial is killed for it (its runs are cut to those that
  // fit, runsThatFit), but none would ever time the runs asked.
  if (o.timing.minTotalMs >= o.timeoutSeconds * 1000)
    throw InputError("--min-time-ms " + formatNumber(o.timing.minTotalMs) +
                     " is not under the trial timeout of " + formatNumber(o.timeoutSeconds) +
                     " s: no trial could time the runs asked; raise --timeout or lower "
                     "--min-time-ms");
}

KasMeasurer::KasMeasurer(KasLayer layer, KasMeasurerOptions options)
    : m_layer(std::move(layer)),
      m_options(std::move(options)),
      m_space(kasScheduleSpace(m_layer.target.height, m_layer.target.width)),
      m_kernelJson(kernelToJson(m_layer.dag)),
      m_cutoff(m_options.cutoffFactor) {
  if (m_options.cacheDir.empty()) m_options.cacheDir = defaultKernelCacheDir("kas-kernels");
  makeKernelCacheDir(m_options.cacheDir);
  m_bindingsJson = nlohmann::json::object();
  for (std::size_t s = 0; s < kSymbols; ++s)
    m_bindingsJson[std::string(symbolName(static_cast<Symbol>(s)))] = m_layer.bindings[s];
  for (const BackendInfo& b : probeBackends())
    if (b.name == "cpu" && !b.devices.empty())
      m_device = b.devices[0].name + ", " + b.devices[0].detail;
  m_worker = std::make_unique<WorkerClient>(m_options.workerPath);
}

KasMeasurer::~KasMeasurer() = default;

std::string KasMeasurer::label() const {
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx",
                static_cast<unsigned long long>(m_layer.dag.canonicalHash()));
  return std::string("cpu: kas kernel ") + hash + " at " + m_layer.target.name + " (" + m_device +
         ")";
}

std::string KasMeasurer::source(const Config& config) const {
  return generateKasCpuKernel(m_layer.dag, m_layer.dims, kasSchedule(m_space, config));
}

void KasMeasurer::measureEach(const std::vector<Config>& configs, const TrialCallback& done) {
  buildThenTime(
      configs, m_options.compileThreads, m_options.compileTimeoutSeconds, m_options.cacheDir,
      [&](const Config& c) { return source(c); },
      [&](const std::string& library) {
        nlohmann::json request =
            kasRequest(m_kernelJson, m_bindingsJson, library, "opevo_kas_kernel");
        TimingOptions timing = m_cutoff.applied(m_options.timing);
        timing.trialMs = m_options.timeoutSeconds * 1e3;  // as the CPU measurer's trials
        request["timing"] = timingToJson(timing);
        Measurement m = measurementFromReply(m_worker->call(request, m_options.timeoutSeconds));
        m_cutoff.observe(m);
        if (m.status == TrialStatus::Ok && m.medianMs > 0)
          m.speed = speedIn(speedUnit(), m_layer.flops, m.medianMs);
        return m;
      },
      done);
}

std::vector<Measurement> KasMeasurer::measure(const std::vector<Config>& configs) {
  return collectEach(configs);
}

std::optional<Measurer::Reference> timeConvolution(WorkerClient& worker, const ConvTarget& target,
                                                   const TimingOptions& timing,
                                                   double timeoutSeconds) {
  OperatorSpec conv;
  conv.name = target.name;
  conv.kind = OpKind::Conv2D;
  conv.inChannels = conv.outChannels = target.channels;
  conv.height = target.height;
  conv.width = target.width;
  conv.kernelH = target.kernelH;
  conv.kernelW = target.kernelW;
  conv.pad = target.kernelH / 2;
  const auto reply = worker.call({{"cmd", "reference"},
                                  {"backend", "cpu"},
                                  {"op", operatorToJson(conv)},
                                  {"timing", timingToJson(timing)}},
                                 std::max(60.0, timeoutSeconds));
  if (!reply.ok || !reply.body.value("ok", false)) return std::nullopt;
  return Measurer::Reference{
      reply.body.value("library", std::string("reference")) + " convolution of " + target.name,
      measurementFromJson(reply.body["measurement"])};
}

std::optional<Measurer::Reference> KasMeasurer::reference() {
  auto r = timeConvolution(*m_worker, m_layer.target, m_options.timing, m_options.timeoutSeconds);
  if (r) r->measurement.speed = speedIn(speedUnit(), m_layer.flops, r->measurement.medianMs);
  return r;
}

}  // namespace opevo::kas
