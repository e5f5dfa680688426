#include "replay/replay_sweep.h"

#include <algorithm>

#include "common/error.h"
#include "engine/engine.h"
#include "replay/replay_measurer.h"

namespace opevo {
ReplaySweep runReplaySweep(const std::shared_ptr<const ReplayDataset>& dataset,
                           const SweepPlan& plan, EngineObserver* observer, SweepControl* control) {
  if (plan.budget.trials.value_or(0) < 1)
    throw InputError("a sweep needs at least 1 trial per run");
  const RacePlan race = sweepRace(plan);  // the axes are checked here
  ReplayMeasurer measurer(dataset);
  Engine engine(dataset->space, measurer);
  addRace(engine, race);  // every setting and value checked before anything is measured
  TrialLog log;
  engine.addObserver(log);
  if (observer) engine.addObserver(*observer);
  // Reports progress to the control and ends the engine when asked, between two trials.
  struct Watch final : EngineObserver {
    Engine& engine;
    SweepControl* control;
    Watch(Engine& e, SweepControl* c) : engine(e), control(c) {}
    void trialMeasured(const TrialEvent&, const EngineProgress& progress) override {
      if (!control) return;
      control->trialsDone = progress.trialsDone;
      control->trialsPlanned = progress.trialsPlanned;
      if (control->stop) engine.stop();
    }
  } watch(engine, control);
  engine.addObserver(watch);
  engine.run();
  ReplaySweep out;
  out.failure = engine.failure();
  // Stopped means a run was cut short of its budget: a Stop that came as the last trial was
  // measured (the runs then end as Stopped all the same) leaves a complete repeat, which is kept.
  out.stopped = std::any_of(engine.runs().begin(), engine.runs().end(), [](const RunState& r) {
    return r.end == EndReason::Stopped && r.trials < r.plan.budget.trials.value_or(0);
  });
  if (!out.failure.empty() || out.stopped) return out;
  out.trials = log.trials();
  out.optimum = dataset->complete ? std::optional<double>(dataset->bestSpeed) : std::nullopt;
  out.measuredBy = measurer.label();
  out.speedUnit = dataset->speedUnit;
  return out;
}

}  // namespace opevo
