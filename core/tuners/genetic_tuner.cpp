#include "tuners/genetic_tuner.h"

namespace opevo {

TunerSettings GeneticTuner::defaults() {
  TunerSettings s;
  s.declare("population", 16, 2, 1e6, true, "population size and batch");
  s.declare("tournament", 3, 1, 1e6, true, "contestants per tournament selection");
  s.declare("mutation", 0.1, 0, 1, false, "probability that a gene is redrawn at random");
  return s;
}

GeneticTuner::GeneticTuner(const SearchSpace& space, TunerSettings settings, std::uint64_t seed)
    : Tuner(space, std::move(settings), seed),
      m_population(m_settings.getInt("population")),
      m_tournament(m_settings.getInt("tournament")),
      m_mutation(m_settings.get("mutation")) {}

std::size_t GeneticTuner::tournament(const std::vector<std::size_t>& pool) {
  std::size_t winner = pool[m_rng.below(pool.size())];
  for (int i = 1; i < m_tournament; ++i) {
    const std::size_t contender = pool[m_rng.below(pool.size())];
    if (history()[contender].fitness > history()[winner].fitness) winner = contender;
  }
  return winner;
}

std::vector<Config> GeneticTuner::doPropose(std::size_t n) {
  // The mating pool: the best `population` measured configurations with a non-zero fitness.
  std::vector<std::size_t> pool;
  for (std::size_t index : ranking()) {
    if (static_cast<int>(pool.size()) == m_population || history()[index].fitness <= 0) break;
    pool.push_back(index);
  }
  std::vector<Config> batch;
  while (batch.size() < n) {
    std::optional<Config> child;
    if (pool.size() >= 2) {
      for (int attempt = 0; attempt < 100 && !child; ++attempt) {
        const Config& a = history()[tournament(pool)].config;
        const Config& b = history()[tournament(pool)].config;
        Config c(m_space.dims());
        for (std::size_t i = 0; i < c.size(); ++i) {
          c[i] = m_rng.chance(0.5) ? a[i] : b[i];
          if (m_rng.chance(m_mutation)) c[i] = m_space.param(i).random(m_rng);
        }
        if (isNew(c)) child = std::move(c);
      }
    }
    if (!child) child = randomNew();
    if (!child) break;
    reserve(*child);
    batch.push_back(std::move(*child));
  }
  return batch;
}

}  // namespace opevo
