#pragma once

#include <optional>
#include <string>

namespace opevo {
struct RunRecord;
}

namespace opevo::cluster {

// How a run measured by a cluster's agents says so in its stored label (RunRecord::label):
// "cpu: AMD EPYC 7763, 64 threads on the cluster at 10.0.0.5:6390", "replay of
// RTX_2080_Ti.json.gz (...) on the cluster at unix:/run/opevo.sock". One text for the backend
// that writes it and for the readers below.
std::string onClusterLabel(const std::string& address);

// The cluster address a stored run was measured on ("10.0.0.5:6390", "unix:/run/opevo.sock"),
// read from its label; nullopt for a run measured on one machine.
std::optional<std::string> clusterOfLabel(const std::string& label);
std::optional<std::string> clusterOfRun(const RunRecord& run);

// Why a resume must say where it measures: the run was measured on a cluster and the resume
// gives no --cluster (a resume on this machine would store trials of another device under the
// label of the cluster's). "run 6 was measured on the cluster at 10.0.0.5:6390: resume it with
// --cluster 10.0.0.5:6390, or with --here to measure the rest on this machine". nullopt when the
// resume may go on: the run was measured here, the resume names a cluster, or here is set.
std::optional<std::string> clusterResumeProblem(const RunRecord& run, bool resumeOnCluster,
                                                bool here);

}  // namespace opevo::cluster
