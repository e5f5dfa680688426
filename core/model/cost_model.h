#pragma once

#include <vector>

#include "model/features.h"
#include "model/xgb_model.h"
#include "tuners/tuner.h"

namespace opevo {

// Features plus gradient-boosted trees: what the model-based tuners search on.
class CostModel {
 public:
  CostModel(const SearchSpace& space, XgbParams params);

  // Trains a fresh model on every observation in both lists (e.g. earlier runs' and this run's).
  // Labels are fitness divided by the best fitness, so every run's numbers are on one scale and
  // invalid configurations (0) rank last. Returns false, changing nothing, when the data holds
  // fewer than two distinct fitness values: there is nothing to rank, and a tree fitted to a
  // constant would steer the search nowhere.
  bool train(const std::vector<Observation>& a, const std::vector<Observation>& b);
  static bool trainable(const std::vector<Observation>& a, const std::vector<Observation>& b);

  // Labels become (fitness / best)^power: above 1 the model spends its fit on the top
  // configurations and compresses the poor ones toward 0. 1 (the default) leaves them linear.
  void setLabelPower(double power) { m_labelPower = power; }

  bool trained() const { return m_xgb.trained(); }
  // One predicted score per configuration, higher is better. Reuses internal buffers.
  void predict(const std::vector<Config>& configs, std::vector<float>& out);

  const FeatureExtractor& features() const { return m_features; }
  const XgbModel& xgb() const { return m_xgb; }

 private:
  FeatureExtractor m_features;
  XgbModel m_xgb;
  FeatureMatrix m_buffer;
  double m_labelPower = 1;
};

}  // namespace opevo
