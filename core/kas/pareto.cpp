#include "kas/pareto.h"

#include <algorithm>

namespace opevo::kas {

std::vector<std::size_t> paretoFront(const std::vector<ParetoPoint>& points) {
  std::vector<std::size_t> front;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const ParetoPoint& p = points[i];
    const bool dominated = std::any_of(points.begin(), points.end(), [&](const ParetoPoint& q) {
      return q.speedup >= p.speedup && q.accuracy >= p.accuracy &&
             (q.speedup > p.speedup || q.accuracy > p.accuracy);
    });
    if (!dominated) front.push_back(i);
  }
  std::sort(front.begin(), front.end(),
            [&](std::size_t a, std::size_t b) { return points[a].speedup > points[b].speedup; });
  return front;
}

}  // namespace opevo::kas
