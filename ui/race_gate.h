#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>

#include "engine/measurement.h"

namespace opevo::ui {

// Pause, resume and stop for a race, shared by the GUI thread (which flips the state) and the
// engine thread (which waits on it between trials). Core's TuningSession has no pause of its own,
// so the engine waits inside the measurer, where a session naturally hands over control.
class RaceGate {
 public:
  using Clock = std::chrono::steady_clock;

  void pause();
  void resume();
  void stop();
  void reset();  // for the next race
  bool paused() const;
  bool stopped() const;

  // Engine thread: waits while paused (returns at once when stopped), then sleeps the pace
  // (cut short by a stop or a pause). Returns false when the race is stopped.
  bool checkpoint(int paceMs);
  // Total time spent paused since reset(), the current pause included.
  double pausedSeconds() const;

 private:
  double pausedSecondsLocked() const;

  mutable std::mutex m_mutex;
  std::condition_variable m_changed;
  bool m_paused = false;
  bool m_stopped = false;
  Clock::time_point m_pausedSince;
  double m_pausedTotal = 0;
};

// A Measurer that passes every measurement through a gate: each trial is handed on, then the
// gate may hold the engine (pause) or slow it (pace). For a replay every trial of a batch is
// already answered, so a pause takes effect between two trials.
class GatedMeasurer final : public Measurer {
 public:
  GatedMeasurer(Measurer& inner, RaceGate& gate, int paceMs)
      : m_inner(inner), m_gate(gate), m_paceMs(paceMs) {}

  std::string label() const override { return m_inner.label(); }
  bool isReplay() const override { return m_inner.isReplay(); }
  std::string speedUnit() const override { return m_inner.speedUnit(); }
  std::string device() const override { return m_inner.device(); }
  std::vector<Measurement> measure(const std::vector<Config>& configs) override;
  void measureEach(const std::vector<Config>& configs, const TrialCallback& done) override;
  // Called on the engine thread when the gate is found stopped: the session must stop too, or
  // it would keep proposing batches that are never measured.
  void setStopHook(std::function<void()> hook) { m_stopHook = std::move(hook); }

 private:
  Measurer& m_inner;
  RaceGate& m_gate;
  int m_paceMs;
  std::function<void()> m_stopHook;
};

}  // namespace opevo::ui
