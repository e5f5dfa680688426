#pragma once

#include <string>

namespace opevo::cluster {

// Where the cluster's Redis listens: HOST:PORT over TCP, or a Unix socket (unix:/path, or any
// text with a slash and no colon-port, e.g. /run/opevo/redis.sock).
struct ClusterEndpoint {
  std::string host;  // empty for a Unix socket
  int port = 0;
  std::string unixPath;  // empty for TCP

  bool isUnix() const { return !unixPath.empty(); }
  // "127.0.0.1:6390" or "unix:/tmp/x/redis.sock": what --cluster accepts back.
  std::string text() const;
};

// Throws InputError naming `what` (e.g. "--cluster") and the text for anything else: a missing
// or non-numeric port, a port outside 1-65535, an empty host.
ClusterEndpoint parseEndpoint(const std::string& text, const std::string& what = "--cluster");

}  // namespace opevo::cluster
