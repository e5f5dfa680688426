#pragma once

#include <memory>
#include <optional>
#include <string>

#include "cpu/cpu_measurer.h"
#include "cuda/cuda_measurer.h"
#include "engine/measurement.h"
#include "hip/hip_measurer.h"
#include "io/replay_dataset.h"
#include "ops/operator_json.h"

namespace opevo {

namespace cluster {
class ClusterSession;
}

// What a run measures with: the search space and the measurer for a backend name ("cpu",
// "cuda", "hip", "replay:FILE") and an operator (a preset or an operator file; ignored for a
// replay, whose space comes from the file).
struct MeasurementSetup {
  std::string backend;  // "cpu", "replay", ...
  std::string operatorName;
  std::string operatorJson;  // what the store keeps to rebuild the space on resume
  std::shared_ptr<const OperatorDefinition> definition;  // null for a replay
  std::shared_ptr<const ReplayDataset> dataset;          // null unless replay
  const SearchSpace* space = nullptr;
  std::unique_ptr<Measurer> measurer;
};

struct BackendOptions {
  CpuMeasurerOptions cpu;
  CudaMeasurerOptions cuda;
  HipMeasurerOptions hip;
  // Measure on this cluster's agents instead of here (gpu/backends/cluster_backend.h).
  std::shared_ptr<cluster::ClusterSession> cluster;
  // With several device models of the backend on the cluster: a part of the wanted one's name.
  std::string clusterDevice;
};

// Gives the GPU backends the CPU's measuring choices: parallel builds, minimum timing, slow
// cut-off, and the time limit a trial has when one was asked for (a GPU trial's own default is
// 20 s: a fresh worker pays for the runtime's start). The first H200 lease ran with 2 builds and
// 100 ms where 14 and 25 were asked, because only the CPU's options had received them.
void shareMeasuringChoices(BackendOptions& o, bool timeoutAsked);

// The time limit each trial of a run on `backend` has (environmentalFailure: a stored timeout
// under a shorter one is measured again; a run whose every trial timed out says it); none for a
// replay, which answers from its dataset.
std::optional<double> trialTimeLimit(const std::string& backend, const BackendOptions& options);

// Throws InputError for an unknown backend, a backend this machine lacks (naming those it has),
// or a bad operator.
MeasurementSetup makeMeasurement(const std::string& backend, const std::string& op,
                                 const BackendOptions& options = {});

// The definition a new run of `def` on a device backend tunes and stores: the space with the GPU
// templates' own parameters (gpuTarget) on cuda and hip, the common one (commonTarget) on cpu;
// Winograd's keeps its one space. A template of its own (usesOwnTemplate) is an InputError on
// other backends (runsOwnTemplates). A stored run's definition is compared with this one to tell
// whether it still measures the same operator.
OperatorDefinition runDefinition(const std::string& backend, OperatorDefinition def);

// Throws InputError unless `backend` is a device backend (cpu, cuda, hip) this machine has,
// naming those it has.
void requireLocalBackend(const std::string& backend);

// What a device backend needs on this machine besides its device: the worker that measures
// every trial and, on the CPU, the compiler that builds each kernel. Throws SystemError saying
// what is missing and where it was looked for (WorkerClient::missingWorker, cpuCompilerProblem).
// Every path that stores a run calls it first (opevo tune, net tune, the window's races): missing,
// each attempt stored a run that failed at its first trial ("failed, 0 trials"). Nothing for a
// replay or a cluster's run (its agents measure with their own).
void requireMeasuringPrograms(const std::string& backend, const BackendOptions& options);

// Whether a backend runs the kernels of the templates with spaces of their own (Winograd's and
// the matrix-vector one): the device backends cpu, cuda and hip.
bool runsOwnTemplates(const std::string& backend);
// Throws InputError, its message starting with `who` and naming the template, unless
// runsOwnTemplates(backend).
void requireOwnSpaceBackend(const std::string& backend, const std::string& who, SpaceTarget target);

// Whether makeOperatorMeasurement gives the definition its backend's space (runDefinition: a
// new run) or measures it as given (what a cluster agent is sent: the coordinator chose).
enum class SpaceChoice { ForBackend, AsGiven };

// The setup of an operator already defined (a network's task) on a device backend (cpu, cuda,
// hip). Throws InputError as makeMeasurement does.
MeasurementSetup makeOperatorMeasurement(const std::string& backend, OperatorDefinition def,
                                         const BackendOptions& options = {},
                                         SpaceChoice choice = SpaceChoice::ForBackend);

// The setup of a replay of a dataset already read (the window reads its datasets itself).
MeasurementSetup replayMeasurement(std::shared_ptr<const ReplayDataset> dataset);

// The same, measured as options say (on the cluster when options.cluster is set).
MeasurementSetup replayMeasurement(std::shared_ptr<const ReplayDataset> dataset,
                                   const BackendOptions& options);

// Rebuilds the setup of a stored run from its backend and operatorJson (and the device it was
// measured on, which picks the cluster's agents when options.cluster is set).
MeasurementSetup restoreMeasurement(const std::string& backend, const std::string& operatorJson,
                                    const BackendOptions& options = {},
                                    const std::string& device = {});

// "cuda, then hip, then cpu": the first available.
std::string defaultBackend();

}  // namespace opevo
