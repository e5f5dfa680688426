#pragma once

#include "tuners/tuner.h"

namespace opevo {

// Every valid configuration once, in the space's order: the ground truth for small spaces.
class ExhaustiveTuner final : public Tuner {
 public:
  ExhaustiveTuner(const SearchSpace& space, TunerSettings settings, std::uint64_t seed);
  std::string name() const override { return "exhaustive"; }

 protected:
  std::vector<Config> doPropose(std::size_t n) override;

 private:
  // The valid configurations in order: an explicit space's (a replay dataset's) by their index
  // among its points, which the space keeps (a race runs this tuner once per repeat, and copies
  // of every point cost megabytes each); an enumerated space's as configurations.
  std::vector<std::size_t> m_valid;
  std::vector<Config> m_order;
  std::size_t m_next = 0;
};

}  // namespace opevo
