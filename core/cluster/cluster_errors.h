#pragma once

#include <stdexcept>
#include <string>

#include "common/error.h"

namespace opevo::cluster {

// The cluster refused us: a wrong or missing password. The user's to fix, so it is an InputError
// (front ends print it and exit with status 2); retrying would not help.
class ClusterAuthError : public InputError {
 public:
  explicit ClusterAuthError(const std::string& message) : InputError(message) {}
};

// The server could not be reached, or the connection broke mid-command. Callers that can wait
// (agents, a master in the middle of a run) reconnect with back-off; others report it.
class ClusterUnreachable : public std::runtime_error {
 public:
  explicit ClusterUnreachable(const std::string& message) : std::runtime_error(message) {}
};

// The address names a host that cannot be resolved, or a server that is not Redis (a web server,
// say). Mid-run it is retried like any outage (a DNS hiccup, a port taken over for a moment); a
// program that meets it before it ever reached the cluster gives up: waiting will not fix a
// mistyped --cluster.
class ClusterWrongAddress : public ClusterUnreachable {
 public:
  explicit ClusterWrongAddress(const std::string& message) : ClusterUnreachable(message) {}
};

// Redis answered a command with an error (e.g. a key of the wrong type on a shared instance).
class ClusterReplyError : public std::runtime_error {
 public:
  explicit ClusterReplyError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace opevo::cluster
