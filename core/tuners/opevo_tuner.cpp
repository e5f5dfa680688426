#include "tuners/opevo_tuner.h"

#include "space/qwalk.h"

namespace opevo {

TunerSettings OpEvoTuner::defaults() {
  TunerSettings s;
  s.declare("lambda", 8, 1, 1e6, true, "parents: the top-lambda configurations measured so far");
  s.declare("rho", 8, 1, 1e6, true, "children per generation (the batch)");
  s.declare("q", 0.5, 0, 1, false, "mutation rate: probability of another random-walk step",
            true, true);
  s.declare("max_remutations", 200, 1, 1e6, true,
            "mutations of one child before recombining afresh when it keeps landing on "
            "configurations already proposed");
  return s;
}

OpEvoTuner::OpEvoTuner(const SearchSpace& space, TunerSettings settings, std::uint64_t seed)
    : Tuner(space, std::move(settings), seed),
      m_lambda(m_settings.getInt("lambda")),
      m_rho(m_settings.getInt("rho")),
      m_q(m_settings.get("q")),
      m_maxRemutations(m_settings.getInt("max_remutations")) {}

Config OpEvoTuner::mutate(Config child) {
  for (std::size_t i = 0; i < child.size(); ++i)
    child[i] = qWalk(m_space.param(i), child[i], m_q, m_rng);
  return child;
}

std::optional<Config> OpEvoTuner::makeChild(const std::vector<std::size_t>& parents,
                                            double totalFitness) {
  // A few fresh recombinations, each mutated up to max_remutations times.
  for (int attempt = 0; attempt < 8; ++attempt) {
    Config child(m_space.dims());
    for (std::size_t i = 0; i < m_space.dims(); ++i) {
      double pick = m_rng.uniform() * totalFitness;
      std::size_t chosen = parents.back();
      for (std::size_t j : parents) {
        pick -= history()[j].fitness;
        if (pick < 0) {
          chosen = j;
          break;
        }
      }
      child[i] = history()[chosen].config[i];
    }
    // Re-mutation: first draw again from the q-walk distribution around the recombined child
    // (so a child is a sample of that distribution restricted to new, valid configurations);
    // if its neighbourhood is used up, keep walking from the last mutant to get out of it.
    const Config recombined = child;
    for (int m = 0; m < m_maxRemutations; ++m) {
      child = mutate(m < m_maxRemutations / 2 ? recombined : std::move(child));
      if (isNew(child)) return child;
    }
  }
  return std::nullopt;
}

std::vector<std::size_t> OpEvoTuner::parents() const {
  // Zero-fitness configurations would carry no weight in recombination anyway; leaving them out
  // makes it plain that an invalid configuration is never inherited.
  std::vector<std::size_t> chosen;
  for (std::size_t index : ranking()) {
    if (static_cast<int>(chosen.size()) == m_lambda || history()[index].fitness <= 0) break;
    chosen.push_back(index);
  }
  return chosen;
}

std::vector<Config> OpEvoTuner::doPropose(std::size_t n) {
  std::vector<Config> batch;
  const std::vector<std::size_t> parents = this->parents();
  double totalFitness = 0;
  for (std::size_t index : parents) totalFitness += history()[index].fitness;
  const std::size_t known = history().size() + inFlight();
  while (batch.size() < n) {
    std::optional<Config> child;
    // Algorithm 1 starts from lambda random configurations.
    const bool randomPhase = known + batch.size() < static_cast<std::size_t>(m_lambda);
    if (!parents.empty() && !randomPhase) child = makeChild(parents, totalFitness);
    // Random phase (nothing valid measured yet), or the neighbourhood of the parents is used up.
    if (!child) child = randomNew();
    if (!child) break;  // the space is exhausted
    reserve(*child);
    batch.push_back(std::move(*child));
  }
  return batch;
}

}  // namespace opevo
