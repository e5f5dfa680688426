#include "ui/handoff/run_on_pool.h"

#include <QRunnable>
#include <QThreadPool>
#include <deque>
#include <mutex>

namespace opevo::ui {
namespace {

struct WorkQueue {
  std::mutex mutex;
  std::deque<std::function<void()>> work;
};

// Never destroyed: the pool may still run work while the program exits.
WorkQueue& queue() {
  static auto* queue = new WorkQueue;
  return *queue;
}

// One runnable, started once per piece of work and never deleted: each run takes the oldest work
// waiting. It has no state for two threads to share.
class Runner final : public QRunnable {
 public:
  Runner() { setAutoDelete(false); }
  void run() override {
    std::function<void()> work;
    {
      std::lock_guard lock(queue().mutex);
      work = std::move(queue().work.front());
      queue().work.pop_front();
    }
    work();
  }
};

Runner& runner() {
  static auto* runner = new Runner;
  return *runner;
}

}  // namespace

void runOnPool(std::function<void()> work) {
  {
    std::lock_guard lock(queue().mutex);
    queue().work.push_back(std::move(work));
  }
  QThreadPool::globalInstance()->start(&runner());
}

}  // namespace opevo::ui
