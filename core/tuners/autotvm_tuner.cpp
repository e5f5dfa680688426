#include "tuners/autotvm_tuner.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

namespace opevo {
namespace {

struct VertexHash {
  std::size_t operator()(const Vertex& v) const noexcept {
    std::size_t h = 0xcbf29ce484222325ull;
    for (std::int64_t x : v) h = (h ^ static_cast<std::size_t>(x)) * 0x100000001b3ull;
    return h;
  }
};

}  // namespace

TunerSettings AutoTvmTuner::defaultSettings() {
  TunerSettings s;
  s.declare("plan_size", 64, 1, 1e6, true,
            "measurements between retrainings; also the size of each model-chosen plan");
  s.declare("sa_chains", 128, 1, 1e5, true, "parallel simulated-annealing chains on the model");
  s.declare("sa_iterations", 500, 1, 1e6, true, "most annealing steps per plan");
  s.declare("sa_early_stop", 50, 1, 1e6, true,
            "stop annealing after this many steps without a change to the top set");
  s.declare("sa_temperature", 1, 0, 1e6, false,
            "starting temperature in model-score units, cooled linearly to 0");
  s.declare("diversity_ratio", 2, 1, 100, false,
            "the plan is picked from the plan_size*ratio best-predicted configurations; 1 picks "
            "the top ones with no diversity term");
  s.declare("diversity_weight", 0.5, 0, 100, false,
            "bonus for covering parameter values the plan lacks, relative to the candidates' "
            "score range");
  s.declare("epsilon", 0.05, 0, 1, false, "probability that a pick is uniformly random");
  // 128 rounds: on the synthetic MM1 objective of the tests, 64 found worse configurations and
  // 256 no better ones (AutoTVM itself boosts until a training-set recall stops improving).
  declareCostModelSettings(s, 3, 0.3, 128, 1);
  return s;
}

AutoTvmTuner::AutoTvmTuner(const SearchSpace& space, TunerSettings settings, std::uint64_t seed)
    : ModelBasedTuner(space, std::move(settings), seed),
      m_planSize(static_cast<std::size_t>(m_settings.getInt("plan_size"))),
      m_nextPlanAt(m_planSize) {}

void AutoTvmTuner::beforePick() {
  const bool priorAdded = takePriorAdded();
  if (!priorAdded && history().size() < m_nextPlanAt) return;
  if (!ensureModel()) return;  // nothing to rank yet: picks stay random
  replan();
  m_nextPlanAt = history().size() + m_planSize;
}

void AutoTvmTuner::replan() {
  const double ratio = m_settings.get("diversity_ratio");
  TopSet top(static_cast<std::size_t>(std::llround(static_cast<double>(m_planSize) * ratio)));
  anneal(top);
  setPlan(selectDiverse(top.sorted(), m_planSize));
}

void AutoTvmTuner::topUpChains() {
  const auto chains = static_cast<std::size_t>(m_settings.getInt("sa_chains"));
  // Few tries per chain: in a space that is almost all invalid, chains start from measured
  // configurations instead (below) rather than spending the batch's time on rejection.
  for (std::size_t miss = 0; m_chains.size() < chains && miss < chains;) {
    if (std::optional<Config> c = randomValid(20))
      m_chains.push_back(std::move(*c));
    else
      ++miss;
  }
  for (std::size_t i = 0; m_chains.size() < chains && i < history().size(); ++i)
    if (history()[i].fitness > 0) m_chains.push_back(history()[i].config);
  if (m_chains.empty() && !history().empty()) m_chains.push_back(history().front().config);
}

void AutoTvmTuner::anneal(TopSet& top) {
  topUpChains();
  m_lastSteps = 0;
  if (m_chains.empty()) return;
  const int iterations = m_settings.getInt("sa_iterations");
  const int earlyStop = m_settings.getInt("sa_early_stop");
  const double temperature = m_settings.get("sa_temperature");

  // The model changed since the chains last moved: rescore where they stand.
  std::vector<float> scores;
  model().predict(m_chains, scores);
  for (std::size_t i = 0; i < m_chains.size(); ++i)
    if (isNew(m_chains[i])) top.offer(scores[i], m_chains[i]);

  std::vector<Config> moves;
  std::vector<std::size_t> from;
  std::vector<float> moveScores;
  int lastChange = 0;
  for (int k = 0; k < iterations && k < lastChange + earlyStop; ++k) {
    ++m_lastSteps;
    const double t = temperature * (1.0 - static_cast<double>(k) / iterations);
    moves.clear();
    from.clear();
    for (std::size_t i = 0; i < m_chains.size(); ++i) {
      Config c = mutate(m_chains[i]);
      // A move onto an invalid point is rejected outright: the chain never leaves the valid set,
      // so everything it offers can be proposed.
      if (c == m_chains[i] || !m_space.satisfies(c)) continue;
      moves.push_back(std::move(c));
      from.push_back(i);
    }
    if (moves.empty()) continue;
    model().predict(moves, moveScores);
    for (std::size_t j = 0; j < moves.size(); ++j) {
      if (!wasProposed(moves[j]) && top.offer(moveScores[j], moves[j])) lastChange = k;
      const std::size_t i = from[j];
      const double delta = static_cast<double>(moveScores[j]) - scores[i];
      if (delta >= 0 || (t > 0 && m_rng.uniform() < std::exp(delta / t))) {
        m_chains[i] = std::move(moves[j]);
        scores[i] = moveScores[j];
      }
    }
  }
}

std::vector<Config> AutoTvmTuner::selectDiverse(
    const std::vector<std::pair<float, Config>>& candidates, std::size_t count) const {
  const double weight = m_settings.get("diversity_weight");
  std::vector<Config> picked;
  if (candidates.size() <= count || weight == 0 || m_space.dims() == 0) {
    for (std::size_t i = 0; i < std::min(count, candidates.size()); ++i)
      picked.push_back(candidates[i].second);
    return picked;
  }
  // Greedy maximisation of  sum of scores + weight * (parameter values covered) / dims, a
  // submodular objective: the greedy pick is within 1-1/e of the best set. Scores are rescaled to
  // [0, 1] so the weight means the same whatever the model's output scale.
  const float hi = candidates.front().first, lo = candidates.back().first;
  const double range = hi > lo ? static_cast<double>(hi) - lo : 1.0;
  const std::size_t dims = m_space.dims();
  std::vector<std::unordered_set<Vertex, VertexHash>> covered(dims);
  std::vector<bool> taken(candidates.size(), false);
  while (picked.size() < count) {
    std::size_t best = candidates.size();
    double bestGain = -std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      if (taken[i]) continue;
      const Config& c = candidates[i].second;
      std::size_t fresh = 0;
      for (std::size_t d = 0; d < dims; ++d) fresh += covered[d].count(c[d]) == 0;
      const double gain = (candidates[i].first - lo) / range +
                          weight * static_cast<double>(fresh) / static_cast<double>(dims);
      if (gain > bestGain) {  // strict: ties go to the better-predicted candidate
        bestGain = gain;
        best = i;
      }
    }
    taken[best] = true;
    for (std::size_t d = 0; d < dims; ++d) covered[d].insert(candidates[best].second[d]);
    picked.push_back(candidates[best].second);
  }
  return picked;
}

}  // namespace opevo
