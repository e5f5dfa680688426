#include "worker/protocol.h"

#include <unistd.h>

#include <chrono>
#include <memory>

#include "common/error.h"
#include "cpu/cpu_runner.h"
#include "cuda/cuda_runner.h"
#include "hip/hip_runner.h"
#include "kas/kas_runner.h"
#include "layout/layout.h"
#include "ops/operator_json.h"
#include "probe/backend_probe.h"

namespace opevo {

nlohmann::json measurementToJson(const Measurement& m) {
  return {{"status", statusName(m.status)}, {"speed", m.speed},          {"median_ms", m.medianMs},
          {"times_ms", m.timesMs},          {"compile_ms", m.compileMs}, {"verify_ms", m.verifyMs},
          {"measure_ms", m.measureMs},      {"message", m.message}};
}

Measurement measurementFromJson(const nlohmann::json& j) {
  Measurement m;
  if (!parseStatus(j.value("status", std::string("runtime_fault")), m.status))
    m.status = TrialStatus::RuntimeFault;
  m.speed = j.value("speed", 0.0);
  m.medianMs = j.value("median_ms", 0.0);
  m.timesMs = j.value("times_ms", std::vector<double>{});
  m.compileMs = j.value("compile_ms", 0.0);
  m.verifyMs = j.value("verify_ms", 0.0);
  m.measureMs = j.value("measure_ms", 0.0);
  m.message = j.value("message", std::string());
  return m;
}

nlohmann::json timingToJson(const TimingOptions& t) {
  nlohmann::json j;
  j["min_total_ms"] = t.minTotalMs;
  j["min_runs"] = t.minRuns;
  j["max_runs"] = t.maxRuns;
  j["warmup_runs"] = t.warmupRuns;
  j["cutoff_ms"] = t.cutoffMs;
  j["give_up_ms"] = t.giveUpMs;
  if (t.trialMs > 0) j["trial_ms"] = t.trialMs;
  if (t.coldWeights) j["cold_weights"] = true;
  if (t.coldActivations) j["cold_activations"] = true;
  if (t.activationB) j["activation_b"] = true;
  return j;
}

Measurement measurementFromReply(const WorkerClient::Reply& reply) {
  Measurement m;
  if (!reply.ok) {
    m.status = reply.failure;
    m.message = reply.message;
  } else if (!reply.body.value("ok", false)) {
    m.status = TrialStatus::LaunchError;
    m.message = reply.body.value("error", std::string("the worker refused the request"));
  } else {
    m = measurementFromJson(reply.body["measurement"]);
  }
  m.measureMs = reply.seconds * 1e3;
  return m;
}

TimingOptions timingFromJson(const nlohmann::json& j) {
  TimingOptions t;
  if (!j.is_object()) return t;
  t.minTotalMs = j.value("min_total_ms", t.minTotalMs);
  t.minRuns = j.value("min_runs", t.minRuns);
  t.maxRuns = j.value("max_runs", t.maxRuns);
  t.warmupRuns = j.value("warmup_runs", t.warmupRuns);
  t.cutoffMs = j.value("cutoff_ms", t.cutoffMs);
  t.giveUpMs = j.value("give_up_ms", t.giveUpMs);
  t.trialMs = j.value("trial_ms", t.trialMs);
  t.coldWeights = j.value("cold_weights", t.coldWeights);
  t.coldActivations = j.value("cold_activations", t.coldActivations);
  t.activationB = j.value("activation_b", t.activationB);
  return t;
}

namespace {

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

codegen::Dim3 dim3From(const nlohmann::json& j) {
  codegen::Dim3 d;
  if (j.is_array() && j.size() == 3) {
    d.x = j[0].get<std::int64_t>();
    d.y = j[1].get<std::int64_t>();
    d.z = j[2].get<std::int64_t>();
  }
  return d;
}

// A measure request's "layouts": the layouts of A, B and C (layout::Layout::toJson each) of a
// kernel in layouts of its own. Throws InputError naming the bad field.
layout::OperandLayouts operandLayoutsFrom(const nlohmann::json& j) {
  if (!j.is_array() || j.size() != 3)
    throw InputError("measure: \"layouts\" must be an array of the layouts of A, B and C");
  return {layout::Layout::fromJson(j[0]), layout::Layout::fromJson(j[1]),
          layout::Layout::fromJson(j[2])};
}

// The GPU half of measure/reference, for "cuda" and "hip" alike. A runtime error after the
// context was in use poisons it, so the reply says "worker_exits" and the worker quits after
// sending it; the client then reaps it and starts a fresh one for the next request.
nlohmann::json handleGpu(const std::string& backend, const std::string& cmd,
                         const nlohmann::json& request, const TimingOptions& timing, bool& quit) {
  const bool hip = backend == "hip";
  const std::string why = hip ? hipUnavailableReason() : cudaUnavailableReason();
  if (!why.empty())
    return {{"ok", false}, {"error", "the " + backend + " backend cannot run here: " + why}};
  OperatorBuffers& buffers = buffersFor(request.at("op"));
  const bool coldL2 = request.value("cold_l2", false);
  GpuRunResult r;
  if (cmd == "reference") {
    r = hip ? runHipReference(buffers, timing, coldL2) : runCudaReference(buffers, timing, coldL2);
  } else {
    GpuKernelRequest k;
    k.binaryPath = request.at("binary").get<std::string>();
    k.entry = request.value("entry", std::string("opevo_kernel"));
    const auto& launch = request.at("launch");
    k.launch.grid = dim3From(launch.at("grid"));
    k.launch.block = dim3From(launch.at("block"));
    k.launch.sharedBytes = launch.value("shared_bytes", std::int64_t{0});
    k.coldL2 = coldL2;
    if (request.contains("layouts")) k.layouts = operandLayoutsFrom(request["layouts"]);
    k.winogradWeights = request.value("winograd_weights", false);
    r = hip ? runHipKernel(k, buffers, timing) : runCudaKernel(k, buffers, timing);
  }
  nlohmann::json reply = {{"ok", true}, {"measurement", measurementToJson(r.measurement)}};
  if (!r.library.empty()) reply["library"] = r.library;
  if (r.contextLost) {
    reply["worker_exits"] = true;
    quit = true;
  }
  return reply;
}

}  // namespace

nlohmann::json handleWorkerRequest(const nlohmann::json& request, bool& quit) {
  const std::string cmd = request.value("cmd", "");
  if (cmd == "hello")
    return {{"ok", true},
            {"worker", "opevo-worker"},
            {"version", OPEVO_VERSION},
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
  // The trial's limit counts from here: building the operator's buffers and its reference, on
  // the first trial, are part of it (the caller's clock holds them too).
  const auto taken = std::chrono::steady_clock::now();
  if (cmd == "measure_kas") {
    const TimingOptions timing = timingFromJson(request.value("timing", nlohmann::json::object()));
    try {
      return {{"ok", true},
              {"measurement", measurementToJson(kas::runKasKernel(request, timing, taken))}};
    } catch (const std::exception& e) {
      return {{"ok", false}, {"error", std::string("measure_kas: ") + e.what()}};
    }
  }
  if (cmd == "measure" || cmd == "reference") {
    const std::string backend = request.value("backend", "");
    const TimingOptions timing = timingFromJson(request.value("timing", nlohmann::json::object()));
    if (backend == "cuda" || backend == "hip")
      return handleGpu(backend, cmd, request, timing, quit);
    if (backend != "cpu")
      return {{"ok", false}, {"error", "backend '" + backend + "' is not served by this worker"}};
    OperatorBuffers& buffers = buffersFor(request.at("op"));
    if (cmd == "reference")
      return {{"ok", true},
              {"measurement", measurementToJson(runCpuReference(buffers, timing))},
              {"library", buffers.referenceLibrary()}};
    return {{"ok", true},
            {"measurement",
             measurementToJson(runCpuKernel(request.at("library"), buffers, timing, taken))}};
  }
  return {{"ok", false},
          {"error", "unknown command '" + cmd +
                        "' (known: hello, probe, measure, measure_kas, reference, quit)"}};
}

}  // namespace opevo
