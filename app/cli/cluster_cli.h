#pragma once

// What the commands that measure (tune, compare, net tune) share to measure on a cluster.

#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

namespace opevo::cluster {
class ClusterSession;
}

namespace opevo::cli {

struct ClusterChoice {
  std::string address;       // --cluster; empty: measure on this machine
  std::string device;        // --cluster-device
  std::string passwordFile;  // --password-file; empty: the environment's password
};

// --cluster HOST:PORT, --password-file FILE and, when withDevice, --cluster-device TEXT.
void addClusterOptions(CLI::App* cmd, ClusterChoice& choice, bool withDevice = true);

// The session the run's measurers share, connected and authenticated (the password from
// --password-file, else OPEVO_CLUSTER_PASSWORD or OPEVO_CLUSTER_PASSWORD_FILE); null without
// --cluster. Its outages and
// long waits are told on standard error unless quiet. Throws InputError when the cluster cannot
// be reached or refuses the password: nothing is stored before that.
std::shared_ptr<cluster::ClusterSession> openClusterSession(const ClusterChoice& choice,
                                                            bool quiet);

// From a Ctrl-C handler: the cluster's measurers stop waiting for results. Async-signal-safe.
void cancelClusterFromSignal();

// What the first Ctrl-C says it does: `onThisMachine` ("stopping after the trial in hand ...")
// where the trials are measured here; on a cluster the measurers stop waiting at once (the agents
// may be gone, or hold a trial for minutes), the trials the agents hold are dropped and a resume
// proposes again, and it says so.
std::string firstStopText(const ClusterChoice& choice, const std::string& onThisMachine);

// {"address", "sent", "resent", "duplicates"}: what the session's measurers sent and dropped.
nlohmann::json clusterJson(const cluster::ClusterSession& session);

// " --cluster HOST:PORT" (and its --password-file) for a resume hint, empty without one.
std::string clusterHint(const ClusterChoice& choice);

}  // namespace opevo::cli
