#include "backends/stored_run.h"

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "common/error.h"
#include "store/history.h"
#include "store/store.h"
#include "tuners/registry.h"

namespace opevo {

ResumedRun resumeStoredRun(Store& store, std::int64_t runId, const BackendOptions& options) {
  const auto stored = store.run(runId);
  if (!stored) throw InputError("no run " + std::to_string(runId) + " in " + store.path());
  if (stored->status == "finished")
    throw InputError("run " + std::to_string(runId) + " already finished; nothing to resume");
  ResumedRun r;
  r.run = *stored;
  r.setup = restoreMeasurement(r.run.backend, r.run.operatorJson, options);
  std::map<std::string, std::string> settings;
  // Named, not a temporary: items() refers into it.
  const nlohmann::json storedSettings = nlohmann::json::parse(r.run.settingsJson, nullptr, false);
  if (storedSettings.is_object())
    for (const auto& [k, v] : storedSettings.items()) settings[k] = v.is_string() ? v.get<std::string>() : v.dump();
  r.tuner = makeTuner(r.run.algorithm, *r.setup.space, r.run.seed, settings);
  r.budget = Budget::fromJson(r.run.budgetJson);
  r.rows = store.trials(r.run.id);
  for (const TrialRow& t : r.rows)
    r.restored.emplace_back(r.setup.space->parse(t.config), measurementOf(t));
  store.setRunStatus(r.run.id, "running", false);
  return r;
}

}  // namespace opevo
