#pragma once

#include <string>
#include <vector>

#include "cluster/redis_connection.h"

namespace opevo::cluster {

// The backlog of one device kind's trial stream: requests no agent has taken yet, and those an
// agent holds (being measured, or left by one that died until they are reclaimed).
struct TrialQueue {
  std::string kind;
  long long waiting = 0;
  long long inFlight = 0;
};

// Every trial stream on the cluster, in key order. `opevo cluster status` and the window's
// Cluster page both read it, so they agree.
std::vector<TrialQueue> trialQueues(RedisConnection& redis);

}  // namespace opevo::cluster
