#pragma once

#include <deque>
#include <utility>
#include <vector>

#include "ui/controller/cluster_types.h"

namespace opevo::ui {

// An agent as the Cluster page lists it: its newest record, whether it still beats, and how fast
// it has measured lately.
struct RosterAgent {
  cluster::AgentRecord record;
  bool live = true;
  long long goneSinceMs = 0;   // when a poll first missed it (its record had expired)
  double trialsPerSecond = 0;  // over the last kRateWindowMs of polls
  std::deque<std::pair<long long, long long>> recent;  // (polled ms, trials done)
};

// The agents of one cluster across polls. Redis forgets an agent whose heartbeat expired; the
// roster keeps it, marked gone, so a user sees which node died instead of a row vanishing.
class ClusterRoster {
 public:
  static constexpr long long kRateWindowMs = 5000;

  enum class Change {
    None,    // a failed poll: nothing is known that was not before
    Values,  // the same agents and devices, with new figures
    Rows,    // an agent or a device came, or an agent's device list changed
  };

  // Merges a poll; only a Live snapshot changes the agents. A failed one marks what was read
  // stale (Values: ages go on counting from its time).
  Change apply(const ClusterSnapshot& snapshot);
  void clear();

  // Sorted by id: rows keep their place as figures change.
  const std::vector<RosterAgent>& agents() const { return m_agents; }
  const std::vector<cluster::TrialQueue>& queues() const { return m_queues; }
  // When the agents and queues were last read (the last Live poll).
  long long polledMs() const { return m_polledMs; }
  // When the cluster was last asked (the last poll, read or not): ages count to it.
  long long nowMs() const { return m_nowMs; }
  // The last poll could not read the cluster: what is listed is how it stood at polledMs(), and
  // whether an agent still lives or what a device measures now is unknown.
  bool stale() const { return m_stale; }
  int liveCount() const;
  // Live agents' devices serving the kind.
  int devicesServing(const std::string& kind) const;

 private:
  std::vector<RosterAgent> m_agents;
  std::vector<cluster::TrialQueue> m_queues;
  long long m_polledMs = 0;
  long long m_nowMs = 0;
  bool m_stale = false;
};

}  // namespace opevo::ui
