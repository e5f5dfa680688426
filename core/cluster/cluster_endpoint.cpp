#include "cluster/cluster_endpoint.h"

#include <charconv>

#include "common/error.h"

namespace opevo::cluster {

std::string ClusterEndpoint::text() const {
  if (isUnix()) return "unix:" + unixPath;
  // An IPv6 address needs brackets so the port stays readable.
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

ClusterEndpoint parseEndpoint(const std::string& text, const std::string& what) {
  const std::string expected =
      " (expected HOST:PORT such as 127.0.0.1:6390, or unix:/path/to/redis.sock)";
  ClusterEndpoint e;
  if (text.rfind("unix:", 0) == 0) {
    e.unixPath = text.substr(5);
    if (e.unixPath.empty()) throw InputError(what + " '" + text + "' names no socket" + expected);
    return e;
  }
  const auto colon = text.rfind(':');
  if (colon == std::string::npos) {
    if (text.find('/') != std::string::npos) {
      e.unixPath = text;
      return e;
    }
    throw InputError(what + " '" + text + "' has no port" + expected);
  }
  std::string host = text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  if (host.empty()) throw InputError(what + " '" + text + "' has no host" + expected);
  const std::string port = text.substr(colon + 1);
  int value = 0;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size())
    throw InputError(what + " '" + text + "': the port '" + port + "' is not a number" + expected);
  if (value < 1 || value > 65535)
    throw InputError(what + " '" + text + "': the port must be 1-65535, got " + port);
  e.host = host;
  e.port = value;
  return e;
}

}  // namespace opevo::cluster
