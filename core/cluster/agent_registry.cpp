#include "cluster/agent_registry.h"

#include <cstdlib>
#include <set>
#include <sstream>
#include <tuple>

#include "cluster/cluster_errors.h"
#include "cluster/cluster_keys.h"
#include "cluster/stream_entry.h"

namespace opevo::cluster {
namespace {

ClusterDevice deviceFromJson(const nlohmann::json& j) {
  ClusterDevice d;
  d.kind = j.at("kind").get<std::string>();
  d.backend = j.at("backend").get<std::string>();
  d.name = j.at("name").get<std::string>();
  d.capacity = j.value("capacity", 1);
  d.delayMs = j.value("delay_ms", 0);
  d.maxSharedBytes = j.value("max_shared_bytes", 0LL);
  d.trialsDone = j.value("trials_done", 0LL);
  d.current = j.value("current", std::string());
  return d;
}

}  // namespace

long long AgentRecord::trialsDone() const {
  long long n = 0;
  for (const ClusterDevice& d : devices) n += d.trialsDone;
  return n;
}

nlohmann::json toJson(const ClusterDevice& d) {
  return {{"kind", d.kind},
          {"backend", d.backend},
          {"name", d.name},
          {"capacity", d.capacity},
          {"delay_ms", d.delayMs},
          {"max_shared_bytes", d.maxSharedBytes},
          {"trials_done", d.trialsDone},
          {"current", d.current}};
}

nlohmann::json toJson(const AgentRecord& a) {
  nlohmann::json devices = nlohmann::json::array();
  for (const ClusterDevice& d : a.devices) devices.push_back(toJson(d));
  return {{"id", a.id},           {"host", a.host},         {"pid", a.pid},
          {"backend", a.backend}, {"hardware", a.hardware}, {"version", a.version},
          {"started", a.started}, {"beat_ms", a.beatMs},    {"trials_done", a.trialsDone()},
          {"devices", devices}};
}

namespace {

// KEYS: the agent's hash, the set of agents. ARGV: host, pid, force, ttl in ms, id, then the
// hash's fields and values. The first claim also stamps the record with the cluster's clock
// (registered_us): scripts run one at a time, so of two agents registering at once one is first.
constexpr const char* kClaimScript = R"lua(
local held = redis.call('HMGET', KEYS[1], 'host', 'pid', 'beat_ms')
if ARGV[3] ~= '1' and held[1] and (held[1] ~= ARGV[1] or held[2] ~= ARGV[2]) then
  return {held[1], held[2] or '0', held[3] or '0'}
end
redis.call('HSET', KEYS[1], unpack(ARGV, 6))
if redis.call('HEXISTS', KEYS[1], 'registered_us') == 0 then
  local now = redis.call('TIME')
  redis.call('HSET', KEYS[1], 'registered_us',
             string.format('%d%06d', tonumber(now[1]), tonumber(now[2])))
end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('SADD', KEYS[2], ARGV[5])
return 0
)lua";

std::vector<std::string> recordFields(const AgentRecord& a) {
  nlohmann::json devices = nlohmann::json::array();
  for (const ClusterDevice& d : a.devices) devices.push_back(toJson(d));
  return {"id",       a.id,
          "host",     a.host,
          "pid",      std::to_string(a.pid),
          "backend",  a.backend,
          "hardware", a.hardware,
          "version",  a.version,
          "started",  a.started,
          "beat_ms",  std::to_string(a.beatMs),
          "devices",  devices.dump()};
}

std::string ttlMs(double seconds) {
  return std::to_string(static_cast<long long>(seconds * 1000));
}

}  // namespace

void publishAgent(RedisConnection& redis, const AgentRecord& a, double ttlSeconds) {
  const std::string key = agentKey(a.id);
  std::vector<std::string> hset = {"HSET", key};
  const std::vector<std::string> fields = recordFields(a);
  hset.insert(hset.end(), fields.begin(), fields.end());
  const auto replies =
      redis.pipeline({hset, {"PEXPIRE", key, ttlMs(ttlSeconds)}, {"SADD", kAgentsSet, a.id}});
  for (const RedisValue& r : replies)
    if (r.isError()) throw ClusterReplyError("registering agent " + a.id + ": " + r.text);
}

std::optional<AgentRecord> claimAgent(RedisConnection& redis, const AgentRecord& a,
                                      double ttlSeconds, bool force) {
  std::vector<std::string> eval = {"EVAL",
                                   kClaimScript,
                                   "2",
                                   agentKey(a.id),
                                   kAgentsSet,
                                   a.host,
                                   std::to_string(a.pid),
                                   force ? "1" : "0",
                                   ttlMs(ttlSeconds),
                                   a.id};
  const std::vector<std::string> fields = recordFields(a);
  eval.insert(eval.end(), fields.begin(), fields.end());
  const RedisValue r = redis.command(eval);
  if (r.isError()) throw ClusterReplyError("registering agent " + a.id + ": " + r.text);
  if (!r.isArray() || r.elements.size() < 3) return std::nullopt;
  AgentRecord held;
  held.id = a.id;
  held.host = r.elements[0].str();
  held.pid = std::strtol(r.elements[1].str().c_str(), nullptr, 10);
  held.beatMs = std::strtoll(r.elements[2].str().c_str(), nullptr, 10);
  return held;
}

namespace {

// "cuda:0,2" -> {"cuda", {"0", "2"}}; "cpu" -> {"cpu", {}}; "cuda:all" -> {"cuda", {}}.
std::pair<std::string, std::set<std::string>> hardwareParts(const std::string& h) {
  const std::size_t colon = h.find(':');
  std::set<std::string> devices;
  if (colon != std::string::npos && h.substr(colon + 1) != "all") {
    std::stringstream list(h.substr(colon + 1));
    for (std::string d; std::getline(list, d, ',');) devices.insert(d);
  }
  return {h.substr(0, colon), devices};
}

}  // namespace

std::optional<AgentRecord> sharingHardware(const std::vector<AgentRecord>& live,
                                           const AgentRecord& self) {
  if (self.hardware.empty()) return std::nullopt;
  const auto [kind, devices] = hardwareParts(self.hardware);
  for (const AgentRecord& a : live) {
    if (a.id == self.id || a.host != self.host || a.hardware.empty()) continue;
    // Only an agent registered first counts (by the cluster's clock; at once, the smaller id):
    // two started together each see the other, and one of them must go on serving. Not by
    // start time: an agent that started first may register second, after the other checked.
    if (std::tie(a.registeredUs, a.id) > std::tie(self.registeredUs, self.id)) continue;
    const auto [otherKind, otherDevices] = hardwareParts(a.hardware);
    if (otherKind != kind) continue;
    // An empty list is every device of the kind (or the cores): it meets any other list.
    bool meet = devices.empty() || otherDevices.empty();
    for (const std::string& d : devices) meet = meet || otherDevices.count(d) > 0;
    if (meet) return a;
  }
  return std::nullopt;
}

void withdrawAgent(RedisConnection& redis, const std::string& id) {
  redis.pipeline({{"DEL", agentKey(id)}, {"SREM", kAgentsSet, id}});
}

std::vector<AgentRecord> liveAgents(RedisConnection& redis, std::vector<std::string>* problems) {
  const RedisValue ids = redis.call({"SMEMBERS", kAgentsSet});
  std::vector<std::vector<std::string>> reads;
  for (const RedisValue& id : ids.elements) reads.push_back({"HGETALL", agentKey(id.str())});
  const std::vector<RedisValue> records =
      reads.empty() ? std::vector<RedisValue>{} : redis.pipeline(reads);
  std::vector<AgentRecord> out;
  std::vector<std::string> expired;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const std::string id = ids.elements[i].str();
    if (!records[i].isArray() || records[i].elements.empty()) {
      expired.push_back(id);
      continue;
    }
    StreamEntry e;  // a hash reads like an entry's fields
    e.id = agentKey(id);
    const auto& kv = records[i].elements;
    for (std::size_t k = 0; k + 1 < kv.size(); k += 2) e.fields[kv[k].str()] = kv[k + 1].str();
    try {
      AgentRecord a;
      a.id = e.field("id", "agent record");
      a.host = e.fieldOr("host", "");
      a.pid = std::atol(e.fieldOr("pid", "0").c_str());
      a.backend = e.fieldOr("backend", "");
      a.hardware = e.fieldOr("hardware", "");
      a.version = e.fieldOr("version", "");
      a.started = e.fieldOr("started", "");
      a.beatMs = std::atoll(e.fieldOr("beat_ms", "0").c_str());
      a.registeredUs = std::atoll(e.fieldOr("registered_us", "0").c_str());
      const nlohmann::json devices =
          nlohmann::json::parse(e.field("devices", "agent record"), nullptr, false);
      if (!devices.is_array())
        throw ClusterMessageError("agent record " + e.id + ": field 'devices' is not a JSON list");
      for (const nlohmann::json& d : devices) a.devices.push_back(deviceFromJson(d));
      out.push_back(std::move(a));
    } catch (const ClusterMessageError& err) {
      if (problems) problems->push_back(err.what());
    } catch (const nlohmann::json::exception& err) {
      if (problems) problems->push_back("agent record " + e.id + ": " + err.what());
    }
  }
  if (!expired.empty()) {
    std::vector<std::string> srem = {"SREM", kAgentsSet};
    srem.insert(srem.end(), expired.begin(), expired.end());
    redis.command(srem);
  }
  return out;
}

}  // namespace opevo::cluster
