#include "backends/cluster_backend.h"

#include <filesystem>
#include <map>

#include "cluster/cluster_measurer.h"
#include "cluster/cluster_run.h"
#include "cluster/device_kind.h"
#include "common/error.h"
#include "cuda/cuda_driver.h"
#include "engine/speed_unit.h"
#include "hip/hip_runtime.h"
#include "probe/backend_probe.h"
#include "replay/replay_measurer.h"
#include "space/text.h"

namespace opevo {
namespace {

namespace fs = std::filesystem;

std::string onCluster(const BackendOptions& options) {
  return cluster::onClusterLabel(options.cluster->endpoint().text());
}

struct LiveKind {
  std::string device;
  long long maxSharedBytes = 0;
  int devices = 0;
};

std::map<std::string, LiveKind> liveKinds(const std::vector<cluster::AgentRecord>& agents,
                                          const std::string& backend) {
  std::map<std::string, LiveKind> kinds;
  for (const cluster::AgentRecord& a : agents)
    for (const cluster::ClusterDevice& d : a.devices) {
      if (d.backend != backend) continue;
      LiveKind& k = kinds[d.kind];
      k.device = d.name;
      k.maxSharedBytes = d.maxSharedBytes;
      ++k.devices;
    }
  return kinds;
}

std::string listKinds(const std::map<std::string, LiveKind>& kinds) {
  std::string out;
  for (const auto& [kind, k] : kinds)
    out += (out.empty() ? "" : "; ") + k.device + " (" +
           // Two replays of files of one name differ by their kind only.
           (cluster::kindBackend(kind) == "replay" ? kind + ", " : std::string()) +
           counted(k.devices, "device", "devices") + ")";
  return out;
}

}  // namespace

nlohmann::json measuringOptionsJson(const BackendOptions& o) {
  return {{"compile_threads", o.cpu.compileThreads},
          {"timeout_s", o.cpu.timeoutSeconds},
          {"min_time_ms", o.cpu.timing.minTotalMs},
          {"slow_cutoff", o.cpu.cutoffFactor},
          {"cold_l2", o.cuda.coldL2},
          {"cold_weights", o.cpu.timing.coldWeights},
          {"cold_activations", o.cpu.timing.coldActivations},
          {"activation_b", o.cpu.timing.activationB}};
}

BackendOptions measuringOptionsFromJson(const nlohmann::json& j) {
  BackendOptions o;
  if (!j.is_object()) return o;
  o.cpu.compileThreads = j.value("compile_threads", o.cpu.compileThreads);
  o.cpu.timeoutSeconds = j.value("timeout_s", o.cpu.timeoutSeconds);
  o.cpu.timing.minTotalMs = j.value("min_time_ms", o.cpu.timing.minTotalMs);
  o.cpu.cutoffFactor = j.value("slow_cutoff", o.cpu.cutoffFactor);
  o.cpu.timing.coldWeights = j.value("cold_weights", false);
  o.cpu.timing.coldActivations = j.value("cold_activations", false);
  o.cpu.timing.activationB = j.value("activation_b", false);
  // The GPU backends time as the master asked too; their own defaults for the rest.
  shareMeasuringChoices(o, j.contains("timeout_s"));
  for (GpuMeasurerOptions* g : {&o.cuda, &o.hip}) g->coldL2 = j.value("cold_l2", false);
  return o;
}

MeasurementSetup clusterReplaySetup(std::shared_ptr<const ReplayDataset> dataset,
                                    const BackendOptions& options) {
  const std::string kind = cluster::replayKind(*dataset);
  const std::map<std::string, LiveKind> live = liveKinds(options.cluster->agents(), "replay");
  // Refused before a run is stored, as for a device backend: nothing would ever answer it.
  // (An agent replaying another copy of the same data serves it too: its kind is the same.)
  if (!live.count(kind))
    throw InputError("no live agent" + onCluster(options) + " replays " +
                     fs::path(dataset->path).filename().string() + " (" + kind +
                     "; live replay devices: " + (live.empty() ? "none" : listKinds(live)) +
                     "); start one with: opevo agent --cluster " +
                     options.cluster->endpoint().text() + " --backend replay:" + dataset->path);
  MeasurementSetup s = replayMeasurement(dataset);
  const ReplayMeasurer local(dataset);
  cluster::ClusterMeasurerSpec spec;
  spec.kind = kind;
  // "file" names this copy of the data in the master's hints (agents ignore it).
  spec.task = {{"backend", "replay"}, {"dataset", dataset->kernelName}, {"file", dataset->path}};
  spec.label = local.label() + onCluster(options);
  spec.device = local.device();  // as a local replay records it, so history matches
  spec.speedUnit = dataset->speedUnit;
  spec.replay = true;
  s.measurer =
      std::make_unique<cluster::ClusterMeasurer>(options.cluster, std::move(spec), dataset->space);
  return s;
}

MeasurementSetup clusterDeviceSetup(const std::string& backend, OperatorDefinition def,
                                    const BackendOptions& options,
                                    const std::string& storedDevice) {
  if (backend != "cpu" && backend != "cuda" && backend != "hip")
    throw InputError("unknown backend '" + backend +
                     "' for the cluster (accepted: cpu, cuda, hip, replay:FILE)");
  const std::map<std::string, LiveKind> live = liveKinds(options.cluster->agents(), backend);
  std::string kind;
  LiveKind chosen;
  if (!storedDevice.empty()) {
    kind = cluster::deviceKind(backend, storedDevice);
    const auto it = live.find(kind);
    if (it != live.end()) chosen = it->second;
    chosen.device = storedDevice;
    // A GPU's shared-memory limit is part of the space; the CPU's trials can wait for an agent.
    if (it == live.end() && backend != "cpu")
      throw InputError("the run was measured on " + storedDevice + ", and no live agent" +
                       onCluster(options) + " serves it (live " + backend +
                       " devices: " + (live.empty() ? "none" : listKinds(live)) + ")");
  } else {
    std::map<std::string, LiveKind> fit;
    for (const auto& [k, l] : live)
      if (options.clusterDevice.empty() ||
          l.device.find(options.clusterDevice) != std::string::npos)
        fit[k] = l;
    if (fit.empty())
      throw InputError(
          "no live agent" + onCluster(options) + " measures with " + backend +
          (options.clusterDevice.empty() ? ""
                                         : " on a device named '" + options.clusterDevice + "'") +
          " (live " + backend + " devices: " + (live.empty() ? "none" : listKinds(live)) +
          "); start one with: opevo agent --cluster " + options.cluster->endpoint().text() +
          " --backend " + backend);
    if (fit.size() > 1)
      throw InputError("several " + backend + " device models are live" + onCluster(options) +
                       ": " + listKinds(fit) +
                       "; choose one with --cluster-device and a part of its name");
    kind = fit.begin()->first;
    chosen = fit.begin()->second;
  }
  MeasurementSetup s;
  s.backend = backend;
  s.operatorName = def.op.name;
  // Stored without device constraints, as a local run's: a resume re-derives them.
  const nlohmann::json operatorJson = operatorDefinitionToJson(def);
  s.operatorJson = operatorJson.dump();
  if (backend != "cpu" && chosen.maxSharedBytes > 0)
    addDeviceLimitConstraint(def, chosen.maxSharedBytes,
                             backend == "hip" ? codegen::Backend::Hip : codegen::Backend::Cuda,
                             backend == "hip" ? 0 : kCudaLocalBytesPerThread);
  s.definition = std::make_shared<const OperatorDefinition>(std::move(def));
  s.space = &s.definition->space;
  cluster::ClusterMeasurerSpec spec;
  spec.kind = kind;
  spec.task = {
      {"backend", backend}, {"operator", operatorJson}, {"options", measuringOptionsJson(options)}};
  spec.label = backend + ": " + chosen.device + onCluster(options);
  spec.device = chosen.device;
  spec.speedUnit = deviceSpeedUnit(backend);  // the agents' runners time in it, as local ones do
  spec.hasReference = true;
  s.measurer =
      std::make_unique<cluster::ClusterMeasurer>(options.cluster, std::move(spec), *s.space);
  return s;
}

int localDeviceCount(const std::string& backend) {
  for (const BackendInfo& b : probeBackends())
    if (b.name == backend && b.available) return static_cast<int>(b.devices.size());
  return 0;
}

std::vector<cluster::ClusterDevice> localClusterDevices(const std::string& backend) {
  std::vector<cluster::ClusterDevice> out;
  for (const BackendInfo& b : probeBackends()) {
    if (b.name != backend) continue;
    if (!b.available || b.devices.empty())
      throw InputError("backend '" + backend + "' is not available on this machine: " + b.reason);
    cluster::ClusterDevice d;
    d.backend = backend;
    if (backend == "cpu") {
      // As CpuMeasurer names it, so the store reads the same as for a local run.
      d.name = b.devices[0].name + ", " + b.devices[0].detail;
    } else if (backend == "cuda") {
      d.name = cuda::CudaDriver::shared().device().describe();
      d.maxSharedBytes = cuda::CudaDriver::shared().device().maxSharedBytesOptin;
    } else {
      d.name = hip::HipRuntime::shared().device().describe();
      d.maxSharedBytes = hip::HipRuntime::shared().device().maxSharedBytesPerBlock;
    }
    d.kind = cluster::deviceKind(backend, d.name);
    out.push_back(std::move(d));
  }
  if (out.empty())
    throw InputError("unknown backend '" + backend + "' (accepted: cpu, cuda, hip, replay:FILE)");
  return out;
}

}  // namespace opevo
