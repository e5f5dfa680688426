// opevo runs compare ID ID...: stored runs of one problem as History draws them, in a table.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/commands.h"
#include "cli/option_checks.h"
#include "common/error.h"
#include "engine/curve_stats.h"
#include "engine/speed_unit.h"
#include "space/text.h"
#include "store/history.h"
#include "store/run_curves.h"
#include "store/store.h"

namespace opevo::cli {
namespace {

struct CompareArgs {
  std::vector<std::int64_t> runs;
  std::vector<int> at;
  std::string db;
  bool json = false;
};

// One curve: an algorithm in one space, its runs the repeats.
struct Curve {
  std::string name;
  std::vector<std::int64_t> runs;
  // Each run's curve, finished as History draws a stored run: its last best holds after its last
  // trial.
  std::vector<RunCurve> curves;
  double best = 0;           // the highest of its runs' bests
  std::int64_t bestRun = 0;  // the run that reached it, and at which trial
  int bestTrial = 0;
  double meanBest() const { return meanAt(std::numeric_limits<int>::max()); }
  double meanAt(int trials) const {
    std::vector<const RunCurve*> runs;
    for (const RunCurve& c : curves) runs.push_back(&c);
    return meanBestAtTrial(runs, trials).value_or(0);
  }
};

void compareRuns(const CompareArgs& a) {
  const Store store(existingDatabase(a.db), Store::Opening::ExistingOnly);
  std::vector<RunRecord> records;
  for (std::size_t i = 0; i < a.runs.size(); ++i) {
    const std::int64_t id = a.runs[i];
    // Named twice, a run would count as two repeats of its curve.
    if (std::find(a.runs.begin(), a.runs.begin() + static_cast<std::ptrdiff_t>(i), id) !=
        a.runs.begin() + static_cast<std::ptrdiff_t>(i))
      throw InputError("run " + std::to_string(id) + " is named twice");
    const auto run = store.run(id);
    if (!run) throw InputError("no run " + std::to_string(id) + " in " + store.path());
    records.push_back(*run);
  }
  // The first run named decides the problem, as History's current run decides its chart.
  const RunRecord& anchor = records.front();
  std::vector<std::pair<std::int64_t, std::string>> left;  // not compared, and why
  std::vector<const RunRecord*> compared;
  std::map<std::int64_t, std::vector<TrialRow>> trials;
  for (const RunRecord& r : records) {
    if (const Comparison c = comparedWith(anchor, r); c != Comparison::Same) {
      left.push_back(
          {r.id, c == Comparison::OtherUnit ? otherUnitText(anchor) : otherProblemText(anchor)});
      continue;
    }
    std::vector<TrialRow> rows = store.trials(r.id);
    const std::string failed = allFailedText(rows);
    if (rows.empty() || !failed.empty()) {
      left.push_back({r.id, rows.empty() ? std::string("no trial yet") : failed});
      continue;
    }
    trials[r.id] = std::move(rows);
    compared.push_back(&r);
  }
  std::vector<Curve> curves;
  const std::vector<std::string> names = curveNames(compared);
  const RunRecord* library = nullptr;  // the run with the fastest stored timing of the library
  int mostTrials = 0;
  for (std::size_t i = 0; i < compared.size(); ++i) {
    const RunRecord& r = *compared[i];
    auto curve = std::find_if(curves.begin(), curves.end(),
                              [&](const Curve& c) { return c.name == names[i]; });
    if (curve == curves.end()) {
      curve = curves.insert(curves.end(), Curve());
      curve->name = names[i];
    }
    curve->runs.push_back(r.id);
    RunCurve& best = curve->curves.emplace_back();
    best.run = r.id;
    best.finished = true;
    for (const TrialRecord& t : trialRecords(r, trials[r.id])) {
      best.add(t.seconds, t.bestSoFar);
      if (t.bestSoFar > curve->best) {
        curve->best = t.bestSoFar;
        curve->bestRun = r.id;
        curve->bestTrial = t.trial;
      }
    }
    mostTrials = std::max(mostTrials, best.trials);
    if (r.referenceSpeed && (!library || *library->referenceSpeed < *r.referenceSpeed))
      library = &r;
  }
  std::vector<int> at;
  for (const int n : a.at)
    if (n <= mostTrials) at.push_back(n);
  const std::string& unit = anchor.speedUnit;
  const std::string label = curvesTitle(anchor);

  if (a.json) {
    nlohmann::json out{{"anchor", anchor.id}, {"label", label}, {"speed_unit", unit}};
    nlohmann::json list = nlohmann::json::array();
    for (const Curve& c : curves) {
      nlohmann::json after = nlohmann::json::object();
      for (const int n : at) after[std::to_string(n)] = c.meanAt(n);
      list.push_back({{"curve", c.name},
                      {"runs", c.runs},
                      {"best", c.best},
                      {"best_run", c.bestRun},
                      {"best_trial", c.bestTrial},
                      {"mean_best", c.meanBest()},
                      {"mean_best_after", after}});
    }
    out["curves"] = list;
    if (library)
      out["library"] = {{"name", library->referenceLibrary},
                        {"speed", *library->referenceSpeed},
                        {"run", library->id}};
    nlohmann::json notCompared = nlohmann::json::array();
    for (const auto& [id, why] : left) notCompared.push_back({{"run", id}, {"why", why}});
    out["not_compared"] = notCompared;
    std::cout << out.dump(2) << "\n";
    return;
  }
  std::printf("%s, in %s: %s compared\n", label.c_str(), unit.c_str(),
              counted(static_cast<long long>(compared.size()), "run", "runs").c_str());
  std::size_t width = 5;
  for (const Curve& c : curves) width = std::max(width, c.name.size());
  std::printf("%-*s %5s %10s %13s %10s", static_cast<int>(width), "curve", "runs", "best",
              "run, trial", "mean best");
  for (const int n : at) std::printf(" %9s", ("after " + std::to_string(n)).c_str());
  std::printf("\n");
  for (const Curve& c : curves) {
    const std::string where = std::to_string(c.bestRun) + ", " + std::to_string(c.bestTrial);
    std::printf("%-*s %5zu %10s %13s %10s", static_cast<int>(width), c.name.c_str(), c.runs.size(),
                speedNumber(c.best).c_str(), where.c_str(), speedNumber(c.meanBest()).c_str());
    for (const int n : at) std::printf(" %9s", speedNumber(c.meanAt(n)).c_str());
    std::printf("\n");
  }
  if (!at.empty())
    std::printf(
        "after N: the mean over a curve's runs of their best after N trials (a run's last best "
        "holds after its last trial, as History draws it)\n");
  if (library) {
    std::printf("%s: %s %s (stored with run %lld, the fastest stored); each curve's best over it:",
                library->referenceLibrary.c_str(), speedNumber(*library->referenceSpeed).c_str(),
                unit.c_str(), static_cast<long long>(library->id));
    for (const Curve& c : curves)
      std::printf(" %s %.2fx%s", c.name.c_str(), c.best / *library->referenceSpeed,
                  &c == &curves.back() ? "" : ",");
    std::printf("\n");
  }
  for (const RunRecord* r : compared)
    if (const std::string side =
            sideBySideText(nlohmann::json::parse(r->sideBySideJson, nullptr, false), unit);
        !side.empty())
      std::printf("run %lld %s", static_cast<long long>(r->id), side.c_str());
  for (const auto& [id, why] : left)
    std::printf("not compared: run %lld (%s)\n", static_cast<long long>(id), why.c_str());
}

}  // namespace

void addRunsCompareCommand(CLI::App& runs, const std::shared_ptr<std::string>& parentDb,
                           const std::shared_ptr<bool>& parentJson) {
  auto a = std::make_shared<CompareArgs>();
  a->at = {5, 10, 25, 50, 100, 200, 300, 500, 1000};
  auto* c = runs.add_subcommand(
      "compare",
      "Compare stored runs of one problem on one device, as History draws them: each curve an "
      "algorithm (and its space, where the runs tuned several: loops against layouts and loops)");
  c->add_option("runs", a->runs, "Run ids (see opevo runs); the first decides the problem")
      ->required();
  c->add_option("--at", a->at,
                "Trial counts at which each curve's mean best is given (default "
                "5,10,25,50,100,200,300,500,1000, those the runs reached)")
      ->delimiter(',')
      ->check(atLeast(1));
  c->add_option("--db", a->db, "Database file (default: " + Store::defaultPath() + ")");
  c->add_flag("--json", a->json, "Print one JSON object");
  c->callback([a, parentDb, parentJson] {
    CompareArgs args = *a;
    if (args.db.empty() && parentDb) args.db = *parentDb;
    if (parentJson && *parentJson) args.json = true;  // `runs --json compare ...`
    compareRuns(args);
  });
}

}  // namespace opevo::cli
