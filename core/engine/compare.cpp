#include "engine/compare.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "common/error.h"
#include "tuners/registry.h"

namespace opevo {

std::vector<int> summaryBudgets(int trials) {
  std::vector<int> budgets;
  for (int b : {25, 50, 100, 200, 400})
    if (b < trials) budgets.push_back(b);
  budgets.push_back(trials);
  return budgets;
}

CompareResult runCompare(const SearchSpace& space, Measurer& measurer, const CompareOptions& o,
                         std::optional<double> optimum,
                         const std::function<void(const CompareProgress&)>& progress) {
  if (o.algorithms.empty()) throw InputError("no algorithm given (--algos opevo,random,...)");
  if (o.repeats < 1) throw InputError("--repeats must be at least 1, got " + std::to_string(o.repeats));
  if (o.trials < 1) throw InputError("--trials must be at least 1, got " + std::to_string(o.trials));
  if (o.batch && *o.batch == 0) throw InputError("--batch must be at least 1, got 0");
  // Build every tuner once up front so a bad name or setting fails before any measurement.
  for (const std::string& algorithm : o.algorithms) {
    const auto it = o.settings.find(algorithm);
    makeTuner(algorithm, space, o.seed, it == o.settings.end() ? std::map<std::string, std::string>{}
                                                               : it->second);
  }
  for (const auto& [algorithm, values] : o.settings)
    if (std::find(o.algorithms.begin(), o.algorithms.end(), algorithm) == o.algorithms.end())
      throw InputError("a setting names algorithm '" + algorithm + "', which is not in --algos");

  CompareResult result;
  result.budgets = summaryBudgets(o.trials);
  using Clock = std::chrono::steady_clock;
  for (const std::string& algorithm : o.algorithms) {
    const auto it = o.settings.find(algorithm);
    const auto settings = it == o.settings.end() ? std::map<std::string, std::string>{} : it->second;
    for (int r = 0; r < o.repeats; ++r) {
      const std::uint64_t seed = o.seed + static_cast<std::uint64_t>(r);
      auto tuner = makeTuner(algorithm, space, seed, settings);
      const std::size_t batchSize = o.batch ? *o.batch : tuner->preferredBatch();
      int done = 0;
      double best = 0;
      while (done < o.trials) {
        const auto t0 = Clock::now();
        const std::size_t want = std::min<std::size_t>(batchSize, o.trials - done);
        std::vector<Config> batch = tuner->propose(want);
        const double proposeSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
        if (batch.empty()) break;  // exhausted
        const std::vector<Measurement> measured = measurer.measure(batch);
        std::vector<Observation> observations;
        for (std::size_t i = 0; i < batch.size(); ++i)
          observations.push_back({batch[i], measured[i].status == TrialStatus::Ok ? measured[i].speed : 0.0});
        const auto t1 = Clock::now();
        tuner->observe(observations);
        const double tunerSeconds =
            proposeSeconds + std::chrono::duration<double>(Clock::now() - t1).count();
        for (std::size_t i = 0; i < batch.size(); ++i) {
          best = std::max(best, observations[i].fitness);
          result.trials.push_back({algorithm, r, seed, ++done, batch[i], measured[i], best,
                                   tunerSeconds / double(batch.size())});
        }
        if (progress) progress({algorithm, r + 1, o.repeats, done, o.trials, best});
      }
    }
  }
  result.summary = summarize(result.trials, o.algorithms, result.budgets, optimum);
  return result;
}

std::vector<SummaryRow> summarize(const std::vector<TrialRecord>& trials,
                                  const std::vector<std::string>& algorithms,
                                  const std::vector<int>& budgets, std::optional<double> optimum) {
  std::vector<SummaryRow> rows;
  for (const std::string& algorithm : algorithms) {
    // best[repeat][k] = best after k+1 trials
    std::map<int, std::vector<double>> curves;
    for (const TrialRecord& t : trials)
      if (t.algorithm == algorithm) curves[t.repeat].push_back(t.bestSoFar);
    if (curves.empty()) continue;
    for (int budget : budgets) {
      std::vector<double> bests;
      for (const auto& [repeat, curve] : curves) {
        if (curve.empty()) {
          bests.push_back(0);
          continue;
        }
        // A run that exhausted the space early keeps its final best.
        bests.push_back(curve[std::min<std::size_t>(curve.size(), budget) - 1]);
      }
      double mean = 0;
      for (double b : bests) mean += b;
      mean /= double(bests.size());
      double var = 0;
      for (double b : bests) var += (b - mean) * (b - mean);
      const double sd = bests.size() > 1 ? std::sqrt(var / double(bests.size() - 1)) : 0.0;
      SummaryRow row{algorithm, budget, mean, sd, std::nullopt};
      if (optimum && *optimum > 0) row.meanFractionOfOptimum = mean / *optimum;
      rows.push_back(row);
    }
  }
  return rows;
}

}  // namespace opevo
