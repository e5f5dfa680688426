#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/measurement.h"
#include "engine/run_status.h"
#include "engine/schedule.h"

namespace opevo {

// What the store keeps of a tuning run. JSON columns hold structured values verbatim so older
// builds can still read rows that newer ones wrote.
struct RunRecord {
  std::int64_t id = 0;
  std::string operatorName;
  std::string operatorJson;  // what rebuilds the space: an operator spec, or {"replay": path}
  std::string algorithm;
  std::string settingsJson;  // every tuner setting
  std::uint64_t seed = 0;
  std::string backend;     // cuda, hip, cpu, replay
  std::string device;      // device description
  std::string budgetJson;  // {"trials": N} or {"seconds": S} or {"target": T}
  RunStatus status = RunStatus::Running;
  EndReason endReason = EndReason::None;  // None while running, and for runs stored before v2
  std::string started;                    // ISO 8601 UTC
  std::string ended;
  std::string speedUnit;
  std::string label;  // what measured it, as shown: "replay of A100.json.gz (...)"
  // Race membership: 0 for a run of its own; else the race, its algorithm's place in the race
  // and the repeat (0-based).
  std::int64_t raceId = 0;
  int raceAlgorithm = 0;
  int raceRepeat = 0;
  // The vendor library's speed on the same operator and device, when it was timed.
  std::string referenceLibrary;
  std::optional<double> referenceSpeed;
  // Its best configurations and the library timed in turns after the trials (opevo tune's
  // "side by side"): {"config": the fastest there, "chosen_rank", "best_speed",
  // "reference_speed", "ratio", ...}; empty where none ran (schema 7).
  std::string sideBySideJson;
  // Why it ended badly, in words, as the error said it: a failed run's own error (its measurer
  // lost, the store full or locked, the tuner's fault), or for a run stopped because another run
  // of its engine failed, that failure. Empty otherwise, and for runs stored before schema 10.
  std::string failure;
  // How its race's engine took the race's runs in turn, and the seed of a shuffle (schema 12):
  // what its race's resume goes on under. Round-robin for a run of its own and for races stored
  // before schema 12.
  Schedule raceSchedule = Schedule::RoundRobin;
  std::uint64_t raceScheduleSeed = 1;
};

struct TrialRow {
  std::int64_t runId = 0;
  int seq = 0;          // 1-based order of measurement within the run
  long long order = 0;  // 1-based order of measurement within its race (its run, alone)
  std::string config;   // SearchSpace::format text
  TrialStatus status = TrialStatus::Ok;
  std::string message;
  std::vector<double> timesMs;
  double medianMs = 0;
  double speed = 0;
  double compileMs = 0;
  double verifyMs = 0;   // Measurement's; 0 when stored before v5
  double measureMs = 0;  // Measurement's; 0 when stored before v5
  double tunerMs = 0;    // TrialRecord::tunerSeconds in ms; 0 when stored before v6 or imported
  double seconds = 0;    // the run's tuning time at this trial (0 when stored before v2)
  std::string started;
  std::string finished;
  // The cluster agent that measured it (Measurement::agent); empty when the machine that ran the
  // engine measured it, and for trials stored before v11 or imported.
  std::string agent;
};

// A network run (opevo net tune): the network as it was read, what tuned it, and the run of each
// task (an ordinary run in `runs`, one per task in task order).
struct NetworkRecord {
  std::int64_t id = 0;
  std::string name;
  std::string source;       // the preset name or file path as given
  std::string networkJson;  // the file's text: a resume does not need the file
  std::string paramsJson;   // the param overrides
  std::string backend;
  std::string planJson;  // algorithm, seed, trials, unit, scheduler
  RunStatus status = RunStatus::Running;
  std::string started;
  std::string ended;
  std::string resultJson;  // the end-to-end result once it ran
  std::vector<std::int64_t> taskRuns;
};

// How far a run got: its trials and the best speed among the working ones (none when no trial
// worked).
struct RunTally {
  int trials = 0;
  std::optional<double> best;
};

// One unit of trials the task scheduler gave a task, in order.
struct NetworkUnitRow {
  int seq = 0;  // 1-based
  int task = 0;
  int trials = 0;  // measured in that unit
};

// A Canvas kernel search (opevo kas search): the network whose convolutions the kernels replace,
// every setting (budget, seed, candidates, tuning trials, training schedule) and the baseline
// (the unmodified backbone's accuracy and curve) once it was trained.
struct KasSearchRecord {
  std::int64_t id = 0;
  std::string network;
  std::string settingsJson;
  RunStatus status = RunStatus::Running;
  std::string started;
  std::string ended;
  std::string baselineJson;
};

// How far a candidate got: sampled and solved, its schedules tuned for speed, trained for
// accuracy; or failed on the way (message says where).
enum class KasStage { Sampled, Tuned, Trained, Failed };
const EnumNames<KasStage, 4>& kasStageNames();

struct KasCandidateRow {
  std::int64_t searchId = 0;
  int seq = 0;  // 1-based, in the order the search sampled them
  std::string hash;
  std::string kernelJson;  // the kernel file's contents
  std::int64_t groups = 1;
  KasStage stage = KasStage::Sampled;
  double flopsRatio = 0, paramsRatio = 0;  // of the replaced convolutions'
  std::optional<double> kernelMs, convMs;  // the network's replaced layers, summed with counts
  std::optional<double> accuracy;
  bool stoppedEarly = false;
  double tuneSeconds = 0, trainSeconds = 0;
  std::string tuningJson;    // per layer: schedule, times, best-time curve
  std::string trainingJson;  // the training program's result
  std::string message;
  std::optional<double> speedup() const {
    if (!kernelMs || !convMs || *kernelMs <= 0) return std::nullopt;
    return *convMs / *kernelMs;
  }
};

}  // namespace opevo
