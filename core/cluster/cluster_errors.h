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

// Redis answered a command with an error (e.g. a key of the wrong type on a shared instance).
class ClusterReplyError : public std::runtime_error {
 public:
  explicit ClusterReplyError(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace opevo::cluster
