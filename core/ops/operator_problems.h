#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "ops/operator.h"

namespace opevo {

// Every impossible dimension of op, one message each in the order the fields are read, worded
// as OperatorSpec::validate() words them (its one-line refusal is the first). A check that needs
// a field already refused (groups dividing the channels when groups is 0) is left out rather
// than reported from a meaningless value. Empty when op is valid.
// `unread` holds, by shape field, why a field of a file could not be read at all (no integer,
// missing): that message is given in the field's place, and the checks that need the field are
// left out, so a typo in one field never hides the dimensions wrong in the others.
std::vector<std::string> operatorProblems(const OperatorSpec& op,
                                          const std::map<std::string, std::string>& unread = {});

// How a shape field's value is refused, in the same words whatever the mistake ("3O", 1.5, 0,
// -1), with the range the field takes: "height must be a positive integer, got \"3O\"", "pad must
// be an integer, 0 or more, got -1". `got` is the value as written (JSON: strings quoted).
std::string shapeValueProblem(std::string_view field, std::string_view got);

// Problems as one line (what a command prints): the first whole, each other after "; " without
// the "SOURCE: operator 'NAME': " its lines share with the first.
std::string problemsInOneLine(const std::vector<std::string>& problems);

// Every reason operatorDefinitionFromJson(j, source) would refuse, one line each (its exception
// is problemsInOneLine of them): all wrong shape fields at once, those that are no integer among
// them, so the editor can mark every one; a file that is not an operator at all, or a bad
// space, gives one. Empty when j is a valid operator.
std::vector<std::string> operatorFileProblems(const nlohmann::json& j, const std::string& source);

}  // namespace opevo
