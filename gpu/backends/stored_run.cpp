#include "backends/stored_run.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "common/error.h"
#include "store/history.h"
#include "store/run_lock.h"
#include "store/store.h"

namespace opevo {

ResumedRun resumeStoredRun(Store& store, std::int64_t runId, const BackendOptions& options,
                           ResumeAs as) {
  const auto stored = store.run(runId);
  if (!stored) throw InputError("no run " + std::to_string(runId) + " in " + store.path());
  if (as == ResumeAs::Run)
    for (const NetworkRecord& n : store.networks())
      if (std::find(n.taskRuns.begin(), n.taskRuns.end(), runId) != n.taskRuns.end())
        throw InputError("run " + std::to_string(runId) + " is a task of network run " +
                         std::to_string(n.id) + " (" + n.name +
                         "): it goes on with its network, whose scheduler gives its tasks their "
                         "trials (opevo net tune --resume " +
                         std::to_string(n.id) + ", or Resume on the Networks page)");
  if (stored->status == RunStatus::Finished && as == ResumeAs::Run)
    throw InputError("run " + std::to_string(runId) + " already finished (" +
                     std::string(endReasonName(stored->endReason).empty()
                                     ? "budget spent"
                                     : endReasonName(stored->endReason)) +
                     "); nothing to resume");
  ResumedRun r;
  r.lock = std::make_shared<RunLock>(store.path(), LockedKind::Run, runId);
  r.run = *stored;
  r.setup = restoreMeasurement(r.run.backend, r.run.operatorJson, options, r.run.device);
  r.plan.algorithm = r.run.algorithm;
  // Named, not a temporary: items() refers into it.
  const nlohmann::json storedSettings = nlohmann::json::parse(r.run.settingsJson, nullptr, false);
  if (storedSettings.is_object())
    for (const auto& [k, v] : storedSettings.items())
      r.plan.settings[k] = v.is_string() ? v.get<std::string>() : v.dump();
  r.plan.seed = r.run.seed;
  r.plan.budget = Budget::fromJson(r.run.budgetJson);
  r.plan.algorithmIndex = r.run.raceAlgorithm;
  r.plan.repeat = r.run.raceRepeat;
  r.rows = store.trials(r.run.id);
  for (const TrialRow& t : r.rows) {
    r.restored.emplace_back(r.setup.space->parse(t.config), measurementOf(t));
    r.secondsBefore = std::max(r.secondsBefore, t.seconds);
  }
  r.nextOrder = store.lastOrder(r.run) + 1;
  if (as == ResumeAs::Run) store.setRunStatus(r.run.id, RunStatus::Running);
  return r;
}

int addResumedRun(Engine& engine, const ResumedRun& r) {
  const int index = engine.addRun(r.plan);
  engine.restore(index, r.restored, r.secondsBefore);
  engine.setStoreId(index, r.run.id);
  return index;
}

}  // namespace opevo
