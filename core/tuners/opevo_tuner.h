#pragma once

#include "tuners/tuner.h"

namespace opevo {

// OpEvo, the paper's Algorithm 1: the top-lambda measured configurations are parents; each of rho
// children takes every parameter from a parent chosen with probability proportional to its
// fitness, then every parameter is mutated by a q-random walk on its graph. A child that was
// proposed before (measured or still being measured) or breaks a constraint is mutated again.
// Until some configuration has a non-zero fitness, configurations are drawn at random.
class OpEvoTuner final : public Tuner {
 public:
  static TunerSettings defaults();
  OpEvoTuner(const SearchSpace& space, TunerSettings settings, std::uint64_t seed);

  std::string name() const override { return "opevo"; }
  std::size_t preferredBatch() const override { return static_cast<std::size_t>(m_rho); }
  // Indices into history() of the current parents: the top-lambda with non-zero fitness.
  std::vector<std::size_t> parents() const;

 protected:
  std::vector<Config> doPropose(std::size_t n) override;

 private:
  std::optional<Config> makeChild(const std::vector<std::size_t>& parents, double totalFitness);
  Config mutate(Config child);

  int m_lambda;
  int m_rho;
  double m_q;
  int m_maxRemutations;
};

}  // namespace opevo
