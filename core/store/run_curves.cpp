#include "store/run_curves.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "engine/trial_failures.h"
#include "io/run_import.h"
#include "layout/tuning_mode.h"
#include "space/text.h"
#include "store/history.h"

namespace opevo {
namespace {

// The space a run tuned: the name runModeName shows, and the target as stored (runProblemKey
// leaves both out), which tells a GPU's own loop space from the common one.
std::pair<std::string, std::string> spaceOf(const RunRecord& run) {
  const nlohmann::json op = nlohmann::json::parse(run.operatorJson, nullptr, false);
  const std::string target = op.is_object() && op.contains("target") && op["target"].is_string()
                                 ? op["target"].get<std::string>()
                                 : std::string("common");
  return {layout::runModeName(run.operatorJson), target};
}

}  // namespace

Comparison comparedWith(const RunRecord& anchor, const RunRecord& run) {
  if (!sameProblem(anchor, run)) return Comparison::OtherProblem;
  return run.speedUnit == anchor.speedUnit ? Comparison::Same : Comparison::OtherUnit;
}

std::string otherProblemText(const RunRecord& anchor) {
  return "another operator, narrowed space or device than run " + std::to_string(anchor.id) + " (" +
         anchor.operatorName + " on " + anchor.device + ")";
}

std::string otherUnitText(const RunRecord& anchor) {
  return "measured in another unit than " + anchor.speedUnit;
}

std::string allFailedText(const std::vector<TrialRow>& trials) {
  if (trials.empty()) return {};
  std::vector<TrialStatus> statuses;
  const TrialRow* first = nullptr;
  for (const TrialRow& t : trials) {
    if (t.status == TrialStatus::Ok) return {};
    statuses.push_back(t.status);
    if (!first && !t.message.empty()) first = &t;
  }
  // In the words `opevo tune` uses ("8 did not compile, 2 timed out").
  std::string text = "all " + counted(static_cast<long long>(trials.size()), "trial", "trials") +
                     " failed: " + countFailures(statuses).text();
  if (first) {
    // The first line of the first reason given: a compiler's whole output would fill the page.
    std::string why = first->message.substr(0, first->message.find('\n'));
    if (why.size() > 200) why = why.substr(0, 199) + "\u2026";
    text += " (trial " + std::to_string(first->seq) + ": " + why + ")";
  }
  return text;
}

std::vector<std::string> curveNames(const std::vector<const RunRecord*>& runs) {
  std::vector<std::pair<std::string, std::string>> spaceOfRun;
  spaceOfRun.reserve(runs.size());
  for (const RunRecord* run : runs) spaceOfRun.push_back(spaceOf(*run));
  const std::set<std::pair<std::string, std::string>> spaces(spaceOfRun.begin(), spaceOfRun.end());
  std::map<std::string, int> named;  // spaces per shown name
  for (const auto& space : spaces) ++named[space.first];
  std::vector<std::string> names;
  names.reserve(runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& [mode, target] = spaceOfRun[i];
    names.push_back(spaces.size() < 2    ? measuredBy(*runs[i])
                    : named.at(mode) > 1 ? measuredBy(*runs[i]) + " (" + mode + ", " + target + ")"
                                         : measuredBy(*runs[i]) + " (" + mode + ")");
  }
  return names;
}

std::string curvesTitle(const RunRecord& run) {
  if (run.label.empty()) return run.operatorName;
  // The measurers' device labels read "cpu: ...", "cuda: ...": they name no operator.
  const bool deviceLabel = run.label.rfind(run.backend + ": ", 0) == 0;
  return deviceLabel ? run.operatorName + " on " + run.label : run.label;
}

}  // namespace opevo
