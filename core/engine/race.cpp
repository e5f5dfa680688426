#include "engine/race.h"

#include <limits>

#include "common/error.h"

namespace opevo {

std::string repeatSeedsText(std::uint64_t seed, int repeats) {
  if (repeats <= 1) return "repeat 1: seed " + std::to_string(seed);
  return "repeats 1-" + std::to_string(repeats) + ": seeds " + std::to_string(seed) + "-" +
         std::to_string(seed + static_cast<std::uint64_t>(repeats - 1));
}

void checkRepeatSeeds(std::uint64_t seed, int repeats) {
  constexpr std::uint64_t largest = std::numeric_limits<std::uint64_t>::max();
  if (repeats <= 1 || seed <= largest - static_cast<std::uint64_t>(repeats - 1)) return;
  throw InputError("--seed " + std::to_string(seed) + " with " + std::to_string(repeats) +
                   " repeats runs past the largest seed, " + std::to_string(largest) +
                   " (repeats 1..n use seeds seed..seed+n-1): give a seed of at most " +
                   std::to_string(largest - static_cast<std::uint64_t>(repeats - 1)));
}

void addRace(Engine& engine, const RacePlan& plan, int firstAlgorithmIndex) {
  if (plan.algorithms.empty()) throw InputError("no algorithm given (--algos opevo,random,...)");
  if (plan.repeats < 1)
    throw InputError("--repeats must be at least 1, got " + std::to_string(plan.repeats));
  checkRepeatSeeds(plan.seed, plan.repeats);
  for (int repeat = 0; repeat < plan.repeats; ++repeat) {
    for (std::size_t a = 0; a < plan.algorithms.size(); ++a) {
      RunPlan run;
      run.algorithm = plan.algorithms[a].name;
      run.settings = plan.algorithms[a].settings;
      run.seed = plan.seed + static_cast<std::uint64_t>(repeat);
      run.budget = plan.budget;
      run.algorithmIndex = firstAlgorithmIndex + static_cast<int>(a);
      run.repeat = repeat;
      run.batch = plan.batch;
      engine.addRun(std::move(run));
    }
  }
}

}  // namespace opevo
