#include "engine/race_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "common/error.h"
#include "engine/device_time.h"
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

namespace {

struct MeanSd {
  double mean = 0, sd = 0;
};

// The sample standard deviation (n - 1; 0 for one value).
MeanSd meanSd(const std::vector<double>& values) {
  MeanSd out;
  if (values.empty()) return out;
  for (double v : values) out.mean += v;
  out.mean /= double(values.size());
  double var = 0;
  for (double v : values) var += (v - out.mean) * (v - out.mean);
  out.sd = values.size() > 1 ? std::sqrt(var / double(values.size() - 1)) : 0.0;
  return out;
}

// One run as the summary reads it: after each trial, its best and its device time so far.
struct Curve {
  std::vector<double> best;
  std::vector<double> deviceSeconds;
};

// Seconds printed to about four figures without an exponent: "0.412", "61.3", "4107".
std::string secondsText(double s) {
  char text[32];
  std::snprintf(text, sizeof text, s < 10 ? "%.3g" : s < 1000 ? "%.1f" : "%.0f", s);
  return text;
}

}  // namespace

std::vector<SummaryRow> summarize(const std::vector<TrialRecord>& trials,
                                  const std::vector<std::string>& algorithms,
                                  const std::vector<int>& budgets, std::optional<double> optimum) {
  std::vector<SummaryRow> rows;
  const bool target = optimum && *optimum > 0;
  for (const std::string& algorithm : algorithms) {
    // curves[repeat]: interleaved records keep each run's own order
    std::map<int, Curve> curves;
    for (const TrialRecord& t : trials)
      if (t.algorithm == algorithm) {
        Curve& c = curves[t.repeat];
        const double before = c.deviceSeconds.empty() ? 0.0 : c.deviceSeconds.back();
        c.best.push_back(t.bestSoFar);
        c.deviceSeconds.push_back(before + deviceMs(t.measurement) / 1e3);
      }
    if (curves.empty()) continue;
    for (int budget : budgets) {
      std::vector<double> bests, spent, toBest, toTarget, trialsToTarget;
      // The trials the runs had: fewer than the budget when they exhausted the space.
      std::size_t had = 0;
      for (const auto& [repeat, curve] : curves) {
        const std::size_t k = std::min<std::size_t>(curve.best.size(), std::size_t(budget));
        const double best = curve.best[k - 1];
        bests.push_back(best);
        spent.push_back(curve.deviceSeconds[k - 1]);
        // The trial that found the best (a run that found nothing spent it all looking).
        std::size_t found = k - 1;
        if (best > 0)
          found = std::size_t(std::find(curve.best.begin(), curve.best.end(), best) -
                              curve.best.begin());
        toBest.push_back(curve.deviceSeconds[found]);
        if (target) {
          const auto at = std::find_if(curve.best.begin(), curve.best.begin() + std::ptrdiff_t(k),
                                       [&](double b) { return b >= kTargetFraction * *optimum; });
          if (at != curve.best.begin() + std::ptrdiff_t(k)) {
            const std::size_t i = std::size_t(at - curve.best.begin());
            toTarget.push_back(curve.deviceSeconds[i]);
            trialsToTarget.push_back(double(i + 1));
          }
        }
        had = std::max(had, k);
      }
      // Budgets past the space's end repeat the same row: it is given once.
      if (!rows.empty() && rows.back().algorithm == algorithm &&
          rows.back().trials == static_cast<int>(had))
        continue;
      const MeanSd best = meanSd(bests);
      const MeanSd device = meanSd(spent);
      SummaryRow row{algorithm, static_cast<int>(had), best.mean,
                     best.sd,   std::nullopt,          static_cast<int>(bests.size())};
      if (target) row.meanFractionOfOptimum = best.mean / *optimum;
      row.meanDeviceSeconds = device.mean;
      row.stdDeviceSeconds = device.sd;
      row.meanDeviceSecondsToBest = meanSd(toBest).mean;
      row.runsAtTarget = static_cast<int>(toTarget.size());
      if (!toTarget.empty()) {
        row.meanDeviceSecondsToTarget = meanSd(toTarget).mean;
        row.meanTrialsToTarget = meanSd(trialsToTarget).mean;
      }
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

std::string deviceTimeMarkdown(const std::vector<SummaryRow>& rows) {
  const bool target = std::any_of(rows.begin(), rows.end(), [](const SummaryRow& r) {
    return r.meanFractionOfOptimum.has_value();
  });
  char heading[160];
  std::snprintf(heading, sizeof heading, " s to %g of optimum | runs there |", kTargetFraction);
  std::string md = "| algorithm | trials | device s | s to its best |" +
                   (target ? std::string(heading) : std::string()) + "\n";
  md += target ? "| --- | ---: | ---: | ---: | ---: | ---: |\n" : "| --- | ---: | ---: | ---: |\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const SummaryRow& r = rows[i];
    if (i + 1 < rows.size() && rows[i + 1].algorithm == r.algorithm) continue;  // not its last
    for (const std::string& cell :
         {r.algorithm, std::to_string(r.trials), secondsText(r.meanDeviceSeconds),
          secondsText(r.meanDeviceSecondsToBest)})
      md.append("| ").append(cell).append(" ");
    if (target) {
      // The mean is over the runs that got there: "-" when none did.
      md.append("| ").append(r.meanDeviceSecondsToTarget ? secondsText(*r.meanDeviceSecondsToTarget)
                                                         : std::string("-"));
      md.append(" | ").append(std::to_string(r.runsAtTarget)).append("/");
      md.append(std::to_string(r.runs)).append(" ");
    }
    md += "|\n";
  }
  return md;
}

void writeSummaryJson(const std::string& path, const std::vector<SummaryRow>& summary,
                      const SummaryProvenance& p) {
  const auto orNull = [](const auto& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
  nlohmann::json rows = nlohmann::json::array();
  for (const SummaryRow& r : summary) {
    nlohmann::json row{
        {"algorithm", r.algorithm},
        {"trials", r.trials},
        {"mean_best", r.meanBest},
        {"std_best", r.stdBest},
        {"mean_fraction_of_optimum", orNull(r.meanFractionOfOptimum)},
        {"mean_device_seconds", r.meanDeviceSeconds},
        {"std_device_seconds", r.stdDeviceSeconds},
        {"mean_device_seconds_to_best", r.meanDeviceSecondsToBest},
        {"target_fraction", p.optimum ? nlohmann::json(kTargetFraction) : nlohmann::json()},
        {"runs_at_target", p.optimum ? nlohmann::json(r.runsAtTarget) : nlohmann::json()},
        {"mean_device_seconds_to_target", orNull(r.meanDeviceSecondsToTarget)},
        {"mean_trials_to_target", orNull(r.meanTrialsToTarget)},
        {"device_time", p.deviceTime},
        {"dataset_device_seconds", orNull(p.datasetDeviceSeconds)},
        {"speed_unit", p.speedUnit},
        {"measured_by", p.measuredBy},
        {"dataset", p.dataset},
        {"completeness", p.completeness},
        {"optimum", orNull(p.optimum)},
        {"seed", p.seed},
        {"repeats", p.repeats},
        {"trials_per_run", orNull(p.trialsPerRun)},
        {"device_seconds_per_run", orNull(p.deviceSecondsPerRun)},
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
