#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "cluster/redis_connection.h"

namespace opevo::cluster {

// A message in the cluster's stream or hash that is not what it should be (a field missing, not
// JSON, of another version). Whoever reads it names the stream and entry in what() and carries
// on: one bad message never stops an agent or a master.
class ClusterMessageError : public std::runtime_error {
 public:
  explicit ClusterMessageError(const std::string& message) : std::runtime_error(message) {}
};

// One stream entry: its id and fields.
struct StreamEntry {
  std::string id;
  std::map<std::string, std::string> fields;

  // The field's value; ClusterMessageError naming `what` (e.g. "trial request"), the entry and
  // the field when it is missing or empty.
  const std::string& field(const std::string& name, const std::string& what) const;
  // The field's value, or `fallback` when it is missing.
  std::string fieldOr(const std::string& name, const std::string& fallback) const;
};

// The entries of a list as XRANGE and XAUTOCLAIM answer it ([[id, [field, value, ...]], ...]);
// ids whose entry was deleted (a nil in place of the fields) are left out.
std::vector<StreamEntry> entriesOf(const RedisValue& list);
// The entries of every stream of an XREAD/XREADGROUP answer (nil when it timed out: none).
std::vector<StreamEntry> entriesOfRead(const RedisValue& reply);

}  // namespace opevo::cluster
