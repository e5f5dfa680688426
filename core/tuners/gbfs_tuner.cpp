#include "tuners/gbfs_tuner.h"

#include "common/error.h"
#include "tuners/registry.h"

namespace opevo {

void requireFactorSpace(const SearchSpace& space, const std::string& algorithm) {
  for (std::size_t i = 0; i < space.dims(); ++i) {
    if (space.param(i).kind() == ParamKind::Factor) continue;
    // The algorithms that take every kind of parameter, as registered (the list it named by hand
    // left out the default, opevo-m).
    std::string others;
    for (const TunerInfo& t : tunerRegistry().all())
      if (!t.factorsOnly) others += (others.empty() ? "" : ", ") + t.name;
    throw InputError(algorithm + " handles factor parameters only, but parameter '" +
                     space.param(i).name() + "' is " + space.param(i).spec() + " (use one of " +
                     others + ")");
  }
}

TunerSettings GbfsTuner::defaults() {
  TunerSettings s;
  s.declare("rho", 5, 1, 1e6, true, "neighbours sampled per expanded configuration");
  return s;
}

GbfsTuner::GbfsTuner(const SearchSpace& space, TunerSettings settings, std::uint64_t seed)
    : Tuner(space, std::move(settings), seed), m_rho(m_settings.getInt("rho")) {
  requireFactorSpace(space, "gbfs");
}

std::vector<Config> GbfsTuner::neighbours(const Config& c) const {
  std::vector<Config> out;
  std::vector<Vertex> moves;
  for (std::size_t i = 0; i < c.size(); ++i) {
    m_space.param(i).neighbours(c[i], moves);
    for (Vertex& v : moves) {
      Config n = c;
      n[i] = std::move(v);
      out.push_back(std::move(n));
    }
  }
  return out;
}

std::vector<Config> GbfsTuner::doPropose(std::size_t n) {
  std::vector<Config> batch;
  if (!m_started) {
    m_started = true;
    const Config start = m_space.first();
    if (isNew(start)) {
      reserve(start);
      batch.push_back(start);
    }
  }
  const std::vector<std::size_t> order = ranking();
  std::size_t cursor = 0;
  while (batch.size() < n) {
    // The best measured configuration not yet expanded.
    while (cursor < order.size() && m_expanded.count(order[cursor])) ++cursor;
    if (cursor == order.size()) {
      // Nothing left to expand (or the start broke a constraint): jump somewhere new.
      if (!batch.empty()) break;
      std::optional<Config> c = randomNew();
      if (!c) break;
      reserve(*c);
      batch.push_back(std::move(*c));
      continue;
    }
    const std::size_t expand = order[cursor];
    m_expanded.insert(expand);
    std::vector<Config> candidates = neighbours(history()[expand].config);
    // rho of them at random (partial Fisher-Yates), keeping the unseen valid ones.
    const std::size_t take = std::min<std::size_t>(m_rho, candidates.size());
    for (std::size_t k = 0; k < take && batch.size() < n; ++k) {
      std::swap(candidates[k], candidates[k + m_rng.below(candidates.size() - k)]);
      if (!isNew(candidates[k])) continue;
      reserve(candidates[k]);
      batch.push_back(candidates[k]);
    }
  }
  return batch;
}

}  // namespace opevo
