#pragma once

#include "tuners/model_based_tuner.h"
#include "tuners/top_set.h"

namespace opevo {

// Ansor-style search (Zheng et al., "Ansor: Generating High-Performance Tensor Programs for Deep
// Learning"), on this product's parameter spaces instead of Ansor's sketches: rounds of
// batch_size measurements; the first round is random (no data yet); each later round retrains an
// XGBoost model on everything measured and runs an evolutionary search on it (population seeded
// with the best measured configurations plus random ones, roulette selection by predicted score,
// tile-size mutation = moving a prime factor between positions, optional crossover). The round's
// batch is the best-predicted unmeasured configurations, each pick random with probability
// epsilon.
class AnsorTuner final : public ModelBasedTuner {
 public:
  AnsorTuner(const SearchSpace& space, TunerSettings settings, std::uint64_t seed);
  // batch_size 64, population 2048, generations 4, mutation_prob 0.85, crossover_prob 0,
  // measured_ratio 0.2, epsilon 0.05, xgb_max_depth 10, xgb_eta 0.2, xgb_rounds 64,
  // xgb_threads 1, xgb_objective 0 (regression on normalised throughput).
  static TunerSettings defaultSettings();

  std::string name() const override { return "ansor"; }
  std::size_t preferredBatch() const override { return m_batchSize; }

  std::size_t rounds() const { return m_round; }

 protected:
  void beforePick() override;
  void afterPick() override { --m_roundLeft; }

 private:
  std::vector<Config> initialPopulation();
  std::vector<Config> evolve();
  Config crossover(const Config& a, const Config& b);

  std::size_t m_batchSize;
  std::size_t m_roundLeft = 0;  // picks left in the current round
  std::size_t m_round = 0;
};

}  // namespace opevo
