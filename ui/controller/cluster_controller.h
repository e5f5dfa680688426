#pragma once

#include <QObject>
#include <QThread>
#include <optional>

#include "ui/controller/cluster_target.h"
#include "ui/controller/cluster_types.h"
#include "ui/handoff/thread_inbox.h"

namespace opevo::ui {

class ClusterPoller;

// The window's handle on a cluster it watches. Lives in the GUI thread and owns the poll thread;
// every call returns at once and snapshots arrive as queued `polled` signals. Snapshots of a
// cluster watched before the latest watch() or unwatch() are dropped, so a slow answer from an
// old address never shows under a new one.
class ClusterController : public QObject {
  Q_OBJECT

 public:
  static constexpr int kDefaultIntervalMs = 1000;

  explicit ClusterController(QObject* parent = nullptr);
  // Waits for the poll in hand (bounded by ClusterPoller's short timeouts).
  ~ClusterController() override;

  void watch(const ClusterTarget& target, int intervalMs = kDefaultIntervalMs);
  void unwatch();
  // The cluster watched; nullopt when none.
  const std::optional<ClusterTarget>& target() const { return m_target; }
  // The newest snapshot of the cluster watched; null before its first one and when none is.
  const ClusterSnapshotPtr& latest() const { return m_latest; }

 signals:
  void targetChanged();
  void polled(opevo::ui::ClusterSnapshotPtr snapshot);

 private:
  QThread m_thread;
  ClusterPoller* m_poller;
  ThreadInbox* m_toPoller;  // the poller's child, on the polling thread
  ThreadInbox m_fromPoller;
  std::optional<ClusterTarget> m_target;
  ClusterSnapshotPtr m_latest;
  quint64 m_generation = 0;
};

}  // namespace opevo::ui
