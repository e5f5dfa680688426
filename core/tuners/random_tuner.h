#pragma once

#include "tuners/tuner.h"

namespace opevo {

// Uniform random search without replacement: the baseline every tuner must beat.
class RandomTuner final : public Tuner {
 public:
  using Tuner::Tuner;
  std::string name() const override { return "random"; }

 protected:
  std::vector<Config> doPropose(std::size_t n) override {
    std::vector<Config> batch;
    while (batch.size() < n) {
      std::optional<Config> c = randomNew();
      if (!c) break;
      reserve(*c);
      batch.push_back(std::move(*c));
    }
    return batch;
  }
};

}  // namespace opevo
