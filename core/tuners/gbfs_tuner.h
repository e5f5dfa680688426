#pragma once

#include <set>

#include "tuners/tuner.h"

namespace opevo {

// G-BFS (Zhang et al. 2019), for spaces of factor parameters only: start from the untiled
// configuration (C,1,...,1 for every parameter), repeatedly expand the best measured
// configuration not yet expanded by measuring rho of its neighbours (one prime factor moved in
// one parameter) chosen at random.
class GbfsTuner final : public Tuner {
 public:
  static TunerSettings defaults();
  GbfsTuner(const SearchSpace& space, TunerSettings settings, std::uint64_t seed);
  std::string name() const override { return "gbfs"; }
  std::size_t preferredBatch() const override { return static_cast<std::size_t>(m_rho); }

 protected:
  std::vector<Config> doPropose(std::size_t n) override;

 private:
  std::vector<Config> neighbours(const Config& c) const;

  int m_rho;
  std::set<std::size_t> m_expanded;  // indices into history()
  bool m_started = false;
};

// Throws InputError unless every parameter is a factorization (G-BFS and N-A2C need that).
void requireFactorSpace(const SearchSpace& space, const std::string& algorithm);

}  // namespace opevo
