#include "ui/controller/cluster_controller.h"

#include "ui/controller/cluster_poller.h"

namespace opevo::ui {

ClusterController::ClusterController(QObject* parent)
    : QObject(parent), m_poller(new ClusterPoller), m_toPoller(new ThreadInbox(m_poller)) {
  qRegisterMetaType<ClusterSnapshotPtr>();
  m_thread.setObjectName(QStringLiteral("opevo-cluster-poll"));
  m_poller->moveToThread(&m_thread);
  connect(&m_thread, &QThread::finished, m_poller, &QObject::deleteLater);
  ThreadInbox::relay(m_poller, &ClusterPoller::polled, m_fromPoller,
                     [this](const ClusterSnapshotPtr& snapshot) {
                       if (!m_target || snapshot->generation != m_generation) return;
                       m_latest = snapshot;
                       emit polled(snapshot);
                     });
  m_thread.start();
}

ClusterController::~ClusterController() {
  m_toPoller->post([poller = m_poller] { poller->unwatch(); });
  m_thread.quit();
  m_thread.wait();
}

void ClusterController::watch(const ClusterTarget& target, int intervalMs) {
  m_target = target;
  m_latest.reset();
  const quint64 generation = ++m_generation;
  m_toPoller->post([poller = m_poller, target, intervalMs, generation] {
    poller->watch(target, intervalMs, generation);
  });
  emit targetChanged();
}

void ClusterController::unwatch() {
  if (!m_target) return;
  m_target.reset();
  m_latest.reset();
  ++m_generation;
  m_toPoller->post([poller = m_poller] { poller->unwatch(); });
  emit targetChanged();
}

}  // namespace opevo::ui
