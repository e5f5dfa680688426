#include "ui/handoff/thread_inbox.h"

namespace opevo::ui {

ThreadInbox::ThreadInbox(QObject* parent) : QObject(parent) {
  // Made here, before any other thread can post: the slot object Qt keeps for this connection is
  // written once, by the thread that builds the inbox.
  QObject::connect(this, &ThreadInbox::posted, this, &ThreadInbox::drain, Qt::QueuedConnection);
}

void ThreadInbox::post(std::function<void()> call) {
  bool wake = false;
  {
    std::lock_guard lock(m_mutex);
    wake = m_calls.empty();  // a wake-up already queued will run this call as well
    m_calls.push_back(std::move(call));
  }
  if (wake) emit posted();
}

void ThreadInbox::drain() {
  std::vector<std::function<void()>> calls;
  {
    std::lock_guard lock(m_mutex);
    calls.swap(m_calls);
  }
  // Outside the lock: a call may run for long (a whole race on the engine thread) or post again.
  for (auto& call : calls) call();
}

}  // namespace opevo::ui
