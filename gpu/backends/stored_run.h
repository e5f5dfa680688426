#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "backends/backend_factory.h"
#include "engine/engine.h"
#include "store/records.h"

namespace opevo {

class RunLock;
class Store;

// A stored run made ready to go on: its measurement rebuilt from the record, its plan (the stored
// algorithm, settings, seed and budget), and the trials already measured. The CLI's `tune
// --resume` and the window's History page both resume through this, so they continue a run the
// same way.
struct ResumedRun {
  RunRecord run;
  MeasurementSetup setup;
  RunPlan plan;
  std::vector<TrialRow> rows;                            // the stored trials
  std::vector<std::pair<Config, Measurement>> restored;  // the same, for the tuner
  double secondsBefore = 0;  // tuning time already spent (0 for runs stored before schema v2)
  long long nextOrder = 1;   // the order its next trial takes in its race
  // The run held for this process while this lives: another process resuming it is refused.
  std::shared_ptr<RunLock> lock;
};

// How a stored run goes on: alone (tune --resume, History's Resume), or as one of its network's
// tasks (the network session, which resumes them all).
enum class ResumeAs { Run, NetworkTask };

// Throws InputError for a run that is not in the store, or that another process is tuning
// (RunLock). Alone, also for a run that has already finished, and for a network's task: its
// trials are the network scheduler's to give, and one resumed alone to its own budget left the
// network run unable to replay its schedule (net tune --resume failed on it for good). As a
// network's task, a finished run goes on (its space ran out, or its network is not finished),
// and it is not marked running: the network marks its tasks once every one is read back.
ResumedRun resumeStoredRun(Store& store, std::int64_t runId, const BackendOptions& options = {},
                           ResumeAs as = ResumeAs::Run);

// Adds the resumed run to an engine made on r.setup (with EngineOptions::firstOrder =
// r.nextOrder): its plan, its stored trials and tuning time, and its store id.
int addResumedRun(Engine& engine, const ResumedRun& r);

}  // namespace opevo
