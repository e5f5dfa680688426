#include "replay/replay_sweep.h"

#include <algorithm>

#include "common/error.h"
#include "engine/engine.h"
#include "replay/replay_measurer.h"

namespace opevo {
namespace {

// "opevo (lambda=2)": settings fixed in every cell change every result, so the title that heads
// the table and the heat map names them.
std::string algorithmWithFixed(const SweepPlan& plan) {
  std::string fixed;
  for (const auto& [name, value] : plan.fixed)
    fixed += (fixed.empty() ? "" : " ") + name + "=" + value;
  return fixed.empty() ? plan.algorithm : plan.algorithm + " (" + fixed + ")";
}

}  // namespace

ReplaySweep runReplaySweep(const std::shared_ptr<const ReplayDataset>& dataset,
                           const SweepPlan& plan, int at, EngineObserver* observer,
                           SweepControl* control) {
  const int trials = plan.budget.trials.value_or(0);
  if (trials < 1) throw InputError("a sweep needs at least 1 trial per run");
  if (at < 1 || at > trials)
    throw InputError("the budget shown (--at) must be between 1 and the trials per run (" +
                     std::to_string(trials) + "), got " + std::to_string(at));
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
  out.stopped = control && control->stop;
  if (!out.failure.empty() || out.stopped) return out;
  out.optimum = dataset->complete ? std::optional<double>(dataset->bestSpeed) : std::nullopt;
  out.measuredBy = measurer.label();
  out.speedUnit = dataset->speedUnit;
  out.budgets = summaryBudgets(trials);
  if (std::find(out.budgets.begin(), out.budgets.end(), at) == out.budgets.end()) {
    out.budgets.push_back(at);
    std::sort(out.budgets.begin(), out.budgets.end());
  }
  out.cells = summarizeSweep(plan, log.trials(), out.budgets, out.optimum);
  const bool fraction = out.optimum.has_value();
  const std::string what =
      fraction ? "mean fraction of optimum" : "mean best " + out.speedUnit + " (optimum unknown)";
  out.map = sweepHeatMap(plan, out.cells, at, fraction,
                         algorithmWithFixed(plan) + ": " + what + " after " + std::to_string(at) +
                             " trials, " + std::to_string(plan.repeats) + " repeats");
  return out;
}

}  // namespace opevo
