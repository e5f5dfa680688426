#pragma once

#include "tuners/tuner.h"

namespace opevo {

// Simulated annealing on the measured objective itself (no model): parallel chains, each step
// a random neighbour of one parameter, accepted by the Metropolis rule on fitness relative to
// the best so far, with an exponentially cooling temperature.
class AnnealingTuner final : public Tuner {
 public:
  static TunerSettings defaults();
  AnnealingTuner(const SearchSpace& space, TunerSettings settings, std::uint64_t seed);
  std::string name() const override { return "annealing"; }
  std::size_t preferredBatch() const override { return m_chains.size(); }

 protected:
  std::vector<Config> doPropose(std::size_t n) override;
  void doObserve(const std::vector<Observation>& results) override;

 private:
  struct Chain {
    std::optional<Config> current;
    double fitness = 0;
    std::optional<Config> pending;  // the step being measured
  };
  std::optional<Config> step(const Config& from);

  std::vector<Chain> m_chains;
  double m_temperature;
  double m_cooling;
  double m_minTemperature;
  double m_best = 0;
};

}  // namespace opevo
