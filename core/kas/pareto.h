#pragma once

#include <cstddef>
#include <vector>

namespace opevo::kas {

// A candidate's two figures, both better when higher.
struct ParetoPoint {
  double speedup = 0;
  double accuracy = 0;
};

// The indices of the points no other point dominates (at least as fast and as accurate, and
// strictly better in one), ordered by speed-up, fastest first. Equal points are all kept.
std::vector<std::size_t> paretoFront(const std::vector<ParetoPoint>& points);

}  // namespace opevo::kas
