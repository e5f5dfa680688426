#include "ui/race_gate.h"

namespace opevo::ui {

void RaceGate::pause() {
  std::lock_guard lock(m_mutex);
  if (m_paused || m_stopped) return;
  m_paused = true;
  m_pausedSince = Clock::now();
  m_changed.notify_all();
}

void RaceGate::resume() {
  std::lock_guard lock(m_mutex);
  if (!m_paused) return;
  m_paused = false;
  m_pausedTotal += std::chrono::duration<double>(Clock::now() - m_pausedSince).count();
  m_changed.notify_all();
}

void RaceGate::stop() {
  std::lock_guard lock(m_mutex);
  if (m_paused) {
    m_paused = false;
    m_pausedTotal += std::chrono::duration<double>(Clock::now() - m_pausedSince).count();
  }
  m_stopped = true;
  m_changed.notify_all();
}

void RaceGate::reset() {
  std::lock_guard lock(m_mutex);
  m_paused = false;
  m_stopped = false;
  m_pausedTotal = 0;
}

bool RaceGate::paused() const {
  std::lock_guard lock(m_mutex);
  return m_paused;
}

bool RaceGate::stopped() const {
  std::lock_guard lock(m_mutex);
  return m_stopped;
}

double RaceGate::pausedSecondsLocked() const {
  double total = m_pausedTotal;
  if (m_paused) total += std::chrono::duration<double>(Clock::now() - m_pausedSince).count();
  return total;
}

double RaceGate::pausedSeconds() const {
  std::lock_guard lock(m_mutex);
  return pausedSecondsLocked();
}

bool RaceGate::checkpoint(int paceMs) {
  std::unique_lock lock(m_mutex);
  if (paceMs > 0 && !m_stopped) {
    // A pause during the pace does not shorten it: the trial "takes" paceMs of tuning time.
    const auto until = Clock::now() + std::chrono::milliseconds(paceMs);
    m_changed.wait_until(lock, until, [this] { return m_stopped; });
  }
  m_changed.wait(lock, [this] { return !m_paused || m_stopped; });
  return !m_stopped;
}

std::vector<Measurement> GatedMeasurer::measure(const std::vector<Config>& configs) {
  std::vector<Measurement> results(configs.size());
  measureEach(configs, [&](std::size_t i, const Measurement& m) { results[i] = m; });
  return results;
}

void GatedMeasurer::measureEach(const std::vector<Config>& configs, const TrialCallback& done) {
  const auto stopped = [this] {
    if (m_stopHook) m_stopHook();
  };
  if (m_gate.stopped()) {
    stopped();
    return;
  }
  bool open = true;
  // After a stop the rest of the batch is dropped: the session then ends at its next check,
  // and the tuner never hears of trials nobody will see.
  m_inner.measureEach(configs, [&](std::size_t i, const Measurement& m) {
    if (!open) return;
    done(i, m);
    open = m_gate.checkpoint(m_paceMs);
    if (!open) stopped();
  });
}

}  // namespace opevo::ui
