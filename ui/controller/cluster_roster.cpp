#include "ui/controller/cluster_roster.h"

#include <algorithm>
#include <map>

namespace opevo::ui {
namespace {

bool sameDevices(const cluster::AgentRecord& a, const cluster::AgentRecord& b) {
  if (a.devices.size() != b.devices.size()) return false;
  for (std::size_t i = 0; i < a.devices.size(); ++i)
    if (a.devices[i].kind != b.devices[i].kind || a.devices[i].name != b.devices[i].name)
      return false;
  return true;
}

void updateRate(RosterAgent& a, long long now) {
  const long long trials = a.record.trialsDone();
  // An agent restarted under the same name counts from zero again.
  if (!a.recent.empty() && trials < a.recent.back().second) a.recent.clear();
  a.recent.emplace_back(now, trials);
  while (a.recent.size() > 2 && now - a.recent.front().first > ClusterRoster::kRateWindowMs)
    a.recent.pop_front();
  const auto& [t0, n0] = a.recent.front();
  a.trialsPerSecond = now > t0 ? double(trials - n0) * 1000.0 / double(now - t0) : 0;
}

}  // namespace

ClusterRoster::Change ClusterRoster::apply(const ClusterSnapshot& s) {
  if (s.status != ClusterSnapshot::Status::Live) {
    // Nothing listed yet: nothing to mark.
    if (m_polledMs == 0) return Change::None;
    m_nowMs = s.polledMs;
    m_stale = true;
    return Change::Values;
  }
  m_polledMs = m_nowMs = s.polledMs;
  m_stale = false;
  bool rows = s.queues.size() != m_queues.size();
  for (std::size_t i = 0; !rows && i < s.queues.size(); ++i)
    rows = s.queues[i].kind != m_queues[i].kind;
  m_queues = s.queues;

  std::map<std::string, const cluster::AgentRecord*> live;
  for (const cluster::AgentRecord& a : s.agents) live[a.id] = &a;
  for (RosterAgent& a : m_agents) {
    const auto it = live.find(a.record.id);
    if (it == live.end()) {
      if (a.live) {
        a.live = false;
        a.goneSinceMs = s.polledMs;
        a.trialsPerSecond = 0;
        a.recent.clear();
      }
      continue;
    }
    rows = rows || !sameDevices(a.record, *it->second);
    a.record = *it->second;
    a.live = true;
    a.goneSinceMs = 0;
    updateRate(a, s.polledMs);
    live.erase(it);
  }
  for (const auto& [id, record] : live) {
    RosterAgent a;
    a.record = *record;
    updateRate(a, s.polledMs);
    m_agents.push_back(std::move(a));
    rows = true;
  }
  std::sort(m_agents.begin(), m_agents.end(),
            [](const RosterAgent& a, const RosterAgent& b) { return a.record.id < b.record.id; });
  return rows ? Change::Rows : Change::Values;
}

void ClusterRoster::clear() {
  m_agents.clear();
  m_queues.clear();
  m_polledMs = m_nowMs = 0;
  m_stale = false;
}

int ClusterRoster::liveCount() const {
  return static_cast<int>(
      std::count_if(m_agents.begin(), m_agents.end(), [](const RosterAgent& a) { return a.live; }));
}

int ClusterRoster::devicesServing(const std::string& kind) const {
  int n = 0;
  for (const RosterAgent& a : m_agents)
    if (a.live)
      for (const cluster::ClusterDevice& d : a.record.devices) n += d.kind == kind ? 1 : 0;
  return n;
}

}  // namespace opevo::ui
