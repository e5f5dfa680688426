#include "tuners/model_based_tuner.h"

namespace opevo {

void declareCostModelSettings(TunerSettings& s, int maxDepth, double eta, int rounds,
                              int objective) {
  s.declare("xgb_max_depth", maxDepth, 1, 30, true, "depth of each boosted tree");
  s.declare("xgb_eta", eta, 0, 1, false, "learning rate (shrinkage) of boosting", true);
  s.declare("xgb_rounds", rounds, 1, 10000, true,
            "boosting rounds per training (the model is retrained from scratch on all data)");
  s.declare("xgb_threads", 1, 1, 256, true,
            "XGBoost threads; fixed so that a seed replays the same models and proposals");
  s.declare("xgb_objective", objective, 0, 1, true,
            "0: regression on throughput normalised to the best (Ansor); 1: pairwise rank "
            "(AutoTVM)");
}

XgbParams costModelParams(const TunerSettings& s, std::uint64_t seed) {
  XgbParams p;
  p.objective = s.getInt("xgb_objective") == 1 ? "rank:pairwise" : "reg:squarederror";
  p.maxDepth = s.getInt("xgb_max_depth");
  p.eta = s.get("xgb_eta");
  p.rounds = s.getInt("xgb_rounds");
  p.nthread = s.getInt("xgb_threads");
  p.seed = seed & 0x7fffffff;  // XGBoost's seed parameter is a signed integer
  return p;
}

ModelBasedTuner::ModelBasedTuner(const SearchSpace& space, TunerSettings settings,
                                 std::uint64_t seed)
    : Tuner(space, std::move(settings), seed), m_model(space, costModelParams(m_settings, seed)) {
  for (std::size_t i = 0; i < space.dims(); ++i)
    if (!(space.param(i).size() <= 1)) m_movable.push_back(i);
}

void ModelBasedTuner::addPriorObservations(const std::vector<Observation>& prior) {
  if (prior.empty()) return;
  m_prior.insert(m_prior.end(), prior.begin(), prior.end());
  m_priorAdded = true;
}

bool ModelBasedTuner::ensureModel() {
  const std::size_t data = m_prior.size() + history().size();
  if (m_model.trained() && data == m_trainedOn) return true;
  if (!m_model.train(m_prior, history())) return false;
  m_trainedOn = data;
  ++m_trainings;
  return true;
}

Config ModelBasedTuner::mutate(const Config& c) {
  Config out = c;
  if (m_movable.empty()) return out;
  const std::size_t j = m_movable[m_rng.below(m_movable.size())];
  out[j] = m_space.param(j).randomNeighbour(out[j], m_rng);
  return out;
}

std::optional<Config> ModelBasedTuner::nextPlanned() {
  while (!m_plan.empty()) {
    Config c = std::move(m_plan.front());
    m_plan.pop_front();
    if (isNew(c)) return c;
  }
  return std::nullopt;
}

std::vector<Config> ModelBasedTuner::doPropose(std::size_t n) {
  const double epsilon = m_settings.get("epsilon");
  std::vector<Config> batch;
  while (batch.size() < n) {
    beforePick();
    std::optional<Config> c;
    if (!m_rng.chance(epsilon)) c = nextPlanned();
    if (!c) c = randomNew();
    // Random draws can fail in a huge space that is nearly all invalid or used up, while the
    // plan (built by moving between valid points) still has some.
    if (!c) c = nextPlanned();
    if (!c) break;
    reserve(*c);
    batch.push_back(std::move(*c));
    afterPick();
  }
  return batch;
}

}  // namespace opevo
