#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "backends/backend_factory.h"
#include "engine/tuning_session.h"
#include "store/records.h"

namespace opevo {

class Store;

// A stored run made ready to go on: its measurement rebuilt from the record, a fresh tuner with
// the stored algorithm, settings and seed, the original budget, and the trials already measured
// (in measurement order) for TuningSession::restore. The CLI's `tune --resume` and the window's
// History page both resume through this, so they continue a run the same way.
struct ResumedRun {
  RunRecord run;
  MeasurementSetup setup;
  std::unique_ptr<Tuner> tuner;
  Budget budget;
  std::vector<TrialRow> rows;                                 // the stored trials
  std::vector<std::pair<Config, Measurement>> restored;       // the same, for the tuner
};

// Throws InputError for a run that is not in the store or has already finished. Marks the run
// "running" again.
ResumedRun resumeStoredRun(Store& store, std::int64_t runId, const BackendOptions& options = {});

}  // namespace opevo
