#pragma once

#include <QObject>
#include <functional>
#include <mutex>
#include <vector>

namespace opevo::ui {

// Calls handed from one thread to the thread this object lives in, run there in the order they
// were posted. A queued Qt signal would do the same, but it synchronises the two threads inside
// libQt6Core with futexes; against a Qt not built with ThreadSanitizer (Debian's), a TSan build
// sees no order between the sender that built a value and the receiver that reads it, and reports
// every hand-over as a race. Here the calls and everything they captured pass under a std::mutex,
// which TSan sees, and Qt only carries a wake-up with no arguments through a connection made
// before the threads share anything.
class ThreadInbox : public QObject {
  Q_OBJECT

 public:
  explicit ThreadInbox(QObject* parent = nullptr);

  // Any thread: `call` runs on this object's thread, after the calls posted before it.
  void post(std::function<void()> call);

  // Runs `slot(args...)` on `inbox`'s thread each time `sender` emits `signal`, from any thread,
  // with copies of the signal's arguments: the replacement for a queued connection. For our own
  // signals: Qt's private ones pass a tag argument that `slot` would have to take.
  template <typename Sender, typename Signal, typename Slot>
  static void relay(Sender* sender, Signal signal, ThreadInbox& inbox, Slot slot) {
    QObject::connect(
        sender, signal, &inbox,
        [&inbox, slot](const auto&... args) { inbox.post([slot, args...] { slot(args...); }); },
        Qt::DirectConnection);
  }

 signals:
  void posted();

 private:
  void drain();

  std::mutex m_mutex;
  std::vector<std::function<void()>> m_calls;
};

}  // namespace opevo::ui
