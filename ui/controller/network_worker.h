#pragma once

#include <QObject>
#include <memory>
#include <mutex>
#include <vector>

#include "ui/controller/network_types.h"

namespace opevo::net {
class NetworkSession;
}

namespace opevo::ui {

// Stop pressed in the GUI thread, passed to every network run of the race in progress (they
// commit the trial in hand and stop), and remembered while there are none yet.
class NetworkControl {
 public:
  void stop();
  void reset();
  bool stopped() const;
  // Network thread: the sessions now running (a pending stop is applied), or none.
  void attach(std::vector<net::NetworkSession*> sessions);

 private:
  mutable std::mutex m_mutex;
  std::vector<net::NetworkSession*> m_sessions;
  bool m_stopped = false;
};

// Lives in the network thread and runs one network race at a time: libtorch's forward timed
// first (the line the curves aim at), then each contender's units in turn (each one a stored
// network run, so a stop or a kill leaves them resumable), then each tuned network run end to
// end against libtorch. A snapshot of the whole race goes to the window after every unit.
class NetworkWorker : public QObject {
  Q_OBJECT

 public:
  explicit NetworkWorker(NetworkControl& control) : m_control(control) {}

  // Blocks the network thread until the race ends.
  void run(const NetworkSpec& spec);

 signals:
  void updated(opevo::ui::NetworkSnapshotPtr snapshot);
  void finished(opevo::ui::NetworkOutcome outcome);

 private:
  NetworkOutcome race(const NetworkSpec& spec);
  void publish();

  NetworkControl& m_control;
  NetworkSnapshot m_snapshot;
};

}  // namespace opevo::ui
