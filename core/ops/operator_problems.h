#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ops/operator.h"

namespace opevo {

// Every impossible dimension of op, one message each in the order the fields are read, worded
// as OperatorSpec::validate() words them (its one-line refusal is the first). A check that needs
// a field already refused (groups dividing the channels when groups is 0) is left out rather
// than reported from a meaningless value. Empty when op is valid.
std::vector<std::string> operatorProblems(const OperatorSpec& op);

// Every reason operatorDefinitionFromJson(j, source) would refuse, each worded as its exception
// would be (the first is that one's): all impossible dimensions at once, so the editor can mark
// every wrong field; a file that is not an operator at all, or a bad space, gives one. Empty
// when j is a valid operator.
std::vector<std::string> operatorFileProblems(const nlohmann::json& j, const std::string& source);

}  // namespace opevo
