#pragma once

#include <memory>
#include <string>

namespace opevo::cluster {
class ClusterSession;
struct ClusterSessionOptions;
}  // namespace opevo::cluster

namespace opevo::ui {

// Where the window's cluster listens and where its password comes from. The password itself is
// kept nowhere (neither here nor in QSettings): whichever thread connects reads it then, from
// passwordFile's first line, else from OPEVO_CLUSTER_PASSWORD (cluster/cluster_password.h).
struct ClusterTarget {
  std::string address;       // HOST:PORT, unix:PATH, or a socket's path
  std::string passwordFile;  // empty: the environment

  bool operator==(const ClusterTarget&) const = default;
};

// Where the password is read from, for messages: "the password file /x/pw",
// "OPEVO_CLUSTER_PASSWORD" or "OPEVO_CLUSTER_PASSWORD_FILE"; empty when none is set.
std::string passwordSource(const ClusterTarget& target);

// The password (cluster::clusterPassword), with the window's words for a password file that
// cannot be read: InputError naming the file.
std::string readPassword(const ClusterTarget& target);

// What the window says when the cluster at `endpoint` refuses our password (or wants one and
// none is set): where it came from, and what to do in the window about it.
std::string passwordRefused(const ClusterTarget& target, const std::string& endpoint);

// A master's session on the target for a race (call it on the engine thread: it connects and
// authenticates). Throws InputError saying what to do when the cluster cannot be reached, refuses
// the password, or the address or password file is wrong; nothing is stored before that.
std::shared_ptr<cluster::ClusterSession> openClusterSession(const ClusterTarget& target,
                                                            cluster::ClusterSessionOptions options);

}  // namespace opevo::ui
