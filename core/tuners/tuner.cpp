#include "tuners/tuner.h"

#include <algorithm>
#include <cassert>

#include "space/enumerate.h"

namespace opevo {

Tuner::Tuner(const SearchSpace& space, TunerSettings settings, std::uint64_t seed)
    : m_space(space), m_settings(std::move(settings)), m_rng(seed) {}

std::vector<Config> Tuner::propose(std::size_t n) {
  if (n == 0 || m_exhausted) return {};
  const std::size_t before = m_proposed.size();
  std::vector<Config> batch = doPropose(n);
  // doPropose reserve()s its picks, so every returned point is in m_proposed and new.
  assert(batch.size() <= n);
  assert(m_proposed.size() == before + batch.size());
  (void)before;
  for (const Config& c : batch) {
    assert(m_space.satisfies(c));
    m_proposed.insert(c);
    m_pending.insert(c);
  }
  if (batch.empty()) m_exhausted = true;
  return batch;
}

void Tuner::observe(const std::vector<Observation>& results) {
  for (const Observation& o : results) {
    m_pending.erase(o.config);
    m_proposed.insert(o.config);
    m_history.push_back(o);
  }
  doObserve(results);
}

std::vector<std::size_t> Tuner::ranking() const {
  std::vector<std::size_t> order(m_history.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return m_history[a].fitness > m_history[b].fitness;
  });
  return order;
}

bool Tuner::isNew(const Config& c) const {
  return m_proposed.count(c) == 0 && m_space.satisfies(c);
}

std::optional<Config> Tuner::randomNew(Draw draw) {
  if (!m_remaining) {
    for (int attempt = 0; attempt < 2000; ++attempt) {
      std::optional<Config> c = m_space.randomValid(m_rng, 1);
      if (c && isNew(*c)) return c;
    }
    const auto* points = m_space.explicitPoints();
    // Too large to list: a space this sparse in valid new points is treated as exhausted.
    if (!points && !(m_space.size() <= kEnumerableSpace)) return std::nullopt;
    m_remaining.emplace();
    if (points) {
      for (const Config& c : *points)
        if (isNew(c)) m_remaining->push_back(c);
    } else {
      forEachConfig(m_space, kEnumerableSpace, [&](const Config& c) {
        if (isNew(c)) m_remaining->push_back(c);
        return true;
      });
    }
  }
  // Swap-remove picks uniformly among what is left; entries proposed since are dropped.
  while (!m_remaining->empty()) {
    const std::size_t i = m_rng.below(m_remaining->size());
    if (draw == Draw::Look && !wasProposed((*m_remaining)[i])) return (*m_remaining)[i];
    Config c = std::move((*m_remaining)[i]);
    (*m_remaining)[i] = std::move(m_remaining->back());
    m_remaining->pop_back();
    if (!wasProposed(c)) return c;
  }
  return std::nullopt;
}

}  // namespace opevo
