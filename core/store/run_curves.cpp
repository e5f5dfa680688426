#include "store/run_curves.h"

#include <set>

#include "io/run_import.h"
#include "layout/tuning_mode.h"

namespace opevo {

std::vector<std::string> curveNames(const std::vector<const RunRecord*>& runs) {
  std::set<std::string> spaces;
  for (const RunRecord* run : runs) spaces.insert(layout::runModeName(run->operatorJson));
  std::vector<std::string> names;
  names.reserve(runs.size());
  for (const RunRecord* run : runs)
    names.push_back(spaces.size() > 1
                        ? measuredBy(*run) + " (" + layout::runModeName(run->operatorJson) + ")"
                        : measuredBy(*run));
  return names;
}

std::string curvesTitle(const RunRecord& run) {
  if (run.label.empty()) return run.operatorName;
  return run.backend == "replay" ? run.label : run.operatorName + " on " + run.label;
}

}  // namespace opevo
