#include "ui/controller/cluster_target.h"

#include <cstdlib>

#include "cluster/cluster_errors.h"
#include "cluster/cluster_password.h"
#include "cluster/cluster_session.h"
#include "common/error.h"

namespace opevo::ui {
namespace {

bool envSet(const char* name) {
  const char* value = std::getenv(name);
  return value && *value;
}

}  // namespace

std::string passwordSource(const ClusterTarget& target) {
  // The order cluster::clusterPassword reads them in.
  if (!target.passwordFile.empty()) return "the password file " + target.passwordFile;
  if (envSet("OPEVO_CLUSTER_PASSWORD")) return "OPEVO_CLUSTER_PASSWORD";
  if (envSet("OPEVO_CLUSTER_PASSWORD_FILE")) return "OPEVO_CLUSTER_PASSWORD_FILE";
  return {};
}

std::string readPassword(const ClusterTarget& target) {
  try {
    return cluster::clusterPassword(target.passwordFile);
  } catch (const InputError& e) {
    // Its messages name the command line's option; the window has a file chooser instead.
    const std::string option = "--password-file";
    std::string text = e.what();
    if (text.rfind(option, 0) == 0) text = "the password file" + text.substr(option.size());
    throw InputError(text);
  }
}

std::string passwordRefused(const ClusterTarget& target, const std::string& endpoint) {
  const std::string source = passwordSource(target);
  const std::string todo =
      "choose the file holding the password the cluster was started with (Password file… on "
      "the Cluster page, then Connect), or start the studio with OPEVO_CLUSTER_PASSWORD set";
  if (source.empty())
    return "the cluster at " + endpoint + " requires a password and none is set: " + todo;
  return "wrong password: the cluster at " + endpoint + " refused the password from " + source +
         "; " + todo;
}

std::shared_ptr<cluster::ClusterSession> openClusterSession(
    const ClusterTarget& target, cluster::ClusterSessionOptions options) {
  const cluster::ClusterEndpoint endpoint = cluster::parseEndpoint(target.address, "the cluster");
  const std::string password = readPassword(target);
  try {
    return std::make_shared<cluster::ClusterSession>(endpoint, password, std::move(options));
  } catch (const cluster::ClusterAuthError&) {
    throw InputError(passwordRefused(target, endpoint.text()));
  } catch (const cluster::ClusterUnreachable& e) {
    throw InputError(std::string(e.what()) +
                     " (is opevo cluster serve running there, and reachable from here?)");
  }
}

}  // namespace opevo::ui
