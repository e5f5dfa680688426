#include "tuners/exhaustive_tuner.h"

#include "common/error.h"
#include "space/enumerate.h"

namespace opevo {

ExhaustiveTuner::ExhaustiveTuner(const SearchSpace& space, TunerSettings settings,
                                 std::uint64_t seed)
    : Tuner(space, std::move(settings), seed) {
  if (const auto* points = space.explicitPoints()) {
    for (std::size_t i = 0; i < points->size(); ++i)
      if (space.satisfies((*points)[i])) m_valid.push_back(i);
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
  const auto* points = m_space.explicitPoints();
  const std::size_t count = points ? m_valid.size() : m_order.size();
  while (batch.size() < n && m_next < count) {
    const Config& c = points ? (*points)[m_valid[m_next]] : m_order[m_next];
    ++m_next;
    if (!isNew(c)) continue;
    reserve(c);
    batch.push_back(c);
  }
  return batch;
}

}  // namespace opevo
