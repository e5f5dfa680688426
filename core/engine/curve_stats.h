#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <vector>

namespace opevo {

// Best-so-far curves of runs and their statistics across repeats: the Runs page and History draw
// them, `opevo runs compare` prints them, from here, so the chart's band and the command's means
// read one rule.

// One run's best-so-far curve, kept as the trials where the best changed (and the first): a step
// function, so a run of a million trials costs as many points as it had improvements.
struct RunCurve {
  struct Step {
    int trial = 0;  // 1-based
    // The run's time at that trial: its tuning time, or a replay's device time by its file.
    double seconds = 0;
    double best = 0;  // the best from this trial on
  };
  std::vector<Step> steps;
  int trials = 0;          // measured so far
  double lastSeconds = 0;  // the time at its last trial
  std::int64_t run = 0;    // the run's id in the store (its place in the race when not stored)
  // A finished run keeps its final best beyond its end (it exhausted the space or its budget);
  // a running one has no value there yet, so the band ends there rather than count it low.
  bool finished = false;

  void add(double seconds, double best);
  // The best after `trial` trials (1-based) and at `seconds` of its time; nothing before the
  // first trial, nor beyond the last one of a run still going.
  std::optional<double> bestAtTrial(int trial) const;
  std::optional<double> bestAtTime(double seconds) const;

 private:
  // The best at `x` along one axis of the steps (`keyOf`: trial or seconds; `last`: the run's
  // last trial on that axis).
  template <typename X, typename KeyOf>
  std::optional<double> bestAt(X x, X last, KeyOf keyOf) const {
    if (steps.empty() || x < keyOf(steps.front())) return std::nullopt;
    if (x > last && !finished) return std::nullopt;
    const auto it = std::upper_bound(steps.begin(), steps.end(), x,
                                     [&](X value, const Step& s) { return value < keyOf(s); });
    return std::prev(it)->best;
  }
};

// Mean and sample standard deviation across runs at each x, and how many runs had a value.
struct Band {
  std::vector<double> x, mean, sd;
  std::vector<int> n;
  std::size_t size() const { return x.size(); }
};

// The mean over `runs` of their best after `trial` trials, of those that have one there
// (bestAtTrial: a finished run's last best holds after its last trial); unset where none has.
std::optional<double> meanBestAtTrial(const std::vector<const RunCurve*>& runs, int trial);

// x = 1, 2, ... up to the longest run, or while some run is still going, up to the last trial of
// the one furthest behind (past it the mean would be of the runs ahead alone).
Band bandByTrial(const std::vector<const RunCurve*>& runs);
// x on the times where some run's best changed, started or (running) ended, at most maxPoints
// of them, from the first trial of the run that began last up to the last trial of the running
// run furthest behind, so every run that has begun is in each mean; each run's best as a step
// function of time.
Band bandByTime(const std::vector<const RunCurve*>& runs, std::size_t maxPoints = 600);

}  // namespace opevo
