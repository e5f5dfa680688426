#include "tuners/annealing_tuner.h"

#include <algorithm>
#include <cmath>

namespace opevo {

TunerSettings AnnealingTuner::defaults() {
  TunerSettings s;
  s.declare("chains", 8, 1, 4096, true, "parallel annealing chains (the batch)");
  s.declare("t_start", 0.3, 0, 100, false, "start temperature, in units of the best fitness", true);
  s.declare("cooling", 0.97, 0, 1, false, "temperature factor per step", true);
  s.declare("t_min", 0.005, 0, 100, false, "lowest temperature", true);
  return s;
}

AnnealingTuner::AnnealingTuner(const SearchSpace& space, TunerSettings settings,
                               std::uint64_t seed)
    : Tuner(space, std::move(settings), seed),
      m_chains(static_cast<std::size_t>(m_settings.getInt("chains"))),
      m_temperature(m_settings.get("t_start")),
      m_cooling(m_settings.get("cooling")),
      m_minTemperature(m_settings.get("t_min")) {}

std::optional<Config> AnnealingTuner::step(const Config& from) {
  // Walk on from the neighbour when it was already proposed, so a chain never stalls.
  Config c = from;
  for (int tries = 0; tries < 64; ++tries) {
    const std::size_t i = m_rng.below(m_space.dims());
    c[i] = m_space.param(i).randomNeighbour(c[i], m_rng);
    if (isNew(c)) return c;
  }
  return randomNew();
}

std::vector<Config> AnnealingTuner::doPropose(std::size_t n) {
  std::vector<Config> batch;
  for (std::size_t k = 0; batch.size() < n; k = (k + 1) % m_chains.size()) {
    Chain& chain = m_chains[k];
    std::optional<Config> next = chain.current ? step(*chain.current) : randomNew();
    if (!next) break;
    reserve(*next);
    chain.pending = *next;
    batch.push_back(std::move(*next));
  }
  return batch;
}

void AnnealingTuner::doObserve(const std::vector<Observation>& results) {
  for (const Observation& o : results) m_best = std::max(m_best, o.fitness);
  for (const Observation& o : results) {
    for (Chain& chain : m_chains) {
      if (!chain.pending || *chain.pending != o.config) continue;
      chain.pending.reset();
      const double scale = std::max(m_best, 1e-300) * m_temperature;
      const bool accept = !chain.current || o.fitness >= chain.fitness ||
                          m_rng.chance(std::exp((o.fitness - chain.fitness) / scale));
      if (accept) {
        chain.current = o.config;
        chain.fitness = o.fitness;
      }
      break;
    }
  }
  m_temperature = std::max(m_minTemperature, m_temperature * m_cooling);
}

}  // namespace opevo
