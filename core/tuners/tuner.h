#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "common/rng.h"
#include "space/search_space.h"
#include "tuners/settings.h"

namespace opevo {

// A measured configuration as a tuner sees it. Fitness is speed: higher is better, and 0 for a
// configuration that was invalid or failed (it must never be inherited or preferred).
struct Observation {
  Config config;
  double fitness = 0;
};

// One interface for every search algorithm: propose a batch, observe its results. Seeded and
// deterministic: the same seed and the same observations give the same proposals. The base
// class owns what every tuner needs to agree on: which configurations were already proposed
// (measured or still being measured), so none is ever proposed twice, and that every proposal
// satisfies the space's constraints.
class Tuner {
 public:
  Tuner(const SearchSpace& space, TunerSettings settings, std::uint64_t seed);
  virtual ~Tuner() = default;

  virtual std::string name() const = 0;
  // The batch the algorithm is designed around (OpEvo's rho, AutoTVM's plan size); drivers ask
  // for this many at a time unless told otherwise.
  virtual std::size_t preferredBatch() const { return 8; }

  // Up to n configurations, each new and valid. Fewer, possibly none, when the tuner can find
  // no more (the space is exhausted); then exhausted() is true.
  std::vector<Config> propose(std::size_t n);
  // Results of earlier proposals, in any order and any grouping.
  void observe(const std::vector<Observation>& results);

  bool exhausted() const { return m_exhausted; }
  std::size_t inFlight() const { return m_pending.size(); }
  const std::vector<Observation>& history() const { return m_history; }
  // Indices into history(), best fitness first; ties keep measurement order.
  std::vector<std::size_t> ranking() const;
  const TunerSettings& settings() const { return m_settings; }
  const SearchSpace& space() const { return m_space; }

 protected:
  virtual std::vector<Config> doPropose(std::size_t n) = 0;
  virtual void doObserve(const std::vector<Observation>&) {}

  // Not proposed before (neither measured nor in flight) and satisfying every constraint.
  bool isNew(const Config& c) const;
  bool wasProposed(const Config& c) const { return m_proposed.count(c) > 0; }
  // A uniformly random new configuration: by rejection first; when that keeps failing and the
  // space is small enough, by enumerating what is left. nullopt when nothing is left. Take: the
  // caller proposes it (an enumerated point is struck off the list); Look: a candidate that may
  // not be proposed, so it stays on the list.
  enum class Draw { Take, Look };
  std::optional<Config> randomNew(Draw draw = Draw::Take);
  // Marks a configuration as chosen within the batch being built, so a later pick in the same
  // doPropose call does not repeat it. propose() marks the returned batch itself.
  void reserve(const Config& c) { m_proposed.insert(c); }

  const SearchSpace& m_space;
  TunerSettings m_settings;
  Rng m_rng;

 private:
  std::unordered_set<Config, ConfigHash> m_proposed;
  std::unordered_set<Config, ConfigHash> m_pending;
  std::vector<Observation> m_history;
  std::optional<std::vector<Config>> m_remaining;  // enumerated unproposed valid points
  bool m_exhausted = false;
};

// Largest Cartesian product that randomNew() will enumerate once random draws stop finding new
// points.
inline constexpr std::size_t kEnumerableSpace = 5'000'000;

}  // namespace opevo
