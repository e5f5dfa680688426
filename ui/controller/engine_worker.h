#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "ui/controller/race_types.h"

namespace opevo {
struct BackendOptions;
class InterleavedEngines;
class Measurer;
class Store;
class StoreRecorder;
}  // namespace opevo

namespace opevo::ui {

class RaceControl;

// Lives in the engine thread and runs one race at a time on core's engine: the race's runs
// interleaved batch by batch on one measurer (a replay or a device backend), and a race across
// spaces as an engine per space interleaved on the device (InterleavedEngines), or stored runs,
// resumed. It observes the engine: trials are gathered and handed over a few times a second as one
// immutable EngineUpdate, never one signal per trial.
class EngineWorker : public QObject, private EngineObserver {
  Q_OBJECT

 public:
  // Updates are sent at most this often (plus one whenever a run ends).
  static constexpr int kFlushIntervalMs = 50;
  // The side-by-side timing after a race: `opevo tune`'s defaults (--side-by-side 5, of at most
  // 3 kernels), so the window's ratio is the CLI's.
  static constexpr int kSideBySideRounds = 5;
  static constexpr std::size_t kSideBySideKernels = 3;

  explicit EngineWorker(RaceControl& control) : m_control(control) {}

  // Blocks the engine thread until the race ends; the control pauses or stops it from outside.
  void run(const RaceSpec& spec);

 signals:
  void updated(opevo::ui::EngineUpdatePtr update);
  void finished(opevo::ui::RaceOutcome outcome);

 private:
  void trialMeasured(const TrialEvent& trial, const EngineProgress& progress) override;
  void runEnded(const RunState& run, const EngineProgress& progress) override;

  void flush(bool force);
  void setProgress(const EngineProgress& progress);
  // Steps the engines to their end; the outcome's message says why one failed, if one did.
  RaceOutcome drive(InterleavedEngines& engines);
  RaceOutcome race(const RaceSpec& spec, Store* store);
  RaceOutcome resume(const RaceSpec& spec, Store& store);
  // Where the race measures: here, or through the spec's cluster (connected now, on this thread).
  BackendOptions backendOptions(const RaceSpec& spec);
  // Tells the GUI what measures, and times the reference library on a device.
  void announce(Measurer& measurer);
  // Times the reference library; the line moves when it is faster than before.
  void timeReference(Measurer& measurer);
  // What the line is, for the note under the chart: which timing, of how many.
  QString referenceOrigin() const;
  // Once a race on a device has finished: its algorithms' best kernels and the library timed in
  // turns (core's timeSideBySide, as `opevo tune` does), handed to the GUI with the line. Across
  // spaces, the kernels of the space whose run reached the best speed: one measurer times them.
  void timeBesideLibrary(const InterleavedEngines& engines, Store* store);
  // A race whose every trial failed draws flat lines at zero: why, counted, and where they timed
  // out the trial's limit and how long the library takes a run of the operator here (`flops`, 0:
  // not known), as `opevo tune`'s error says. Empty where a trial worked.
  QString nothingWorkedNote(const InterleavedEngines& engines, const std::string& backend,
                            const BackendOptions& options, double flops) const;
  // The curve an algorithm index is drawn as ("opevo (joint)" across spaces).
  QString curveName(const RunPlan& plan) const;

  RaceControl& m_control;
  EngineUpdate m_pending;
  QElapsedTimer m_sinceFlush;
  std::optional<ReferenceLine> m_reference;
  int m_referenceTimings = 0;            // timings of the library in this race (or resume)
  std::int64_t m_storedReferenceOf = 0;  // the line is this resumed run's stored timing
  // The race in progress: its measurer (for the reference: the first space's), its engines (their
  // progress together), its stores, and how its runs are named.
  Measurer* m_measurer = nullptr;
  InterleavedEngines* m_engines = nullptr;
  std::vector<StoreRecorder*> m_recorders;
  QStringList m_curveNames;
  int m_repeats = 1;
  bool m_resumed = false;
  // Every trial's status in the race, a resumed run's stored ones included (nothingWorkedNote).
  std::vector<TrialStatus> m_statuses;
};

}  // namespace opevo::ui
