#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cluster/agent_registry.h"
#include "cluster/cluster_endpoint.h"
#include "cluster/trial_consumer.h"

namespace opevo::agent {

struct AgentOptions {
  cluster::ClusterEndpoint endpoint;
  std::string password;
  std::string backend;  // cpu, cuda, hip, or replay:FILE
  int delayMs = 0;      // replay only
  double reclaimAfterSeconds = 15;
  double heartbeatSeconds = 2;
  std::string name;    // its id in the cluster; default host-pid
  bool quiet = false;  // only errors on standard error
  // Serve even when another agent of this host times on the same cores or GPU (its trials and
  // this one's then slow each other down).
  bool shareHardware = false;
};

// One node's agent: registers its devices with a heartbeat that expires, and runs one consumer
// (with its own worker process, for device backends) per device. Trials it holds are touched as
// often as it beats, so others take them over only when it stops (killed, or SIGSTOP).
class Agent {
 public:
  // Finds its devices: InputError for an unknown backend, one this machine lacks, a replay file
  // that cannot be read, or (a cpu agent) a C++ compiler that cannot build kernels: an agent that
  // could only fail every trial does not start.
  explicit Agent(AgentOptions options);
  ~Agent();

  // Until *stop is set: the trial being measured is answered first (posted, however long the
  // cluster takes to come back), one taken but not started is handed back for another agent to
  // take at once; then the agent takes itself off the cluster's list.
  // Waits for an unreachable cluster, saying so; throws ClusterAuthError when the password is
  // refused, and InputError when another live agent has its id (--name), or (unless
  // shareHardware) another agent of this host times on the same hardware.
  void run(const std::atomic<bool>& stop);

  const std::string& id() const { return m_record.id; }

 private:
  struct Device;
  void say(const std::string& text);
  // Publishes its record; the text of the problem when another agent holds its id.
  std::optional<std::string> beat(cluster::RedisConnection& redis);

  AgentOptions m_options;
  cluster::AgentRecord m_record;
  std::vector<std::unique_ptr<Device>> m_devices;
  std::atomic<bool> m_stop{false};
  std::mutex m_sayMutex;
  std::string m_lastSaid;
  long long m_lastSaidMs = 0;
  std::string m_authError;
  std::string m_nameError;
};

}  // namespace opevo::agent
