#include "backends/backend_factory.h"

#include <filesystem>

#include "backends/cluster_backend.h"
#include "codegen/cpu_compiler.h"
#include "common/error.h"
#include "cuda/cuda_driver.h"
#include "hip/hip_measurer.h"
#include "hip/hip_runtime.h"
#include "probe/backend_probe.h"
#include "replay/replay_measurer.h"
#include "store/run_operator.h"
#include "worker/worker_client.h"

namespace opevo {
namespace {

std::string availableList(const std::vector<BackendInfo>& backends) {
  std::string list;
  for (const auto& b : backends)
    if (b.available) list += (list.empty() ? "" : ", ") + b.name;
  return list + ", replay:FILE";
}

MeasurementSetup replaySetup(const std::string& path, const BackendOptions& options) {
  return replayMeasurement(std::make_shared<const ReplayDataset>(loadReplayDataset(path)), options);
}

}  // namespace

void requireLocalBackend(const std::string& backend) {
  const auto backends = probeBackends();
  bool known = false;
  for (const auto& b : backends) {
    if (b.name != backend) continue;
    known = true;
    if (!b.available)
      throw InputError("backend '" + backend + "' is not available on this machine: " + b.reason +
                       " (available: " + availableList(backends) + ")");
  }
  if (!known)
    throw InputError("unknown backend '" + backend + "' (accepted: cuda, hip, cpu, replay:FILE; " +
                     "available here: " + availableList(backends) + ")");
}

void requireMeasuringPrograms(const std::string& backend, const BackendOptions& options) {
  if (options.cluster) return;
  const std::string* worker = backend == "cpu"    ? &options.cpu.workerPath
                              : backend == "cuda" ? &options.cuda.workerPath
                              : backend == "hip"  ? &options.hip.workerPath
                                                  : nullptr;
  if (!worker) return;
  if (const auto missing = WorkerClient::missingWorker(*worker)) throw SystemError(*missing);
  if (backend == "cpu")
    if (const auto problem = cpuCompilerProblem()) throw SystemError(*problem);
}

namespace {

// AsGiven: the definition of a stored run (whose configurations fit its space as stored) or one
// a cluster agent was sent; ForBackend: a new run's, given its backend's space.
MeasurementSetup deviceSetup(const std::string& backend, OperatorDefinition def,
                             const BackendOptions& options, SpaceChoice choice,
                             const std::string& device = {}) {
  if (choice == SpaceChoice::ForBackend) def = runDefinition(backend, std::move(def));
  if (options.cluster) return clusterDeviceSetup(backend, std::move(def), options, device);
  requireLocalBackend(backend);
  MeasurementSetup s;
  s.backend = backend;
  s.operatorName = def.op.name;
  // Stored without device constraints: a resumed run re-derives them from its device.
  s.operatorJson = operatorDefinitionToJson(def).dump();
  if (backend == "cuda") {
    auto measurer = std::make_unique<CudaMeasurer>(def, options.cuda);
    // The device's shared and local memory limits are known before any trial, so they belong
    // to the space (tuners never propose what breaks them) rather than costing a trial each time.
    addDeviceLimitConstraint(def, cuda::CudaDriver::shared().device().maxSharedBytesOptin,
                             codegen::Backend::Cuda, kCudaLocalBytesPerThread);
    s.measurer = std::move(measurer);
  } else if (backend == "hip") {
    auto measurer = std::make_unique<HipMeasurer>(def, options.hip);
    addDeviceLimitConstraint(def, hip::HipRuntime::shared().device().maxSharedBytesPerBlock,
                             codegen::Backend::Hip);
    s.measurer = std::move(measurer);
  } else {
    s.measurer = std::make_unique<CpuMeasurer>(def, options.cpu);
  }
  s.definition = std::make_shared<const OperatorDefinition>(std::move(def));
  s.space = &s.definition->space;
  return s;
}

}  // namespace

MeasurementSetup replayMeasurement(std::shared_ptr<const ReplayDataset> dataset) {
  MeasurementSetup s;
  s.backend = "replay";
  s.operatorName = dataset->operatorName();
  // Stored runs name their file by a path that holds from any folder: a relative one (`opevo tune
  // --backend replay:resources/...`) neither matched the window's runs of the same file in the
  // history nor found the file from another folder.
  s.operatorJson =
      nlohmann::json{
          {"replay", std::filesystem::absolute(dataset->path).lexically_normal().string()}}
          .dump();
  s.space = &dataset->space;
  s.measurer = std::make_unique<ReplayMeasurer>(dataset);
  s.dataset = std::move(dataset);
  return s;
}

MeasurementSetup replayMeasurement(std::shared_ptr<const ReplayDataset> dataset,
                                   const BackendOptions& options) {
  if (options.cluster) return clusterReplaySetup(std::move(dataset), options);
  return replayMeasurement(std::move(dataset));
}

std::string defaultBackend() {
  return bestBackend(probeBackends());
}

std::optional<double> trialTimeLimit(const std::string& backend, const BackendOptions& options) {
  if (backend == "cpu") return options.cpu.timeoutSeconds;
  if (backend == "cuda") return options.cuda.timeoutSeconds;
  if (backend == "hip") return options.hip.timeoutSeconds;
  return std::nullopt;
}

void shareMeasuringChoices(BackendOptions& o, bool timeoutAsked) {
  for (GpuMeasurerOptions* gpu : {&o.cuda, &o.hip}) {
    gpu->compileThreads = o.cpu.compileThreads;
    gpu->timing.minTotalMs = o.cpu.timing.minTotalMs;
    gpu->cutoffFactor = o.cpu.cutoffFactor;
    if (timeoutAsked) gpu->timeoutSeconds = o.cpu.timeoutSeconds;
  }
}

bool runsOwnTemplates(const std::string& backend) {
  return backend == "cpu" || backend == "cuda" || backend == "hip";
}

void requireOwnSpaceBackend(const std::string& backend, const std::string& who,
                            SpaceTarget target) {
  if (!runsOwnTemplates(backend))
    throw InputError(who + ": the " +
                     (target == SpaceTarget::Winograd ? "Winograd" : "matrix-vector") +
                     " template runs on cpu, cuda and hip, not on " + backend +
                     " (a replay races the space its dataset measured)");
}

OperatorDefinition runDefinition(const std::string& backend, OperatorDefinition def) {
  // A GPU run tunes the GPU templates' own parameters too (split_k, stages); its stored
  // definition says so, so that resumes, exports and agents rebuild the same space.
  const bool gpu = backend == "cuda" || backend == "hip";
  if (usesOwnTemplate(def.target)) requireOwnSpaceBackend(backend, def.op.name, def.target);
  return withSpaceTarget(std::move(def), gpu ? gpuTarget(def.target) : commonTarget(def.target));
}

MeasurementSetup makeOperatorMeasurement(const std::string& backend, OperatorDefinition def,
                                         const BackendOptions& options, SpaceChoice choice) {
  return deviceSetup(backend, std::move(def), options, choice);
}

MeasurementSetup makeMeasurement(const std::string& backend, const std::string& op,
                                 const BackendOptions& options) {
  if (backend.rfind("replay:", 0) == 0) return replaySetup(backend.substr(7), options);
  if (op.empty()) throw InputError("--op is required (a preset such as MM1, or an operator file)");
  return deviceSetup(backend, loadOperator(op), options, SpaceChoice::ForBackend);
}

MeasurementSetup restoreMeasurement(const std::string& backend, const std::string& operatorJson,
                                    const BackendOptions& options, const std::string& device) {
  const nlohmann::json j = runOperator(operatorJson);
  if (backend == "replay") return replaySetup(j.at("replay").get<std::string>(), options);
  return deviceSetup(backend, operatorDefinitionFromJson(j, "stored run"), options,
                     SpaceChoice::AsGiven, device);
}

}  // namespace opevo
