#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QThread>
#include <QTimer>
#include <atomic>

#include "ui/controller/kas_types.h"
#include "ui/handoff/thread_inbox.h"

namespace opevo::ui {

class KasWorker;

// The window's handle on kernel searches, as NetworkController is for network races: it owns the
// search thread, every call returns at once, and snapshots arrive as queued signals, at most one
// every KasWorker::kFlushIntervalMs (a burst is coalesced into its newest).
class KasController : public QObject {
  Q_OBJECT

 public:
  explicit KasController(QObject* parent = nullptr);
  // Stops a search in progress (it stays resumable) and waits for the thread: the step in hand
  // (a training child is killed at once; a tuning trial ends first).
  ~KasController() override;

  // False (and nothing happens) while a search runs.
  bool start(KasSpec spec);
  void stop();
  bool busy() const { return m_busy; }
  bool stopping() const { return m_stopping; }
  // The search running now (0 until the thread has stored it, and when idle).
  std::int64_t runningSearch() const { return m_busy ? m_runningId : 0; }

 signals:
  void busyChanged(bool busy);
  void updated(opevo::ui::KasSnapshotPtr snapshot);
  void finished(opevo::ui::KasOutcome outcome);

 private:
  void deliver();

  QThread m_thread;
  std::atomic<bool> m_stop{false};
  KasWorker* m_worker;
  ThreadInbox* m_toWorker;  // the worker's child, on the search thread
  ThreadInbox m_fromWorker;
  KasSnapshotPtr m_pending;  // the newest snapshot not yet delivered
  QTimer m_deliverTimer;
  QElapsedTimer m_sinceDelivery;
  std::int64_t m_runningId = 0;
  bool m_busy = false;
  bool m_stopping = false;
};

}  // namespace opevo::ui
