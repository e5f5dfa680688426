#pragma once

#include <QtGlobal>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include "ui/handoff/run_on_pool.h"
#include "ui/handoff/thread_inbox.h"

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
  ~LatestJob() {
    std::lock_guard lock(m_link->mutex);
    m_link->owner = nullptr;
  }
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
    // Not while a stale job is still in flight once the latest has delivered: a dataset read
    // slowly, then replaced by a quicker one, kept the picker "still being read" (and refused a
    // start) until the stale read ended.
    return m_waiting.has_value() || (m_inFlight > 0 && m_runningGeneration == m_generation &&
                                     m_deliveredGeneration != m_generation);
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
    runOnPool([compute = std::move(job.compute), deliver = std::move(job.deliver), link = m_link,
               generation] {
      T result = compute();
      // The result reaches the GUI thread through the inbox, under the link's lock: a LatestJob
      // destroyed meanwhile has cut the link, and the result is dropped here.
      std::lock_guard lock(link->mutex);
      if (!link->owner) return;
      LatestJob* owner = link->owner;
      owner->m_inbox.post([owner, generation, deliver, result = std::move(result)] {
        owner->finished(generation, deliver, result);
      });
    });
  }

  void finished(quint64 generation, const Deliver& deliver, const T& result) {
    --m_inFlight;
    const bool latest = generation == m_generation;
    if (m_waiting) {
      Job next = std::move(*m_waiting);
      m_waiting.reset();
      run(std::move(next));
    }
    if (latest) {
      m_deliveredGeneration = generation;
      deliver(result);
    }
  }

  // Shared with the jobs in flight, which outlive this object when it is destroyed first.
  struct Link {
    explicit Link(LatestJob* job) : owner(job) {}
    std::mutex mutex;
    LatestJob* owner;
  };

  Overlap m_overlap;
  ThreadInbox m_inbox;  // results arrive here, on the GUI thread
  std::shared_ptr<Link> m_link = std::make_shared<Link>(this);
  std::optional<Job> m_waiting;
  quint64 m_generation = 0;
  quint64 m_runningGeneration = 0;
  quint64 m_deliveredGeneration = 0;  // the latest generation that has delivered its result
  int m_inFlight = 0;
};

}  // namespace opevo::ui
