#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backends/backend_factory.h"
#include "cluster/agent_registry.h"

namespace opevo {

// The setups of runs measured by a cluster's agents (BackendOptions::cluster set): the same
// space and store records as a local run on that device, with a ClusterMeasurer in place of the
// local measurer. The device comes from the agents registered on the cluster, so the master
// needs neither a GPU nor a compiler.

// A replay: the master reads the dataset for its space; agents replaying the same content serve
// it.
MeasurementSetup clusterReplaySetup(std::shared_ptr<const ReplayDataset> dataset,
                                    const BackendOptions& options);
// A device backend (cpu, cuda, hip). storedDevice (a resumed run's) fixes the device model;
// otherwise it is the one model the cluster's live agents serve for the backend, or the one
// options.clusterDevice names. Throws InputError naming what is live when none or several fit.
MeasurementSetup clusterDeviceSetup(const std::string& backend, OperatorDefinition def,
                                    const BackendOptions& options,
                                    const std::string& storedDevice = {});

// The options agents measure a run's trials with, as its requests carry them, and back.
nlohmann::json measuringOptionsJson(const BackendOptions& options);
BackendOptions measuringOptionsFromJson(const nlohmann::json& j);

// How many devices of the backend this machine shows (0 when the backend is not here).
int localDeviceCount(const std::string& backend);

// This machine's devices for an agent of the backend (cpu, cuda, hip): their kind, name and
// limits as the cluster lists them: the first of them for a GPU backend, since a measurer uses
// device 0 of those it sees (an agent runs one process per GPU, each seeing one). Throws
// InputError when the backend is unknown or not here.
std::vector<cluster::ClusterDevice> localClusterDevices(const std::string& backend);

}  // namespace opevo
