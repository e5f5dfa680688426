#pragma once

#include <atomic>
#include <mutex>

namespace opevo {
class InterleavedEngines;
}

namespace opevo::ui {

// Pause, resume and stop pressed in the GUI thread, passed to the engines of the race in progress
// (which live on the engine thread's stack), and remembered while there is none yet: a stop
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

  // Engine thread: the engines now running (pending pause and stop applied), or none.
  void attach(InterleavedEngines* engines);

 private:
  mutable std::mutex m_mutex;
  InterleavedEngines* m_engines = nullptr;
  bool m_paused = false;
  bool m_stopped = false;
  std::atomic<bool> m_cancel{false};
};

}  // namespace opevo::ui
