#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cluster/agent_registry.h"
#include "cluster/redis_connection.h"
#include "cluster/retry.h"
#include "cluster/trial_messages.h"

namespace opevo::cluster {

struct ClusterSessionOptions {
  // Progress and trouble worth a line on standard error: an outage, a lost trial sent again, a
  // long wait and what it waits for.
  std::function<void(const std::string&)> notice;
  // Set from a signal handler (Ctrl-C): measurement returns at once with what it has.
  const std::atomic<bool>* cancel = nullptr;
  double lossCheckSeconds = 2;    // how often trials in flight are checked for loss
  double waitNoticeSeconds = 15;  // without a result this long, say what is awaited
  double liveTtlSeconds = 15;     // the master's liveness key lives this long without a refresh
};

struct ClusterSessionStats {
  long long sent = 0;        // requests added, re-sent ones included
  long long resent = 0;      // requests found lost and sent again
  long long duplicates = 0;  // results of trials already answered, dropped
  long long results = 0;     // results taken
};

// A master's link to the cluster, shared by every measurer of one process: one session id (its
// trials' ids and its results stream), one connection used by the thread that measures, and a
// heartbeat thread keeping the session's liveness key, so agents skip the trials of a master that
// died. Only the master writes the store: the session just hands results to the engine.
class ClusterSession {
 public:
  // Connects at once: ClusterUnreachable or ClusterAuthError when the cluster cannot be used,
  // before anything is stored.
  ClusterSession(ClusterEndpoint endpoint, std::string password,
                 ClusterSessionOptions options = {});
  // Stops the heartbeat and removes the session's keys.
  ~ClusterSession();
  ClusterSession(const ClusterSession&) = delete;
  ClusterSession& operator=(const ClusterSession&) = delete;

  const std::string& id() const { return m_id; }
  const ClusterEndpoint& endpoint() const { return m_endpoint; }
  std::vector<AgentRecord> agents();
  ClusterSessionStats stats() const { return m_stats; }

  struct Item {
    RequestType type = RequestType::Measure;
    std::string config;
    bool retiming = false;  // TrialRequest::retiming
  };
  // Sends each item to the kind's stream and calls done(index, result) once per item, for the
  // first result of each, in the order results come. Lost requests are sent again, duplicate
  // results dropped. Returns early (some items unanswered) when the cancel flag is set. An
  // exception from done ends it; the requests still out are withdrawn.
  void measure(const std::string& kind, const nlohmann::json& task, const std::vector<Item>& items,
               const std::function<void(std::size_t, const TrialResult&)>& done);

 private:
  struct Flight;
  void send(const std::string& stream, std::vector<Flight*>& flights);
  void checkLost(const std::string& stream, std::vector<Flight*>& flights);
  std::vector<StreamEntry> readResults(int blockMs);
  // Says what the unanswered flights wait for: the live devices serving the kind (or the command
  // that starts one), and the agents no longer live that still hold some of them.
  void waitNotice(const std::string& kind, const nlohmann::json& task, const std::string& stream,
                  const std::vector<Flight*>& flights);
  void heartbeat();
  RetryPolicy policy() const;

  ClusterEndpoint m_endpoint;
  std::string m_password;
  ClusterSessionOptions m_options;
  std::string m_id;
  std::string m_results;
  std::string m_masterKey;
  RedisConnection m_redis;
  std::string m_lastResult = "0-0";
  long long m_nextTrial = 1;
  std::set<std::string> m_groups;  // streams whose consumer group exists
  ClusterSessionStats m_stats;
  std::mutex m_beatMutex;
  std::condition_variable m_beatWake;
  bool m_stopping = false;
  std::thread m_beat;
};

}  // namespace opevo::cluster
