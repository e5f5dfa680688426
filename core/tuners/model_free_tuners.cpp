#include "tuners/annealing_tuner.h"
#include "tuners/exhaustive_tuner.h"
#include "tuners/gbfs_tuner.h"
#include "tuners/genetic_tuner.h"
#include "tuners/na2c_tuner.h"
#include "tuners/opevo_tuner.h"
#include "tuners/random_tuner.h"
#include "tuners/registry.h"

namespace opevo {
namespace {

template <typename T>
TunerInfo entry(std::string name, std::string description,
                std::function<TunerSettings()> defaults) {
  return {
      std::move(name), std::move(description), std::move(defaults),
      [](const SearchSpace& space, TunerSettings s, std::uint64_t seed) -> std::unique_ptr<Tuner> {
        return std::make_unique<T>(space, std::move(s), seed);
      }};
}

}  // namespace

void registerModelFreeTuners(TunerRegistry& r) {
  r.add(entry<OpEvoTuner>("opevo",
                          "OpEvo: evolution with q-random-walk mutation on each "
                          "parameter's topology",
                          &OpEvoTuner::defaults));
  r.add(entry<RandomTuner>("random", "Random search without replacement",
                           [] { return TunerSettings{}; }));
  r.add(entry<ExhaustiveTuner>("exhaustive", "Every valid configuration once (small spaces)",
                               [] { return TunerSettings{}; }));
  r.add(entry<AnnealingTuner>("annealing", "Simulated annealing on the measurements",
                              &AnnealingTuner::defaults));
  r.add(entry<GeneticTuner>("genetic", "Genetic algorithm with uniform crossover and mutation",
                            &GeneticTuner::defaults));
  TunerInfo gbfs = entry<GbfsTuner>("gbfs",
                                    "G-BFS: greedy best-first search over prime-factor moves "
                                    "(factor parameters only)",
                                    &GbfsTuner::defaults);
  gbfs.factorsOnly = true;
  r.add(std::move(gbfs));
  TunerInfo na2c = entry<Na2cTuner>(
      "na2c",
      "N-A2C: actor-critic rollouts of prime-factor moves from the best (factor parameters only)",
      &Na2cTuner::defaults);
  na2c.factorsOnly = true;
  r.add(std::move(na2c));
}

}  // namespace opevo
