#include "tuners/ansor_tuner.h"

#include <algorithm>
#include <cmath>

namespace opevo {

TunerSettings AnsorTuner::defaultSettings() {
  TunerSettings s;
  s.declare("batch_size", 64, 1, 1e6, true,
            "measurements per round; the model is retrained once per round");
  s.declare("population", 2048, 2, 1e6, true, "evolutionary search population on the model");
  s.declare("generations", 4, 0, 1000, true, "evolutionary search generations per round");
  s.declare("mutation_prob", 0.85, 0, 1, false,
            "probability that a child is mutated (one parameter moved to a neighbour)");
  s.declare("crossover_prob", 0, 0, 1, false,
            "probability that a child mixes two parents' parameters (Ansor's released search "
            "leaves crossover out, hence 0)");
  s.declare("measured_ratio", 0.2, 0, 1, false,
            "share of the initial population taken from the best measured configurations");
  s.declare("epsilon", 0.05, 0, 1, false, "probability that a pick is uniformly random");
  declareCostModelSettings(s, 10, 0.2, 64, 0);
  return s;
}

AnsorTuner::AnsorTuner(const SearchSpace& space, TunerSettings settings, std::uint64_t seed)
    : ModelBasedTuner(space, std::move(settings), seed),
      m_batchSize(static_cast<std::size_t>(m_settings.getInt("batch_size"))) {}

void AnsorTuner::beforePick() {
  const bool priorAdded = takePriorAdded();
  if (m_roundLeft > 0 && !priorAdded) return;
  if (m_roundLeft == 0) {
    m_roundLeft = m_batchSize;
    ++m_round;
  }
  // A round is random while there is nothing to rank: the first round of a fresh run. A run
  // resumed from stored trials, or warm-started from earlier runs, uses the model at once.
  setPlan(ensureModel() ? evolve() : std::vector<Config>{});
}

std::vector<Config> AnsorTuner::initialPopulation() {
  const auto size = static_cast<std::size_t>(m_settings.getInt("population"));
  std::vector<Config> population;
  population.reserve(size);
  // The best measured configurations seed the search, as Ansor inserts its measured states.
  std::vector<const Observation*> measured;
  for (const auto* list : {&priorObservations(), &history()})
    for (const Observation& o : *list)
      if (o.fitness > 0 && m_space.satisfies(o.config)) measured.push_back(&o);
  std::stable_sort(
      measured.begin(), measured.end(),
      [](const Observation* a, const Observation* b) { return a->fitness > b->fitness; });
  const auto fromMeasured = std::min(
      measured.size(),
      static_cast<std::size_t>(m_settings.get("measured_ratio") * static_cast<double>(size)));
  for (std::size_t i = 0; i < fromMeasured; ++i) population.push_back(measured[i]->config);
  // Random valid configurations fill the rest; a few tries each keeps a nearly all-invalid space
  // from costing a round's time in rejections (the population is then just smaller).
  for (std::size_t miss = 0; population.size() < size && miss < size;) {
    if (std::optional<Config> c = randomValid(20))
      population.push_back(std::move(*c));
    else
      ++miss;
  }
  if (population.empty())
    for (const Observation* o : measured) population.push_back(o->config);
  return population;
}

Config AnsorTuner::crossover(const Config& a, const Config& b) {
  Config child = a;
  for (std::size_t d = 0; d < child.size(); ++d)
    if (m_rng.chance(0.5)) child[d] = b[d];
  return child;
}

std::vector<Config> AnsorTuner::evolve() {
  const int generations = m_settings.getInt("generations");
  const double mutationProb = m_settings.get("mutation_prob");
  const double crossoverProb = m_settings.get("crossover_prob");
  // Twice the batch, as Ansor keeps: picks skip configurations measured meanwhile.
  TopSet top(2 * m_batchSize);
  std::vector<Config> population = initialPopulation();
  if (population.empty()) return {};
  const std::size_t size = population.size();
  std::vector<float> scores;
  std::vector<double> cumulative(size);
  std::vector<Config> next;
  for (int g = 0;; ++g) {
    model().predict(population, scores);
    for (std::size_t i = 0; i < size; ++i)
      if (isNew(population[i])) top.offer(scores[i], population[i]);
    if (g == generations) break;

    // Roulette selection on predicted score, shifted so the worst has weight zero: a rank
    // objective's scores may be negative, a regression's are throughput-like.
    const float worst = *std::min_element(scores.begin(), scores.end());
    double total = 0;
    for (std::size_t i = 0; i < size; ++i) cumulative[i] = total += scores[i] - worst;
    auto choose = [&]() -> const Config& {
      if (!(total > 0)) return population[m_rng.below(size)];
      const double r = m_rng.uniform() * total;
      const auto it = std::upper_bound(cumulative.begin(), cumulative.end(), r);
      return population[std::min<std::size_t>(it - cumulative.begin(), size - 1)];
    };
    next.clear();
    while (next.size() < size) {
      const Config& parent = choose();
      Config child = parent;
      if (crossoverProb > 0 && m_rng.chance(crossoverProb)) {
        Config mixed = crossover(parent, choose());
        if (m_space.satisfies(mixed)) child = std::move(mixed);
      }
      if (m_rng.chance(mutationProb)) {
        Config mutated = mutate(child);
        // An invalid child is replaced by its parent's genes: the population keeps its size and
        // the loop its bound even where almost every neighbour is invalid.
        if (m_space.satisfies(mutated)) child = std::move(mutated);
      }
      next.push_back(std::move(child));
    }
    population.swap(next);
  }
  std::vector<Config> plan;
  for (auto& [score, c] : top.sorted()) plan.push_back(std::move(c));
  return plan;
}

}  // namespace opevo
