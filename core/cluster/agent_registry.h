#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cluster/redis_connection.h"

namespace opevo::cluster {

// A device an agent measures on. Each has one consumer on its kind's stream and one worker.
struct ClusterDevice {
  std::string kind;     // the stream it serves (device_kind.h)
  std::string backend;  // cpu, cuda, hip, replay
  std::string name;     // the device as the store records it
  int capacity = 1;     // trials it measures at a time
  int delayMs = 0;      // a replay's simulated measurement time per trial (labelled as such)
  long long maxSharedBytes = 0;  // a GPU's dynamic shared memory per block (0: not a GPU)
  long long trialsDone = 0;
  std::string current;  // the trial it is measuring, empty when idle
};

// An agent as it describes itself in opevo:agent:<id>, refreshed by each heartbeat.
struct AgentRecord {
  std::string id;
  std::string host;
  long pid = 0;
  std::string backend;
  // What of its host it times kernels on: "cpu", "cuda:all", "cuda:2" (the devices
  // CUDA_VISIBLE_DEVICES or HIP_VISIBLE_DEVICES leave it); empty for a replay, which times nothing.
  std::string hardware;
  std::string version;
  std::string started;   // UTC, ISO 8601
  long long beatMs = 0;  // the last heartbeat, ms since the epoch
  // When its record was first written, by the cluster's clock (µs since the epoch; 0 unknown).
  long long registeredUs = 0;
  std::vector<ClusterDevice> devices;

  long long trialsDone() const;
};

nlohmann::json toJson(const ClusterDevice& d);
nlohmann::json toJson(const AgentRecord& a);

// Writes the agent's record with a lifetime of ttlSeconds and lists its id: called at start and
// by every heartbeat (so an agent that was stopped, or a Redis that lost its data, gets it back).
void publishAgent(RedisConnection& redis, const AgentRecord& agent, double ttlSeconds);
// As publishAgent, unless the id is held by another agent (a record of another host or pid that
// has not expired): then nothing is written and that agent's record (host, pid, beat_ms) comes
// back. With force the record is written whoever held the id (an agent of this host whose
// process is gone). Checked and written in one step, so two agents started at once with the same
// --name cannot both have it.
std::optional<AgentRecord> claimAgent(RedisConnection& redis, const AgentRecord& agent,
                                      double ttlSeconds, bool force = false);
// A live agent other than `self` on the same host timing on hardware `self` times on too (the
// cores, or a GPU both see), that registered first (registeredUs, then the smaller id):
// each slows the other's trials and both record the slowdown, so the later one gives way.
std::optional<AgentRecord> sharingHardware(const std::vector<AgentRecord>& live,
                                           const AgentRecord& self);
// An agent stopping cleanly takes itself off at once instead of waiting for its record to expire.
void withdrawAgent(RedisConnection& redis, const std::string& id);
// The agents whose record has not expired; ids whose record has are dropped from the list. A
// record that cannot be read is skipped and named in *problems (when given).
std::vector<AgentRecord> liveAgents(RedisConnection& redis,
                                    std::vector<std::string>* problems = nullptr);

}  // namespace opevo::cluster
