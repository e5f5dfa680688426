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

// The problem the operator poses, as canonical text: runOperatorKey without how its space was
// built (its tuning mode: loops alone or ALT's layouts with them; its kernel template). Runs with
// the same problem key compute the same result, against the same library, in other spaces.
std::string runProblemKey(const std::string& operatorJson);

}  // namespace opevo
