#include "worker/protocol.h"

#include <unistd.h>

#include <memory>

#include "cpu/cpu_runner.h"
#include "ops/operator_json.h"
#include "probe/backend_probe.h"

namespace opevo {

nlohmann::json measurementToJson(const Measurement& m) {
  return {{"status", statusName(m.status)}, {"speed", m.speed},     {"median_ms", m.medianMs},
          {"times_ms", m.timesMs},          {"compile_ms", m.compileMs}, {"message", m.message}};
}

Measurement measurementFromJson(const nlohmann::json& j) {
  Measurement m;
  if (!parseStatus(j.value("status", std::string("runtime_fault")), m.status))
    m.status = TrialStatus::RuntimeFault;
  m.speed = j.value("speed", 0.0);
  m.medianMs = j.value("median_ms", 0.0);
  m.timesMs = j.value("times_ms", std::vector<double>{});
  m.compileMs = j.value("compile_ms", 0.0);
  m.message = j.value("message", std::string());
  return m;
}

namespace {

TimingOptions timingFrom(const nlohmann::json& j) {
  TimingOptions t;
  if (!j.is_object()) return t;
  t.minTotalMs = j.value("min_total_ms", t.minTotalMs);
  t.minRuns = j.value("min_runs", t.minRuns);
  t.maxRuns = j.value("max_runs", t.maxRuns);
  t.warmupRuns = j.value("warmup_runs", t.warmupRuns);
  return t;
}

// The inputs and reference output of the last operator, kept across requests: every trial of a
// run measures the same operator, and its reference is computed once.
OperatorBuffers& buffersFor(const nlohmann::json& opJson) {
  static std::string key;
  static std::unique_ptr<OperatorBuffers> buffers;
  const std::string k = opJson.dump();
  if (!buffers || key != k) {
    buffers = std::make_unique<OperatorBuffers>(operatorFromJson(opJson, "request"));
    key = k;
  }
  return *buffers;
}

}  // namespace

nlohmann::json handleWorkerRequest(const nlohmann::json& request, bool& quit) {
  const std::string cmd = request.value("cmd", "");
  if (cmd == "hello")
    return {{"ok", true}, {"worker", "opevo-worker"}, {"version", OPEVO_VERSION},
            {"pid", static_cast<long>(getpid())}};
  if (cmd == "quit") {
    quit = true;
    return {{"ok", true}};
  }
  if (cmd == "probe") {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& b : probeBackends())
      out.push_back({{"backend", b.name}, {"available", b.available}, {"reason", b.reason}});
    return {{"ok", true}, {"backends", out}};
  }
  if (cmd == "measure" || cmd == "reference") {
    const std::string backend = request.value("backend", "");
    if (backend != "cpu")
      return {{"ok", false}, {"error", "backend '" + backend + "' is not served by this worker"}};
    OperatorBuffers& buffers = buffersFor(request.at("op"));
    const TimingOptions timing = timingFrom(request.value("timing", nlohmann::json::object()));
    if (cmd == "reference")
      return {{"ok", true},
              {"measurement", measurementToJson(runCpuReference(buffers, timing))},
              {"library", buffers.op.kind == OpKind::Conv2D ? "plain loop nest" : "OpenBLAS sgemm"}};
    return {{"ok", true},
            {"measurement", measurementToJson(runCpuKernel(request.at("library"), buffers, timing))}};
  }
  return {{"ok", false},
          {"error", "unknown command '" + cmd + "' (known: hello, probe, measure, reference, quit)"}};
}

}  // namespace opevo
