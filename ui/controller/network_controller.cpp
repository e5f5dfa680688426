#include "ui/controller/network_controller.h"

namespace opevo::ui {

NetworkController::NetworkController(QObject* parent)
    : QObject(parent),
      m_worker(new NetworkWorker(m_control)),
      m_toWorker(new ThreadInbox(m_worker)) {
  qRegisterMetaType<NetworkSnapshotPtr>();
  qRegisterMetaType<NetworkOutcome>();
  m_thread.setObjectName(QStringLiteral("opevo-networks"));
  m_worker->moveToThread(&m_thread);
  connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
  ThreadInbox::relay(m_worker, &NetworkWorker::updated, m_fromWorker,
                     [this](const NetworkSnapshotPtr& snapshot) { emit updated(snapshot); });
  ThreadInbox::relay(m_worker, &NetworkWorker::finished, m_fromWorker,
                     [this](const NetworkOutcome& outcome) {
                       m_busy = false;
                       m_stopping = false;
                       emit busyChanged(false);
                       emit finished(outcome);
                     });
  m_thread.start();
}

NetworkController::~NetworkController() {
  m_control.stop();
  m_thread.quit();
  m_thread.wait();
}

bool NetworkController::start(NetworkSpec spec) {
  const bool runnable = spec.resume || (!spec.network.empty() && spec.trials > 0 &&
                                        !spec.algorithms.empty() && !spec.schedulers.empty());
  if (m_busy || !runnable) return false;
  m_control.reset();
  m_busy = true;
  emit busyChanged(true);
  m_toWorker->post([worker = m_worker, spec = std::move(spec)] { worker->run(spec); });
  return true;
}

void NetworkController::stop() {
  if (!m_busy) return;
  m_stopping = true;
  m_control.stop();
}

}  // namespace opevo::ui
