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
  // A network session holds its network run, and each task's only when it resumed them.
  std::optional<bool> held = RunLock::isHeld(m_path, LockedKind::Run, run.id);
  if (held == true) return RunStatus::Running;
  if (const auto network = m_networkOf.find(run.id); network != m_networkOf.end()) {
    const std::optional<bool> viaNetwork =
        RunLock::isHeld(m_path, LockedKind::Network, network->second);
    if (viaNetwork == true) return RunStatus::Running;
    if (!viaNetwork) held.reset();
  }
  // Where the file system cannot say, the stored status stands.
  return held.value_or(true) ? RunStatus::Running : RunStatus::Interrupted;
}

RunStatus LiveStatus::of(const KasSearchRecord& search) const {
  if (search.status != RunStatus::Running) return search.status;
  return RunLock::isHeld(m_path, LockedKind::KasSearch, search.id).value_or(true)
             ? RunStatus::Running
             : RunStatus::Interrupted;
}

RunStatus LiveStatus::of(const NetworkRecord& network) const {
  if (network.status != RunStatus::Running) return network.status;
  return RunLock::isHeld(m_path, LockedKind::Network, network.id).value_or(true)
             ? RunStatus::Running
             : RunStatus::Interrupted;
}

}  // namespace opevo
