#include "engine/curve_stats.h"

#include <algorithm>
#include <cmath>

namespace opevo {
namespace {

double meanOf(const std::vector<double>& values) {
  double sum = 0;
  for (double v : values) sum += v;
  return sum / double(values.size());
}

// The runs' bests after `trial` trials, of the runs that have one there.
void valuesAtTrial(const std::vector<const RunCurve*>& runs, int trial,
                   std::vector<double>& values) {
  values.clear();
  for (const RunCurve* r : runs)
    if (const auto v = r->bestAtTrial(trial)) values.push_back(*v);
}

void addPoint(Band& band, double x, const std::vector<double>& values) {
  if (values.empty()) return;
  const double mean = meanOf(values);
  double var = 0;
  for (double v : values) var += (v - mean) * (v - mean);
  // Sample deviation, as core's summarize() reports it, so the band matches `opevo compare`.
  const double sd = values.size() > 1 ? std::sqrt(var / double(values.size() - 1)) : 0.0;
  band.x.push_back(x);
  band.mean.push_back(mean);
  band.sd.push_back(sd);
  band.n.push_back(static_cast<int>(values.size()));
}

}  // namespace

void RunCurve::add(double seconds, double best) {
  ++trials;
  lastSeconds = seconds;
  if (steps.empty() || steps.back().best != best) steps.push_back({trials, seconds, best});
}

std::optional<double> RunCurve::bestAtTrial(int trial) const {
  return bestAt(trial, trials, [](const Step& s) { return s.trial; });
}

std::optional<double> RunCurve::bestAtTime(double seconds) const {
  return bestAt(seconds, lastSeconds, [](const Step& s) { return s.seconds; });
}

std::optional<double> meanBestAtTrial(const std::vector<const RunCurve*>& runs, int trial) {
  std::vector<double> values;
  valuesAtTrial(runs, trial, values);
  if (values.empty()) return std::nullopt;
  return meanOf(values);
}

Band bandByTrial(const std::vector<const RunCurve*>& runs) {
  int longest = 0;
  for (const RunCurve* r : runs) longest = std::max(longest, r->trials);
  // A running run has no value past its last trial yet: beyond it the mean would be that of the
  // runs ahead alone, a jump that is no mean of the repeats, so the band ends with the run
  // furthest behind.
  for (const RunCurve* r : runs)
    if (!r->finished && r->trials > 0) longest = std::min(longest, r->trials);
  Band band;
  std::vector<double> values;
  for (int k = 1; k <= longest; ++k) {
    valuesAtTrial(runs, k, values);
    addPoint(band, double(k), values);
  }
  return band;
}

Band bandByTime(const std::vector<const RunCurve*>& runs, std::size_t maxPoints) {
  // The mean changes only where a run's best changes, where a run starts, or where a running one
  // ends (it leaves the mean): between those times every run is flat.
  std::vector<double> times;
  for (const RunCurve* r : runs) {
    for (const RunCurve::Step& s : r->steps) times.push_back(s.seconds);
    if (!r->steps.empty()) times.push_back(r->lastSeconds);
  }
  // The band ends where the running run furthest behind has its last trial (as by trial), and
  // begins where the run that took longest to its first trial has it: before that the mean would
  // be of the runs that began sooner alone, and a run joining it with a lower best pulled a mean
  // of best-so-far curves down (8,300 GFLOP/s, then 5,800, on a replay race's log axis). By trial
  // every run begins at trial 1.
  double begin = 0, end = 1e300;
  for (const RunCurve* r : runs) {
    if (r->steps.empty()) continue;
    begin = std::max(begin, r->steps.front().seconds);
    if (!r->finished) end = std::min(end, r->lastSeconds);
  }
  // A run stopped after its first trial, before another's first (9.8 s against 10.2 s), would
  // leave no time between: the band is then the one point where the running run ends.
  begin = std::min(begin, end);
  std::erase_if(times, [&](double t) { return t < begin || t > end; });
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  if (times.size() > maxPoints && maxPoints >= 2) {
    // Every k-th time, last kept.
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
      if (const auto v = r->bestAtTime(t)) values.push_back(*v);
    addPoint(band, t, values);
  }
  return band;
}

}  // namespace opevo
