#include "store/live_status.h"

#include "store/run_lock.h"
#include "store/store.h"

namespace opevo {

LiveStatus::LiveStatus(const Store& store) : m_path(store.path()) {
  for (const NetworkRecord& n : store.networks())
    for (std::int64_t run : n.taskRuns) m_networkOf[run] = n.id;
}

RunStatus LiveStatus::of(const RunRecord& run) const {
  if (run.status != RunStatus::Running) return run.status;
  // A network session holds its network run, not each task's.
  const auto network = m_networkOf.find(run.id);
  const bool held = network == m_networkOf.end()
                        ? RunLock::isHeld(m_path, LockedKind::Run, run.id)
                        : RunLock::isHeld(m_path, LockedKind::Network, network->second);
  return held ? RunStatus::Running : RunStatus::Interrupted;
}

RunStatus LiveStatus::of(const NetworkRecord& network) const {
  if (network.status != RunStatus::Running) return network.status;
  return RunLock::isHeld(m_path, LockedKind::Network, network.id) ? RunStatus::Running
                                                                  : RunStatus::Interrupted;
}

}  // namespace opevo
