#pragma once

#include <QElapsedTimer>
#include <QObject>

#include "ui/race_types.h"

namespace opevo::ui {

class RaceGate;

// Lives in the engine thread and runs one race at a time: one TuningSession per (repeat,
// algorithm), repeat-major so every algorithm's curve appears early. Trials are gathered and
// handed over a few times a second as one immutable EngineUpdate, never one signal per trial.
class EngineWorker : public QObject {
  Q_OBJECT

 public:
  // Updates are sent at most this often (plus one at the end of every run).
  static constexpr int kFlushIntervalMs = 50;

  explicit EngineWorker(RaceGate& gate) : m_gate(gate) {}

  // Blocks the engine thread until the race ends; the gate pauses or stops it from outside.
  void run(const RaceSpec& spec);

 signals:
  void updated(opevo::ui::EngineUpdatePtr update);
  void finished(opevo::ui::RaceOutcome outcome);

 private:
  void flush(bool force);

  RaceGate& m_gate;
  EngineUpdate m_pending;
  QElapsedTimer m_sinceFlush;
};

}  // namespace opevo::ui
