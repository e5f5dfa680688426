#pragma once

#include <atomic>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "cluster/cluster_errors.h"

namespace opevo::cluster {

// The waits between attempts to reach the cluster: 0.25 s, doubling to a ceiling, so a restart
// of Redis is noticed within a second and a long outage costs little.
class Backoff {
 public:
  explicit Backoff(double firstSeconds = 0.25, double maxSeconds = 8)
      : m_first(firstSeconds), m_max(maxSeconds), m_next(firstSeconds) {}
  double next();
  void reset() { m_next = m_first; }

 private:
  double m_first, m_max, m_next;
};

// Thrown out of a retry loop when its cancel flag was set (Ctrl-C, an agent shutting down).
class RetryCancelled : public std::runtime_error {
 public:
  RetryCancelled() : std::runtime_error("cancelled while waiting for the cluster") {}
};

struct RetryPolicy {
  // Told each failed attempt ("... ; retrying in 2 s") and the first success after them.
  std::function<void(const std::string&)> notice;
  const std::atomic<bool>* cancel = nullptr;
  double maxWaitSeconds = 8;
};

// Sleeps up to `seconds` in short steps; false as soon as *cancel is set.
bool sleepUnlessCancelled(double seconds, const std::atomic<bool>* cancel);

// "retrying in 0.5 s" and the like.
std::string retryingIn(double seconds);

// Calls attempt() until it finishes without ClusterUnreachable, waiting with back-off between
// tries and saying so through policy.notice. Other exceptions (a refused password) pass through;
// a set cancel flag throws RetryCancelled.
template <typename F>
auto retryUnreachable(const RetryPolicy& policy, F&& attempt) -> decltype(attempt()) {
  Backoff backoff(0.25, policy.maxWaitSeconds);
  bool lost = false;
  while (true) {
    if (policy.cancel && policy.cancel->load()) throw RetryCancelled();
    try {
      if constexpr (std::is_void_v<decltype(attempt())>) {
        attempt();
        if (lost && policy.notice) policy.notice("reached the cluster again");
        return;
      } else {
        auto result = attempt();
        if (lost && policy.notice) policy.notice("reached the cluster again");
        return result;
      }
    } catch (const ClusterUnreachable& e) {
      const double wait = backoff.next();
      if (policy.notice) policy.notice(std::string(e.what()) + "; " + retryingIn(wait));
      lost = true;
      if (!sleepUnlessCancelled(wait, policy.cancel)) throw RetryCancelled();
    }
  }
}

}  // namespace opevo::cluster
