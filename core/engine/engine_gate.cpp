#include "engine/engine_gate.h"

namespace opevo {

void EngineGate::pause() {
  std::lock_guard lock(m_mutex);
  if (m_paused || m_stopped) return;
  m_paused = true;
  m_pausedSince = Clock::now();
  m_changed.notify_all();
}

void EngineGate::resume() {
  std::lock_guard lock(m_mutex);
  if (!m_paused) return;
  m_paused = false;
  m_pausedTotal += std::chrono::duration<double>(Clock::now() - m_pausedSince).count();
  m_changed.notify_all();
}

void EngineGate::stop() {
  std::lock_guard lock(m_mutex);
  if (m_paused) {
    m_paused = false;
    m_pausedTotal += std::chrono::duration<double>(Clock::now() - m_pausedSince).count();
  }
  m_stopped = true;
  m_changed.notify_all();
}

bool EngineGate::paused() const {
  std::lock_guard lock(m_mutex);
  return m_paused;
}

bool EngineGate::stopped() const {
  std::lock_guard lock(m_mutex);
  return m_stopped;
}

bool EngineGate::waitWhilePaused() {
  std::unique_lock lock(m_mutex);
  m_changed.wait(lock, [this] { return !m_paused || m_stopped.load(); });
  return !m_stopped;
}

void EngineGate::pace(int ms) {
  if (ms <= 0) return;
  std::unique_lock lock(m_mutex);
  m_changed.wait_until(lock, Clock::now() + std::chrono::milliseconds(ms),
                       [this] { return m_stopped.load(); });
}

double EngineGate::pausedSecondsLocked() const {
  double total = m_pausedTotal;
  if (m_paused) total += std::chrono::duration<double>(Clock::now() - m_pausedSince).count();
  return total;
}

double EngineGate::pausedSeconds() const {
  std::lock_guard lock(m_mutex);
  return pausedSecondsLocked();
}

}  // namespace opevo
