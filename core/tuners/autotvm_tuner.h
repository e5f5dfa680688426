#pragma once

#include "tuners/model_based_tuner.h"
#include "tuners/top_set.h"

namespace opevo {

// AutoTVM's XGBTuner (Chen et al., "Learning to Optimize Tensor Programs"): random picks until a
// batch is measured; then, every plan_size measurements, a rank-objective XGBoost model is
// retrained on everything measured and simulated annealing over the model, with parallel chains
// that persist from one plan to the next, collects the best-predicted unmeasured configurations.
// The plan is chosen from them with diversity-aware (submodular, greedy) selection, and each
// proposal is a random new configuration with probability epsilon.
class AutoTvmTuner final : public ModelBasedTuner {
 public:
  AutoTvmTuner(const SearchSpace& space, TunerSettings settings, std::uint64_t seed);
  // plan_size 64, sa_chains 128, sa_iterations 500, sa_early_stop 50, sa_temperature 1,
  // diversity_ratio 2, diversity_weight 0.5, epsilon 0.05, xgb_max_depth 3, xgb_eta 0.3,
  // xgb_rounds 128, xgb_threads 1, xgb_objective 1 (rank).
  static TunerSettings defaultSettings();

  std::string name() const override { return "autotvm"; }
  std::size_t preferredBatch() const override { return m_planSize; }

  // Diagnostics for tests and benchmarks: annealing steps taken by the last plan.
  std::size_t lastAnnealSteps() const { return m_lastSteps; }

 protected:
  void beforePick() override;

 private:
  void replan();
  void topUpChains();
  void anneal(TopSet& top);
  std::vector<Config> selectDiverse(const std::vector<std::pair<float, Config>>& candidates,
                                    std::size_t count) const;

  std::size_t m_planSize;
  std::size_t m_nextPlanAt;      // history size at which the model is retrained and a plan made
  std::vector<Config> m_chains;  // simulated-annealing states, kept across plans
  std::size_t m_lastSteps = 0;
};

}  // namespace opevo
