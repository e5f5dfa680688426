#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

namespace opevo {

// Pause, resume and stop of an engine, flipped from any thread (a window's button, a signal
// handler's flag is read elsewhere) and waited on by the thread that steps the engine, between
// two trials. It also keeps the time spent paused, which is not tuning time.
class EngineGate {
 public:
  using Clock = std::chrono::steady_clock;

  void pause();
  void resume();
  void stop();
  // A stop that only sets a flag: safe in a signal handler (no lock, no wake-up). The engine
  // sees it at its next trial; a pause in progress is not ended by it.
  void stopFromSignal() { m_stopped = true; }
  bool paused() const;
  bool stopped() const;

  // Waits while paused; returns false at once when stopped.
  bool waitWhilePaused();
  // Sleeps ms (a replay's pace), cut short by a stop; a pause meanwhile does not shorten it.
  void pace(int ms);
  // Total time spent paused so far, the current pause included.
  double pausedSeconds() const;

 private:
  double pausedSecondsLocked() const;

  mutable std::mutex m_mutex;
  std::condition_variable m_changed;
  bool m_paused = false;
  std::atomic<bool> m_stopped{false};
  Clock::time_point m_pausedSince;
  double m_pausedTotal = 0;
};

}  // namespace opevo
