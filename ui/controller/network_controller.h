#pragma once

#include <QObject>
#include <QThread>

#include "ui/controller/network_types.h"
#include "ui/controller/network_worker.h"
#include "ui/handoff/thread_inbox.h"

namespace opevo::ui {

// The window's handle on network races, as EngineController is for operator races: it owns the
// network thread, every call returns at once, and snapshots arrive
// through a ThreadInbox.
class NetworkController : public QObject {
  Q_OBJECT

 public:
  explicit NetworkController(QObject* parent = nullptr);
  // Stops a race in progress (its runs stay resumable) and waits for the thread.
  ~NetworkController() override;

  // False (and nothing happens) while a race runs, or when the spec has nothing to run.
  bool start(NetworkSpec spec);
  void stop();
  bool busy() const { return m_busy; }
  bool stopping() const { return m_stopping; }

 signals:
  void busyChanged(bool busy);
  void updated(opevo::ui::NetworkSnapshotPtr snapshot);
  void finished(opevo::ui::NetworkOutcome outcome);

 private:
  QThread m_thread;
  NetworkWorker* m_worker;
  ThreadInbox* m_toWorker;  // the worker's child, on the network thread
  ThreadInbox m_fromWorker;
  NetworkControl m_control;
  bool m_busy = false;
  bool m_stopping = false;
};

}  // namespace opevo::ui
