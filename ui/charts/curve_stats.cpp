#include "ui/charts/curve_stats.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace opevo::ui {
namespace {

void addPoint(Band& band, double x, const std::vector<double>& values) {
  if (values.empty()) return;
  double mean = 0;
  for (double v : values) mean += v;
  mean /= double(values.size());
  double var = 0;
  for (double v : values) var += (v - mean) * (v - mean);
  // Sample deviation, as core's summarize() reports it, so the band matches `opevo compare`.
  const double sd = values.size() > 1 ? std::sqrt(var / double(values.size() - 1)) : 0.0;
  band.x.push_back(x);
  band.mean.push_back(mean);
  band.sd.push_back(sd);
  band.n.push_back(static_cast<int>(values.size()));
}

// The run's best at time t: that of its last trial at or before t.
std::optional<double> bestAt(const RunCurve& run, double t) {
  const auto& pts = run.bestByTime;
  if (pts.empty() || t < pts.front().first) return std::nullopt;
  if (t > pts.back().first && !run.finished) return std::nullopt;
  auto it = std::upper_bound(pts.begin(), pts.end(), t,
                             [](double value, const auto& p) { return value < p.first; });
  return std::prev(it)->second;
}

}  // namespace

Band bandByTrial(const std::vector<const RunCurve*>& runs) {
  std::size_t longest = 0;
  for (const RunCurve* r : runs) longest = std::max(longest, r->bestByTrial.size());
  Band band;
  std::vector<double> values;
  for (std::size_t k = 0; k < longest; ++k) {
    values.clear();
    for (const RunCurve* r : runs) {
      if (k < r->bestByTrial.size())
        values.push_back(r->bestByTrial[k]);
      else if (r->finished && !r->bestByTrial.empty())
        values.push_back(r->bestByTrial.back());
    }
    addPoint(band, double(k + 1), values);
  }
  return band;
}

Band bandByTime(const std::vector<const RunCurve*>& runs, std::size_t maxPoints) {
  std::vector<double> times;
  for (const RunCurve* r : runs)
    for (const auto& p : r->bestByTime) times.push_back(p.first);
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  if (times.size() > maxPoints && maxPoints >= 2) {
    // Every k-th time, last kept: the grid follows where trials are dense.
    std::vector<double> thinned;
    const double step = double(times.size() - 1) / double(maxPoints - 1);
    for (std::size_t i = 0; i < maxPoints; ++i)
      thinned.push_back(times[static_cast<std::size_t>(std::lround(double(i) * step))]);
    times = std::move(thinned);
  }
  Band band;
  std::vector<double> values;
  for (double t : times) {
    values.clear();
    for (const RunCurve* r : runs)
      if (const auto v = bestAt(*r, t)) values.push_back(*v);
    addPoint(band, t, values);
  }
  return band;
}

}  // namespace opevo::ui
