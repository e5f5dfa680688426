#include "cli/cluster_cli.h"

#include <atomic>
#include <cstdio>

#include "cluster/cluster_errors.h"
#include "cluster/cluster_password.h"
#include "cluster/cluster_session.h"
#include "common/error.h"

namespace opevo::cli {
namespace {

std::atomic<bool> g_cancel{false};

}  // namespace

void addClusterOptions(CLI::App* cmd, ClusterChoice& choice, bool withDevice) {
  cmd->add_option("--cluster", choice.address,
                  "Measure on the agents of this cluster (HOST:PORT or unix:PATH; the password "
                  "from --password-file, OPEVO_CLUSTER_PASSWORD or OPEVO_CLUSTER_PASSWORD_FILE)");
  cmd->add_option("--password-file", choice.passwordFile, cluster::passwordFileHelp());
  if (withDevice)
    cmd->add_option("--cluster-device", choice.device,
                    "With several device models of the backend on the cluster: a part of the "
                    "wanted one's name");
}

std::shared_ptr<cluster::ClusterSession> openClusterSession(const ClusterChoice& choice,
                                                            bool quiet) {
  if (choice.address.empty()) {
    if (!choice.device.empty()) throw InputError("--cluster-device needs --cluster");
    if (!choice.passwordFile.empty()) throw InputError("--password-file needs --cluster");
    return nullptr;
  }
  const cluster::ClusterEndpoint endpoint = cluster::parseEndpoint(choice.address);
  if (const auto warning = cluster::passwordFileWarning(choice.passwordFile))
    std::fprintf(stderr, "opevo: warning: %s\n", warning->c_str());
  cluster::ClusterSessionOptions options;
  options.cancel = &g_cancel;
  if (!quiet)
    options.notice = [](const std::string& text) {
      std::fprintf(stderr, "cluster: %s\n", text.c_str());
    };
  try {
    return std::make_shared<cluster::ClusterSession>(
        endpoint, cluster::clusterPassword(choice.passwordFile), options);
  } catch (const cluster::ClusterWrongAddress& e) {
    throw InputError(e.what());
  } catch (const cluster::ClusterUnreachable& e) {
    throw InputError(std::string(e.what()) +
                     " (is opevo cluster serve running there, and reachable from here?)");
  }
}

void cancelClusterFromSignal() {
  g_cancel.store(true);
}

std::string firstStopText(const ClusterChoice& choice, const std::string& onThisMachine) {
  return choice.address.empty()
             ? onThisMachine
             : "stopping now: the trials the cluster's agents hold are not waited for";
}

nlohmann::json clusterJson(const cluster::ClusterSession& session) {
  const cluster::ClusterSessionStats s = session.stats();
  return {{"address", session.endpoint().text()},
          {"sent", s.sent},
          {"resent", s.resent},
          {"duplicates", s.duplicates}};
}

std::string clusterHint(const ClusterChoice& choice) {
  if (choice.address.empty()) return {};
  return " --cluster " + choice.address +
         (choice.passwordFile.empty() ? std::string() : " --password-file " + choice.passwordFile);
}

}  // namespace opevo::cli
