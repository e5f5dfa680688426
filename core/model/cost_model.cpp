#include "model/cost_model.h"

#include <algorithm>
#include <cmath>

namespace opevo {
namespace {

// A failed or nonsensical measurement counts as invalid.
double clean(double fitness) {
  return std::isfinite(fitness) && fitness > 0 ? fitness : 0.0;
}

}  // namespace

CostModel::CostModel(const SearchSpace& space, XgbParams params)
    : m_features(space), m_xgb(std::move(params)), m_buffer(m_features.size()) {}

bool CostModel::trainable(const std::vector<Observation>& a, const std::vector<Observation>& b) {
  bool seen = false;
  double first = 0;
  for (const auto* list : {&a, &b}) {
    for (const Observation& o : *list) {
      const double f = clean(o.fitness);
      if (!seen) {
        seen = true;
        first = f;
      } else if (f != first) {
        return true;
      }
    }
  }
  return false;
}

bool CostModel::train(const std::vector<Observation>& a, const std::vector<Observation>& b) {
  if (!trainable(a, b)) return false;
  double best = 0;
  for (const auto* list : {&a, &b})
    for (const Observation& o : *list) best = std::max(best, clean(o.fitness));
  FeatureMatrix x(m_features.size());
  x.reserveRows(a.size() + b.size());
  std::vector<float> labels;
  labels.reserve(a.size() + b.size());
  for (const auto* list : {&a, &b}) {
    for (const Observation& o : *list) {
      m_features.addRow(o.config, x);
      const double label = clean(o.fitness) / best;
      labels.push_back(
          static_cast<float>(m_labelPower == 1 ? label : std::pow(label, m_labelPower)));
    }
  }
  m_xgb.train(x, labels);
  return true;
}

void CostModel::predict(const std::vector<Config>& configs, std::vector<float>& out) {
  m_buffer.clear();
  m_buffer.reserveRows(configs.size());
  for (const Config& c : configs) m_features.addRow(c, m_buffer);
  m_xgb.predictInto(m_buffer, out);
}

}  // namespace opevo
