#include "engine/race.h"

#include "common/error.h"

namespace opevo {

void addRace(Engine& engine, const RacePlan& plan) {
  if (plan.algorithms.empty()) throw InputError("no algorithm given (--algos opevo,random,...)");
  if (plan.repeats < 1)
    throw InputError("--repeats must be at least 1, got " + std::to_string(plan.repeats));
  for (int repeat = 0; repeat < plan.repeats; ++repeat) {
    for (std::size_t a = 0; a < plan.algorithms.size(); ++a) {
      RunPlan run;
      run.algorithm = plan.algorithms[a].name;
      run.settings = plan.algorithms[a].settings;
      run.seed = plan.seed + static_cast<std::uint64_t>(repeat);
      run.budget = plan.budget;
      run.algorithmIndex = static_cast<int>(a);
      run.repeat = repeat;
      run.batch = plan.batch;
      engine.addRun(std::move(run));
    }
  }
}

}  // namespace opevo
