#include "tuners/exhaustive_tuner.h"

#include "common/error.h"
#include "space/enumerate.h"

namespace opevo {

ExhaustiveTuner::ExhaustiveTuner(const SearchSpace& space, TunerSettings settings,
                                 std::uint64_t seed)
    : Tuner(space, std::move(settings), seed) {
  if (const auto* points = space.explicitPoints()) {
    for (const Config& c : *points)
      if (space.satisfies(c)) m_order.push_back(c);
    return;
  }
  if (!(space.size() <= kEnumerableSpace))
    throw InputError("exhaustive search is for spaces of at most " +
                     std::to_string(kEnumerableSpace) + " points; this one has " +
                     space.size().toString());
  forEachConfig(space, kEnumerableSpace, [&](const Config& c) {
    if (space.satisfies(c)) m_order.push_back(c);
    return true;
  });
}

std::vector<Config> ExhaustiveTuner::doPropose(std::size_t n) {
  std::vector<Config> batch;
  while (batch.size() < n && m_next < m_order.size()) {
    const Config& c = m_order[m_next++];
    if (!isNew(c)) continue;
    reserve(c);
    batch.push_back(c);
  }
  return batch;
}

}  // namespace opevo
