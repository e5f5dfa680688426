#pragma once

#include <atomic>
#include <mutex>

namespace opevo {
class Engine;
}

namespace opevo::ui {

// Pause, resume and stop pressed in the GUI thread, passed to the engine of the race in progress
// (which lives on the engine thread's stack), and remembered while there is none yet: a stop
// pressed while the measurer starts or the reference library is timed still ends the race.
class RaceControl {
 public:
  void pause();
  void resume();
  void stop();
  void reset();  // for the next race
  bool stopped() const;
  // Set by stop() until reset(): a measurer that waits on others (a cluster's agents) returns
  // at once instead of finishing its batch.
  const std::atomic<bool>* cancelFlag() const { return &m_cancel; }

  // Engine thread: the engine now running (pending pause and stop applied), or none.
  void attach(Engine* engine);

 private:
  mutable std::mutex m_mutex;
  Engine* m_engine = nullptr;
  bool m_paused = false;
  bool m_stopped = false;
  std::atomic<bool> m_cancel{false};
};

}  // namespace opevo::ui
