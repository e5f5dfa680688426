#include "ui/controller/kas_controller.h"

#include "ui/controller/kas_worker.h"

namespace opevo::ui {

KasController::KasController(QObject* parent)
    : QObject(parent), m_worker(new KasWorker(m_stop)), m_toWorker(new ThreadInbox(m_worker)) {
  qRegisterMetaType<KasSnapshotPtr>();
  qRegisterMetaType<KasOutcome>();
  m_thread.setObjectName(QStringLiteral("opevo-kas"));
  m_worker->moveToThread(&m_thread);
  connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
  m_deliverTimer.setSingleShot(true);
  connect(&m_deliverTimer, &QTimer::timeout, this, &KasController::deliver);
  ThreadInbox::relay(
      m_worker, &KasWorker::updated, m_fromWorker, [this](const KasSnapshotPtr& snapshot) {
        m_runningId = snapshot->searchId;
        m_pending = snapshot;
        if (m_deliverTimer.isActive()) return;
        const qint64 since =
            m_sinceDelivery.isValid() ? m_sinceDelivery.elapsed() : KasWorker::kFlushIntervalMs;
        if (since >= KasWorker::kFlushIntervalMs)
          deliver();
        else
          m_deliverTimer.start(static_cast<int>(KasWorker::kFlushIntervalMs - since));
      });
  ThreadInbox::relay(m_worker, &KasWorker::finished, m_fromWorker,
                     [this](const KasOutcome& outcome) {
                       // The search's last state reaches the page before its end does.
                       m_deliverTimer.stop();
                       deliver();
                       m_busy = false;
                       m_stopping = false;
                       m_runningId = 0;
                       emit busyChanged(false);
                       emit finished(outcome);
                     });
  m_thread.start();
}

KasController::~KasController() {
  m_stop = true;
  m_thread.quit();
  m_thread.wait();
}

bool KasController::start(KasSpec spec) {
  if (m_busy) return false;
  m_stop = false;
  m_busy = true;
  m_runningId = spec.resume.value_or(0);
  emit busyChanged(true);
  m_toWorker->post([worker = m_worker, spec = std::move(spec)] { worker->run(spec); });
  return true;
}

void KasController::stop() {
  if (!m_busy) return;
  m_stopping = true;
  m_stop = true;
}

void KasController::deliver() {
  if (!m_pending) return;
  m_sinceDelivery.restart();
  KasSnapshotPtr snapshot = std::move(m_pending);
  m_pending.reset();
  emit updated(snapshot);
}

}  // namespace opevo::ui
