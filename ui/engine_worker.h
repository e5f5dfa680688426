#pragma once

#include <QElapsedTimer>
#include <QObject>

#include <optional>
#include <string>

#include "ui/race_types.h"

namespace opevo {
class Measurer;
class SearchSpace;
class Store;
class TuningSession;
}  // namespace opevo

namespace opevo::ui {

class GatedMeasurer;
class RaceGate;

// Lives in the engine thread and runs one race at a time: one TuningSession per (repeat,
// algorithm), repeat-major so every algorithm's curve appears early, on a replay or on a device
// backend; or one stored run, resumed. Trials are gathered and
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
  // Where a session's trials go on the chart, and the time budget the engine keeps for it.
  struct SessionPlace {
    int algorithm = 0;
    int repeat = 0;
    QString title;
    std::optional<double> seconds;
    double finishedSeconds = 0;  // tuning time of the race's runs before this one (for the ETA)
    double secondsBefore = 0;    // a resumed run's time before this session
  };

  void flush(bool force);
  void race(const RaceSpec& spec, Store* store);
  void resume(const RaceSpec& spec, Store& store);
  // Tells the GUI what measures, and times the reference library on a device.
  void announce(Measurer& measurer);
  // Times the reference library; the line moves when it is faster than before.
  void timeReference(Measurer& measurer);
  struct SessionEnd {
    std::string reason;  // why it ended ("stopped" when the gate stopped it)
    double seconds = 0;  // its tuning time, pauses excluded
  };
  // Runs one session to its end.
  SessionEnd runSession(TuningSession& session, GatedMeasurer& gated, const SearchSpace& space,
                         const SessionPlace& place);

  RaceGate& m_gate;
  EngineUpdate m_pending;
  QElapsedTimer m_sinceFlush;
  std::optional<ReferenceLine> m_reference;
};

}  // namespace opevo::ui
