#include "cluster/stream_entry.h"

namespace opevo::cluster {

const std::string& StreamEntry::field(const std::string& name, const std::string& what) const {
  const auto it = fields.find(name);
  if (it == fields.end() || it->second.empty())
    throw ClusterMessageError(what + " " + id + ": field '" + name + "' is " +
                              (it == fields.end() ? "missing" : "empty"));
  return it->second;
}

std::string StreamEntry::fieldOr(const std::string& name, const std::string& fallback) const {
  const auto it = fields.find(name);
  return it == fields.end() ? fallback : it->second;
}

std::vector<StreamEntry> entriesOf(const RedisValue& list) {
  std::vector<StreamEntry> out;
  if (!list.isArray()) return out;
  for (const RedisValue& item : list.elements) {
    if (!item.isArray() || item.elements.size() < 2 || !item.elements[1].isArray()) continue;
    StreamEntry e;
    e.id = item.elements[0].str();
    const auto& kv = item.elements[1].elements;
    for (std::size_t i = 0; i + 1 < kv.size(); i += 2) e.fields[kv[i].str()] = kv[i + 1].str();
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<StreamEntry> entriesOfRead(const RedisValue& reply) {
  std::vector<StreamEntry> out;
  if (!reply.isArray()) return out;
  for (const RedisValue& stream : reply.elements) {
    if (!stream.isArray() || stream.elements.size() < 2) continue;
    for (StreamEntry& e : entriesOf(stream.elements[1])) out.push_back(std::move(e));
  }
  return out;
}

}  // namespace opevo::cluster
