#include "tuners/opevo_model_tuner.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

#include "space/qwalk.h"

namespace opevo {

TunerSettings OpEvoModelTuner::defaultSettings() {
  TunerSettings s;
  s.declare("batch", 8, 1, 1e6, true, "configurations measured between two rankings");
  s.declare("lambda", 8, 1, 1e6, true, "parents: the top-lambda configurations measured so far");
  s.declare("q", 0.5, 0, 1, false, "mutation rate: probability of another random-walk step", true,
            true);
  s.declare("q_stalled", 0.8, 0, 1, false,
            "q once the best has not improved for `patience` trials (longer walks)", true, true);
  s.declare("patience", 48, 1, 1e6, true, "trials without a better configuration before q rises");
  s.declare("candidates", 512, 1, 1e6, true, "children the model ranks for each batch");
  s.declare("random_share", 0.125, 0, 1, false,
            "share of the candidates drawn uniformly from the whole space");
  s.declare("crossover", 0.5, 0, 1, false,
            "probability that a child takes each parameter from one of two parents");
  s.declare("spread", 16, 1, 1e6, true,
            "random candidates per pick of the first batch (farthest-point spread)");
  s.declare("epsilon", 0.05, 0, 1, false, "probability that a pick is uniformly random");
  declareCostModelSettings(s, 4, 0.3, 64, 0);
  return s;
}

OpEvoModelTuner::OpEvoModelTuner(const SearchSpace& space, TunerSettings settings,
                                 std::uint64_t seed)
    : ModelBasedTuner(space, std::move(settings), seed),
      m_batch(static_cast<std::size_t>(m_settings.getInt("batch"))) {}

double OpEvoModelTuner::currentQ() {
  for (std::size_t i = m_bestAt; i < history().size(); ++i)
    if (history()[i].fitness > m_best) {
      m_best = history()[i].fitness;
      m_bestAt = i + 1;
    }
  const bool stalled = history().size() - m_bestAt >=
                       static_cast<std::size_t>(m_settings.getInt("patience"));
  return m_settings.get(stalled ? "q_stalled" : "q");
}

void OpEvoModelTuner::beforePick() {
  if (history().size() == m_plannedAt) return;
  m_plannedAt = history().size();
  if (ensureModel())
    setPlan(screened(m_batch));
  else if (history().empty() && priorObservations().empty())
    setPlan(spreadOut(m_batch));
  // Otherwise (nothing to rank yet) picks stay uniformly random.
}

// Farthest-point picks among random valid candidates, distance measured on each parameter's
// position in its value list (scaled to [0, 1]): a first batch that covers the space.
std::vector<Config> OpEvoModelTuner::spreadOut(std::size_t n) {
  const std::size_t pool = n * static_cast<std::size_t>(m_settings.getInt("spread"));
  std::vector<std::vector<double>> points;
  std::vector<Config> configs;
  for (std::size_t i = 0; i < pool; ++i) {
    std::optional<Config> c = randomNew();
    if (!c) break;
    std::vector<double> p;
    for (double f : m_space.features(*c)) p.push_back(f);
    points.push_back(std::move(p));
    configs.push_back(std::move(*c));
  }
  if (configs.empty()) return {};
  // Features on one scale: each divided by its range over the pool.
  const std::size_t dims = points.front().size();
  for (std::size_t d = 0; d < dims; ++d) {
    double lo = std::numeric_limits<double>::max(), hi = std::numeric_limits<double>::lowest();
    for (const auto& p : points) lo = std::min(lo, p[d]), hi = std::max(hi, p[d]);
    for (auto& p : points) p[d] = hi > lo ? (p[d] - lo) / (hi - lo) : 0;
  }
  std::vector<double> nearest(configs.size(), std::numeric_limits<double>::max());
  std::vector<Config> chosen;
  std::size_t next = 0;  // the first random candidate starts the spread
  while (chosen.size() < n && chosen.size() < configs.size()) {
    chosen.push_back(configs[next]);
    nearest[next] = -1;
    for (std::size_t i = 0; i < configs.size(); ++i) {
      if (nearest[i] < 0) continue;
      double d = 0;
      for (std::size_t k = 0; k < dims; ++k) d += std::abs(points[i][k] - points[next][k]);
      nearest[i] = std::min(nearest[i], d);
    }
    next = static_cast<std::size_t>(
        std::max_element(nearest.begin(), nearest.end()) - nearest.begin());
    if (nearest[next] < 0) break;
  }
  return chosen;
}

std::optional<Config> OpEvoModelTuner::child(const std::vector<std::size_t>& parents, double q) {
  // Parents by rank: the best twice as likely as the median, as fitness-proportional selection
  // is on data where the top speeds are close.
  auto pick = [&] {
    const std::size_t a = m_rng.below(parents.size()), b = m_rng.below(parents.size());
    return history()[parents[std::min(a, b)]].config;
  };
  const Config first = pick();
  const bool cross = m_rng.chance(m_settings.get("crossover"));
  const Config second = cross ? pick() : first;
  for (int attempt = 0; attempt < 8; ++attempt) {
    Config c(m_space.dims());
    for (std::size_t i = 0; i < c.size(); ++i) {
      const Vertex& from = m_rng.chance(0.5) ? first[i] : second[i];
      c[i] = qWalk(m_space.param(i), from, q, m_rng);
    }
    if (isNew(c)) return c;
  }
  return std::nullopt;
}

std::vector<Config> OpEvoModelTuner::screened(std::size_t n) {
  std::vector<std::size_t> parents;
  for (std::size_t index : ranking()) {
    if (static_cast<int>(parents.size()) == m_settings.getInt("lambda") ||
        history()[index].fitness <= 0)
      break;
    parents.push_back(index);
  }
  const double q = currentQ();
  const auto total = static_cast<std::size_t>(m_settings.getInt("candidates"));
  const auto randoms = parents.empty() ? total
                                       : static_cast<std::size_t>(std::llround(
                                             static_cast<double>(total) *
                                             m_settings.get("random_share")));
  std::unordered_set<Config, ConfigHash> seen;
  std::vector<Config> candidates;
  auto add = [&](std::optional<Config> c) {
    if (c && seen.insert(*c).second) candidates.push_back(std::move(*c));
  };
  for (std::size_t i = 0; i < randoms; ++i) add(randomNew());
  for (std::size_t i = randoms; i < total; ++i) add(child(parents, q));
  if (candidates.empty()) return {};
  std::vector<float> scores;
  model().predict(candidates, scores);
  std::vector<std::size_t> order(candidates.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  // Stable: equal scores keep generation order, so a seed replays the same batch.
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
  std::vector<Config> plan;
  for (std::size_t i = 0; i < order.size() && plan.size() < n; ++i)
    plan.push_back(candidates[order[i]]);
  return plan;
}

}  // namespace opevo
