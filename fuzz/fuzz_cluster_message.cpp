// A cluster stream entry (core/cluster/trial_messages.h) as another program may have put it on a
// stream: the bytes are split at newlines into the entry's id and then field, value, field,
// value..., turned into a StreamEntry through entriesOf as an XRANGE answer would be, and read as
// a trial request and as a trial result (its measurement through measurementFromJson). What
// parses is written back as fields and must parse again. A bad entry must end in
// ClusterMessageError (one bad message never stops an agent or a master), nothing else.

#include <optional>
#include <string>
#include <vector>

#include "cluster/trial_messages.h"

namespace {

using opevo::cluster::ClusterMessageError;
using opevo::cluster::RedisValue;
using opevo::cluster::StreamEntry;

RedisValue text(std::string s) {
  RedisValue v;
  v.type = RedisValue::Type::String;
  v.text = std::move(s);
  return v;
}

RedisValue array(std::vector<RedisValue> elements) {
  RedisValue v;
  v.type = RedisValue::Type::Array;
  v.elements = std::move(elements);
  return v;
}

StreamEntry entryOf(const std::string& id, const std::vector<std::string>& fields) {
  std::vector<RedisValue> kv;
  for (const std::string& f : fields) kv.push_back(text(f));
  const std::vector<StreamEntry> entries =
      opevo::cluster::entriesOf(array({array({text(id), array(std::move(kv))})}));
  if (entries.size() != 1) __builtin_trap();
  return entries[0];
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    const std::size_t end = bytes.find('\n', start);
    parts.push_back(bytes.substr(start, end == std::string::npos ? end : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  const StreamEntry e = entryOf(parts[0], {parts.begin() + 1, parts.end()});
  namespace cluster = opevo::cluster;
  // What parses is written back as the master or the agent would send it: reading that fails
  // (an exception escapes) or differs is a finding too.
  std::optional<cluster::TrialRequest> request;
  try {
    request = cluster::parseRequest(e);
  } catch (const ClusterMessageError&) {
  }
  if (request) {
    const cluster::TrialRequest again =
        cluster::parseRequest(entryOf(e.id, cluster::requestFields(*request)));
    if (again.trialId != request->trialId || again.type != request->type ||
        again.task.dump() != request->task.dump() || again.config != request->config ||
        again.sentMs != request->sentMs)
      __builtin_trap();
  }
  std::optional<cluster::TrialResult> result;
  try {
    result = cluster::parseResult(e);
  } catch (const ClusterMessageError&) {
  }
  if (result) {
    const cluster::TrialResult again =
        cluster::parseResult(entryOf(e.id, cluster::resultFields(*result)));
    if (again.trialId != result->trialId ||
        again.measurement.status != result->measurement.status ||
        again.measurement.message != result->measurement.message ||
        again.measurement.timesMs.size() != result->measurement.timesMs.size())
      __builtin_trap();
  }
  return 0;
}
