#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace opevo {

// A run's operatorJson holds what rebuilds its measurement (an operator definition, or
// {"replay": path}) and, for runs made by the window's races, bookkeeping beside it: the race's
// key, the repeat, a label and the reference library's speed. Readers that rebuild the operator
// must not see the bookkeeping (an operator file with an unknown field is refused).

// The operator part alone. Throws InputError when the stored text is not a JSON object.
nlohmann::json runOperator(const std::string& operatorJson);

// The same, as text: runs of the same operator have the same key, whatever race made them.
std::string runOperatorKey(const std::string& operatorJson);

}  // namespace opevo
