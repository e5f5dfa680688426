#include "net/closing_round_text.h"

#include <algorithm>

#include "net/stored_network_run.h"

namespace opevo::net {

std::string closingRoundText(const std::vector<ClosingUnit>& units) {
  std::string text;
  for (const ClosingUnit& unit : units) {
    if (unit.from.empty()) continue;
    std::vector<std::string> twins = unit.from;
    twins.erase(std::unique(twins.begin(), twins.end()), twins.end());
    std::string names;
    for (const std::string& t : twins) names += (names.empty() ? "" : ", ") + t;
    text += (text.empty() ? "" : "; ") + unit.task + " " + std::to_string(unit.from.size()) +
            " from twin " + names;
  }
  return text;
}

std::string closingRoundText(const StoredNetworkRun& run) {
  std::vector<ClosingUnit> units;
  for (const StoredNetworkUnit& unit : run.units) {
    if (unit.closingFrom.empty()) continue;
    units.push_back({unit.task >= 0 && static_cast<std::size_t>(unit.task) < run.tasks.size()
                         ? run.tasks[static_cast<std::size_t>(unit.task)].name
                         : "task " + std::to_string(unit.task),
                     unit.closingFrom});
  }
  return closingRoundText(units);
}

}  // namespace opevo::net
