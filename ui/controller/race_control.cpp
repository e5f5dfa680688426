#include "ui/controller/race_control.h"

#include "engine/interleaved_engines.h"

namespace opevo::ui {

void RaceControl::pause() {
  std::lock_guard lock(m_mutex);
  m_paused = true;
  if (m_engines) m_engines->pause();
}

void RaceControl::resume() {
  std::lock_guard lock(m_mutex);
  m_paused = false;
  if (m_engines) m_engines->resume();
}

void RaceControl::stop() {
  std::lock_guard lock(m_mutex);
  m_stopped = true;
  m_cancel = true;
  if (m_engines) m_engines->stop();
}

void RaceControl::reset() {
  std::lock_guard lock(m_mutex);
  m_paused = false;
  m_stopped = false;
  m_cancel = false;
}

bool RaceControl::stopped() const {
  std::lock_guard lock(m_mutex);
  return m_stopped;
}

void RaceControl::attach(InterleavedEngines* engines) {
  std::lock_guard lock(m_mutex);
  m_engines = engines;
  if (!engines) return;
  if (m_stopped) engines->stop();
  if (m_paused) engines->pause();
}

}  // namespace opevo::ui
