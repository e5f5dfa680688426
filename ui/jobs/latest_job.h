#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QtConcurrent/QtConcurrentRun>
#include <functional>
#include <optional>
#include <utility>

namespace opevo::ui {

// A computation run off the GUI thread (Qt's thread pool) whose result is delivered on the GUI
// thread only while it is still the latest asked for: reading a dataset, a history, a layout, a
// q-walk distribution. A newer start() or a cancel() makes the job in flight stale; its result is
// dropped rather than shown. The computation must own copies of what it reads: it may outlive
// the window (Qt's pool finishes it at exit), and a destroyed LatestJob delivers nothing.
template <typename T>
class LatestJob {
 public:
  enum class Overlap {
    Allowed,      // each start() runs at once, beside any stale job still in flight
    NewestWaits,  // one at a time: while one runs, only the newest request waits for its turn
  };
  using Compute = std::function<T()>;
  using Deliver = std::function<void(T)>;

  explicit LatestJob(Overlap overlap = Overlap::Allowed) : m_overlap(overlap) {}
  LatestJob(const LatestJob&) = delete;
  LatestJob& operator=(const LatestJob&) = delete;

  void start(Compute compute, Deliver deliver) {
    ++m_generation;
    if (m_overlap == Overlap::NewestWaits && m_inFlight > 0) {
      m_waiting = Job{std::move(compute), std::move(deliver)};
      return;
    }
    run(Job{std::move(compute), std::move(deliver)});
  }
  // The job in flight, and any waiting one, will deliver nothing.
  void cancel() {
    ++m_generation;
    m_waiting.reset();
  }
  // True until the latest job has delivered its result (or was cancelled).
  bool busy() const {
    return m_waiting.has_value() || (m_inFlight > 0 && m_runningGeneration == m_generation);
  }

 private:
  struct Job {
    Compute compute;
    Deliver deliver;
  };

  void run(Job job) {
    const quint64 generation = m_generation;
    m_runningGeneration = generation;
    ++m_inFlight;
    // The watcher belongs to m_context: destroying this object destroys it, and its signal with it.
    auto* watcher = new QFutureWatcher<T>(&m_context);
    QObject::connect(watcher, &QFutureWatcher<T>::finished, &m_context,
                     [this, watcher, generation, deliver = std::move(job.deliver)] {
                       watcher->deleteLater();
                       --m_inFlight;
                       const bool latest = generation == m_generation;
                       if (m_waiting) {
                         Job next = std::move(*m_waiting);
                         m_waiting.reset();
                         run(std::move(next));
                       }
                       if (latest) deliver(watcher->result());
                     });
    watcher->setFuture(QtConcurrent::run(std::move(job.compute)));
  }

  Overlap m_overlap;
  QObject m_context;
  std::optional<Job> m_waiting;
  quint64 m_generation = 0;
  quint64 m_runningGeneration = 0;
  int m_inFlight = 0;
};

}  // namespace opevo::ui
