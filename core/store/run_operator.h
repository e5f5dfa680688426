#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace opevo {

// A run's operatorJson holds what rebuilds its measurement: an operator definition, or
// {"replay": path}. (Schema v1 also kept a window race's bookkeeping there; the v2 migration moved
// it into columns.)

// The operator as JSON. Throws InputError when the stored text is not a JSON object.
nlohmann::json runOperator(const std::string& operatorJson);

// The same, as canonical text: runs of the same operator have the same key (a replay's pace
// left out).
std::string runOperatorKey(const std::string& operatorJson);

}  // namespace opevo
