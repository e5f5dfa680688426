#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace opevo::ui {

// One run's best-so-far curve, by trial and by tuning time.
struct RunCurve {
  std::vector<double> bestByTrial;                    // [k] = best after k+1 trials
  std::vector<std::pair<double, double>> bestByTime;  // (seconds, best), one per trial
  // A finished run keeps its final best beyond its end (it exhausted the space or its budget);
  // a running one has no value there yet, so it is left out of the mean rather than counted low.
  bool finished = false;
};

// Mean and sample standard deviation across runs at each x, and how many runs had a value.
struct Band {
  std::vector<double> x, mean, sd;
  std::vector<int> n;
  std::size_t size() const { return x.size(); }
};

// x = 1, 2, ... up to the longest run.
Band bandByTrial(const std::vector<const RunCurve*>& runs);
// x on a grid of the runs' own trial times (at most maxPoints of them), each run's best as a
// step function of time.
Band bandByTime(const std::vector<const RunCurve*>& runs, std::size_t maxPoints = 600);

}  // namespace opevo::ui
