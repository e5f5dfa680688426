#include "ui/controller/race_control.h"

#include "engine/engine.h"

namespace opevo::ui {

void RaceControl::pause() {
  std::lock_guard lock(m_mutex);
  m_paused = true;
  if (m_engine) m_engine->pause();
}

void RaceControl::resume() {
  std::lock_guard lock(m_mutex);
  m_paused = false;
  if (m_engine) m_engine->resume();
}

void RaceControl::stop() {
  std::lock_guard lock(m_mutex);
  m_stopped = true;
  m_cancel = true;
  if (m_engine) m_engine->stop();
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

void RaceControl::attach(Engine* engine) {
  std::lock_guard lock(m_mutex);
  m_engine = engine;
  if (!engine) return;
  if (m_stopped) engine->stop();
  if (m_paused) engine->pause();
}

}  // namespace opevo::ui
