#include "ui/controller/network_controller.h"

namespace opevo::ui {

NetworkController::NetworkController(QObject* parent)
    : QObject(parent), m_worker(new NetworkWorker(m_control)) {
  qRegisterMetaType<NetworkSnapshotPtr>();
  qRegisterMetaType<NetworkOutcome>();
  m_thread.setObjectName(QStringLiteral("opevo-networks"));
  m_worker->moveToThread(&m_thread);
  connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
  connect(m_worker, &NetworkWorker::updated, this, &NetworkController::updated,
          Qt::QueuedConnection);
  connect(
      m_worker, &NetworkWorker::finished, this,
      [this](const NetworkOutcome& outcome) {
        m_busy = false;
        m_stopping = false;
        emit busyChanged(false);
        emit finished(outcome);
      },
      Qt::QueuedConnection);
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
  QMetaObject::invokeMethod(
      m_worker, [worker = m_worker, spec = std::move(spec)] { worker->run(spec); },
      Qt::QueuedConnection);
  return true;
}

void NetworkController::stop() {
  if (!m_busy) return;
  m_stopping = true;
  m_control.stop();
}

}  // namespace opevo::ui
