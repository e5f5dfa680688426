#include "cluster/trial_queues.h"

#include <algorithm>

#include "cluster/cluster_keys.h"

namespace opevo::cluster {

std::vector<TrialQueue> trialQueues(RedisConnection& redis) {
  const std::string prefix = kTrialsPrefix;
  std::vector<TrialQueue> queues;
  // SCAN rather than KEYS: a shared Redis may hold many keys, and KEYS would stall it.
  std::string cursor = "0";
  do {
    const RedisValue page =
        redis.call({"SCAN", cursor, "MATCH", prefix + "*", "COUNT", "100", "TYPE", "stream"});
    cursor = page.elements.at(0).str();
    for (const RedisValue& key : page.elements.at(1).elements) {
      const auto replies =
          redis.pipeline({{"XLEN", key.str()}, {"XPENDING", key.str(), kConsumerGroup}});
      const long long length = replies[0].integer;
      // A stream whose group is not made yet has nothing pending (XPENDING answers an error).
      const long long pending =
          replies[1].isArray() && !replies[1].elements.empty() ? replies[1].elements[0].integer : 0;
      queues.push_back({key.str().substr(prefix.size()), length - pending, pending});
    }
  } while (cursor != "0");
  // SCAN may return a key twice and in any order.
  std::sort(queues.begin(), queues.end(),
            [](const TrialQueue& a, const TrialQueue& b) { return a.kind < b.kind; });
  queues.erase(
      std::unique(queues.begin(), queues.end(),
                  [](const TrialQueue& a, const TrialQueue& b) { return a.kind == b.kind; }),
      queues.end());
  return queues;
}

}  // namespace opevo::cluster
