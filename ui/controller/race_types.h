#pragma once

#include <QMetaType>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/budget.h"
#include "engine/engine.h"
#include "engine/measurement.h"
#include "engine/race.h"
#include "io/replay_dataset.h"
#include "layout/tuning_mode.h"
#include "ui/controller/cluster_target.h"
#include "ui/controller/reference_line.h"

namespace opevo::ui {

using opevo::AlgorithmChoice;

// One space a device race tunes: the direct template's loops or layouts and loops (mode), or the
// loops of the template target names.
struct RaceSpace {
  layout::TuningMode mode = layout::TuningMode::Loop;
  SpaceTarget target = SpaceTarget::Common;
};

// Everything one race needs, copied into the engine thread when it starts; the GUI keeps no
// reference into it, so editing the form during a race changes nothing under the engine's feet.
struct RaceSpec {
  // "replay" races on the dataset; "cpu", "cuda" or "hip" measure the operator on the device.
  std::string backend = "replay";
  // Measured by this cluster's agents (serving the backend's device, or the dataset) instead of
  // on this machine; the store is still written here only.
  std::optional<ClusterTarget> cluster;
  std::shared_ptr<const ReplayDataset> dataset;  // replay only
  std::string operatorRef;                       // devices: a preset name or an operator file
  // Devices: the loops over plain layouts, or layouts and loops together (ALT's two stages).
  layout::TuningMode mode = layout::TuningMode::Loop;
  // Devices: Winograd or MatVec for the loops of the Winograd template (stride-1 Conv2Ds) or the
  // matrix-vector one (few rows of A) instead of the direct one; mode is then Loop.
  SpaceTarget target = SpaceTarget::Common;
  // Devices: the spaces the same algorithms race in besides mode and target's (the Runs page's
  // "Loops against layouts and loops"), each on an engine and measurer of its own, their runs
  // interleaved on the device (InterleavedEngines) and stored as one race. Empty: the one space.
  std::vector<RaceSpace> alsoIn;
  // Continue this stored run (its own algorithm, settings, seed and budget) instead of starting
  // new ones; the fields above and below, but for storePath, are then unused.
  std::optional<std::int64_t> resumeRun;
  // Its race-mates resumed beside it, as one race on one measurer (History's whole race after a
  // kill); the window lists and draws them as resumedRaceOf places them.
  std::vector<std::int64_t> resumeWith;
  // A new total for the resumed runs (History's More trials… on finished runs): the engine checks
  // it against each run's stored trials and stores it once it holds them, with the resume, so no
  // other program can take them between the two.
  std::optional<Budget> newBudget;
  std::vector<AlgorithmChoice> algorithms;
  int repeats = 1;
  std::optional<int> trials;
  // On the runs' budget clock (budgetClock, engine/budget.h): a replay's device time by its
  // file, a device's tuning time; paused time does not count.
  std::optional<double> seconds;
  std::optional<double> targetSpeed;
  std::uint64_t seed = 1;  // repeat r uses seed + r for every algorithm, as `opevo compare`
  // How the engine interleaves the race's runs on the measurer, batch by batch.
  Schedule schedule = Schedule::RoundRobin;
  // A replay answers at once; a pace makes it take this long per trial so a race can be watched.
  int paceMs = 0;
  std::string storePath;  // empty: nothing is stored
};

// One measured trial, as the GUI sees it. Plain values only: it crosses threads by copy.
struct TrialPoint {
  int algorithm = 0;     // index into RaceSpec::algorithms
  int repeat = 0;        // 0-based
  int seq = 0;           // 1-based within its run
  long long order = 0;   // 1-based order of measurement across the race
  std::int64_t run = 0;  // the run's id in the store, else its place in the race
  std::uint64_t seed = 0;
  QString config;
  TrialStatus status = TrialStatus::Ok;
  QString message;
  double speed = 0;
  double best = 0;     // best of its run so far
  double seconds = 0;  // tuning time of its run so far, pauses excluded
  // Its run's device time so far by the replayed file (engine/device_time.h: what the trials
  // measured so far cost the device that measured the file), for a run measured elsewhere (a
  // replay, an imported file); none where the run measures on a device here.
  std::optional<double> deviceSeconds;
  double medianMs = 0;
  double compileMs = 0;
  // The measurement's time, compiling excluded, and its check's (engine/measurement.h): with
  // compileMs what the trial cost the device (engine/device_time.h), which trials.csv adds up
  // into device_seconds when the window saves a race it holds whole (one that is not stored).
  double measureMs = 0;
  double verifyMs = 0;
  // Answered from stored trials, not measured: it cost the device nothing.
  bool reused = false;
  double tunerSeconds = 0;
  QString agent;  // the cluster agent that measured it; empty: this machine
};

// The point as trials.csv's record, under its algorithm's name, in its space (TrialRecord::space).
TrialRecord trialRecordOf(const TrialPoint& point, const QString& algorithm, const QString& space);

struct RaceProgress {
  int runsDone = 0;
  int runs = 0;
  long long trialsDone = 0;
  long long trialsPlanned = 0;  // 0 when the budget is not a number of trials
  double etaSeconds = -1;       // -1 when unknown
  QString current;              // "opevo, repeat 2 of 5"
};

// What the engine thread hands the GUI a few times a second: the trials measured since the last
// update and where the race stands. Immutable once sent.
struct EngineUpdate {
  std::vector<TrialPoint> trials;
  std::vector<std::pair<int, int>> runsEnded;  // (algorithm, repeat) of the runs that ended
  RaceProgress progress;
  QString measuring;                       // set once, when the measurer is ready: its label
  std::optional<ReferenceLine> reference;  // set once, when the reference has been timed
  // What a cluster measuring the race had to say since the last update: an outage, trials sent
  // again, a long wait and what it waits for.
  QStringList notices;
  // The store could not be opened: the race is not recorded, so the window keeps every trial.
  bool notStored = false;

  // Whether the engine has the race's runs in hand: it says what measures them, or sends a trial,
  // the reference or a run's end. Before that (a resume refused, a cluster's notices) the window
  // keeps what it showed.
  bool runsInHand() const {
    return !measuring.isEmpty() || !trials.empty() || reference || !runsEnded.empty();
  }
};

// The end of a race: why it ended, and the problems met (a bad setting, a store refused).
struct RaceOutcome {
  // Refused: nothing was measured, and the message says why (a run another process tunes, a
  // finished run, a setting the engine does not take): not a failure of the race.
  enum class End { Finished, Stopped, Failed, Refused };
  End end = End::Finished;
  QString message;
};

using EngineUpdatePtr = std::shared_ptr<const EngineUpdate>;

}  // namespace opevo::ui

Q_DECLARE_METATYPE(opevo::ui::EngineUpdatePtr)
Q_DECLARE_METATYPE(opevo::ui::RaceOutcome)
