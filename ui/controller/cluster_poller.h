#pragma once

#include <QObject>
#include <memory>

#include "ui/controller/cluster_target.h"
#include "ui/controller/cluster_types.h"

class QTimer;

namespace opevo::cluster {
class RedisConnection;
}

namespace opevo::ui {

// Lives on the poll thread (ClusterController's) and reads the cluster there: live agents and
// trial queues, every interval, over one connection kept open between polls. Every blocking call
// to Redis happens here, never on the GUI thread.
class ClusterPoller : public QObject {
  Q_OBJECT

 public:
  // Short, so an unreachable host or a hung link costs one poll (and closing the window) seconds,
  // not the engine's patient defaults.
  static constexpr double kConnectTimeoutSeconds = 2;
  static constexpr double kCommandTimeoutSeconds = 3;

  explicit ClusterPoller(QObject* parent = nullptr);
  ~ClusterPoller() override;

  // Poll thread: reads the target now and then every intervalMs; snapshots carry `generation`.
  void watch(const ClusterTarget& target, int intervalMs, quint64 generation);
  void unwatch();

 signals:
  void polled(opevo::ui::ClusterSnapshotPtr snapshot);

 private:
  void poll();

  QTimer* m_timer;
  ClusterTarget m_target;
  quint64 m_generation = 0;
  std::unique_ptr<cluster::RedisConnection> m_redis;
};

}  // namespace opevo::ui
