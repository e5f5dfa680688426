#pragma once

#include "tuners/tuner.h"

namespace opevo {

// A classic genetic algorithm, blind to topology: tournament selection among the best measured
// configurations, uniform crossover per parameter, and mutation that redraws a parameter
// uniformly from its whole set. The contrast with OpEvo's q-random-walk mutation is the point.
class GeneticTuner final : public Tuner {
 public:
  static TunerSettings defaults();
  GeneticTuner(const SearchSpace& space, TunerSettings settings, std::uint64_t seed);
  std::string name() const override { return "genetic"; }
  std::size_t preferredBatch() const override { return static_cast<std::size_t>(m_population); }

 protected:
  std::vector<Config> doPropose(std::size_t n) override;

 private:
  std::size_t tournament(const std::vector<std::size_t>& pool);

  int m_population;
  int m_tournament;
  double m_mutation;
};

}  // namespace opevo
