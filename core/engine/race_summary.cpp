#include "engine/race_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "common/error.h"
#include "engine/speed_unit.h"
#include "io/export_file.h"

namespace opevo {

std::vector<int> summaryBudgets(int trials) {
  std::vector<int> budgets;
  for (int b : {25, 50, 100, 200, 400})
    if (b < trials) budgets.push_back(b);
  budgets.push_back(trials);
  return budgets;
}

std::vector<SummaryRow> summarize(const std::vector<TrialRecord>& trials,
                                  const std::vector<std::string>& algorithms,
                                  const std::vector<int>& budgets, std::optional<double> optimum) {
  std::vector<SummaryRow> rows;
  for (const std::string& algorithm : algorithms) {
    // curves[repeat][k] = best after k+1 trials; interleaved records keep each run's own order
    std::map<int, std::vector<double>> curves;
    for (const TrialRecord& t : trials)
      if (t.algorithm == algorithm) curves[t.repeat].push_back(t.bestSoFar);
    if (curves.empty()) continue;
    for (int budget : budgets) {
      std::vector<double> bests;
      // The trials the runs had: fewer than the budget when they exhausted the space.
      std::size_t had = 0;
      for (const auto& [repeat, curve] : curves) {
        const std::size_t k = std::min<std::size_t>(curve.size(), std::size_t(budget));
        bests.push_back(curve[k - 1]);
        had = std::max(had, k);
      }
      double mean = 0;
      for (double b : bests) mean += b;
      mean /= double(bests.size());
      double var = 0;
      for (double b : bests) var += (b - mean) * (b - mean);
      const double sd = bests.size() > 1 ? std::sqrt(var / double(bests.size() - 1)) : 0.0;
      // Budgets past the space's end repeat the same row: it is given once.
      if (!rows.empty() && rows.back().algorithm == algorithm &&
          rows.back().trials == static_cast<int>(had))
        continue;
      SummaryRow row{algorithm, static_cast<int>(had), mean,
                     sd,        std::nullopt,          static_cast<int>(bests.size())};
      if (optimum && *optimum > 0) row.meanFractionOfOptimum = mean / *optimum;
      rows.push_back(row);
    }
  }
  return rows;
}

std::string summaryMarkdown(const std::vector<SummaryRow>& rows, const std::string& speedUnit) {
  const bool fractions = std::any_of(rows.begin(), rows.end(), [](const SummaryRow& r) {
    return r.meanFractionOfOptimum.has_value();
  });
  std::string md = "| algorithm | trials | mean best (" + speedUnit + ") | std |" +
                   (fractions ? " fraction of optimum |" : "") + "\n";
  md += fractions ? "| --- | ---: | ---: | ---: | ---: |\n" : "| --- | ---: | ---: | ---: |\n";
  for (const SummaryRow& r : rows) {
    char fraction[40] = "";
    if (fractions)
      std::snprintf(fraction, sizeof fraction, r.meanFractionOfOptimum ? " %.6g |" : " n/a |",
                    r.meanFractionOfOptimum.value_or(0));
    // The std in the mean's form, 3 digits: %.3g printed "633" beside "1.64e+03".
    char line[256];
    std::snprintf(line, sizeof line, "| %s | %d | %s | %s |%s\n", r.algorithm.c_str(), r.trials,
                  speedNumber(r.meanBest).c_str(), speedNumber(r.stdBest, 3).c_str(), fraction);
    md += line;
  }
  return md;
}

void writeSummaryJson(const std::string& path, const std::vector<SummaryRow>& summary,
                      const SummaryProvenance& p) {
  const auto orNull = [](const auto& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
  nlohmann::json rows = nlohmann::json::array();
  for (const SummaryRow& r : summary) {
    nlohmann::json row{{"algorithm", r.algorithm},
                       {"trials", r.trials},
                       {"mean_best", r.meanBest},
                       {"std_best", r.stdBest},
                       {"mean_fraction_of_optimum", orNull(r.meanFractionOfOptimum)},
                       {"speed_unit", p.speedUnit},
                       {"measured_by", p.measuredBy},
                       {"dataset", p.dataset},
                       {"completeness", p.completeness},
                       {"optimum", orNull(p.optimum)},
                       {"seed", p.seed},
                       {"repeats", p.repeats},
                       {"trials_per_run", p.trialsPerRun},
                       {"schedule", p.schedule},
                       {"batch", orNull(p.batch)},
                       {"trials_run", p.trialsRun},
                       {"stopped_early", p.stoppedEarly},
                       {"version", p.version}};
    rows.push_back(std::move(row));
  }
  // Through a temporary renamed into place: a full disk is an error with its reason, never a
  // silent empty file (an ofstream's failed flush at close went unnoticed). Numbers are written
  // to round-trip (nlohmann's shortest form).
  writeExportFile(path, rows.dump(2));
}

std::vector<SharedStart> sharedStarts(const std::vector<TrialRecord>& trials,
                                      const std::vector<std::string>& algorithms, int atLeast) {
  std::map<std::pair<std::string, int>, std::vector<const TrialRecord*>> runs;
  std::set<int> repeats;
  for (const TrialRecord& t : trials) {
    runs[{t.algorithm, t.repeat}].push_back(&t);
    repeats.insert(t.repeat);
  }
  for (auto& [key, run] : runs)
    std::sort(run.begin(), run.end(),
              [](const TrialRecord* a, const TrialRecord* b) { return a->trial < b->trial; });
  // The first trials two algorithms share in every repeat.
  const auto common = [&](const std::string& a, const std::string& b) {
    int shortest = -1;
    for (int r : repeats) {
      const auto& x = runs[{a, r}];
      const auto& y = runs[{b, r}];
      int same = 0;
      while (same < int(std::min(x.size(), y.size())) && x[same]->config == y[same]->config) ++same;
      shortest = shortest < 0 ? same : std::min(shortest, same);
    }
    return std::max(shortest, 0);
  };
  // Equal starts are transitive, so each algorithm joins the first group whose first member it
  // shares enough with; the group's start is the shortest its members share with that member.
  std::vector<SharedStart> groups;
  for (const std::string& a : algorithms) {
    bool joined = false;
    for (SharedStart& g : groups)
      if (const int n = common(g.algorithms.front(), a); n >= atLeast) {
        g.algorithms.push_back(a);
        g.trials = g.algorithms.size() == 2 ? n : std::min(g.trials, n);
        joined = true;
        break;
      }
    if (!joined) groups.push_back({{a}, 0});
  }
  std::erase_if(groups, [](const SharedStart& g) { return g.algorithms.size() < 2; });
  return groups;
}

}  // namespace opevo
