#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace opevo {

// A store column that holds JSON text (an operator, settings, a budget, a network's plan), as
// the files that carry a run or a network (T4 metadata, network archives) write it: parsed, so
// that someone reading the file sees the structure, in its stored key order (ordered_json), so
// that it reads back as the same text. Text that is not a JSON object or array (empty: a result
// not yet written) is written as a string.
nlohmann::ordered_json columnJson(const std::string& text);

// The column's text back from what columnJson wrote: a string as it is, JSON as its dump.
std::string columnText(const nlohmann::ordered_json& j);

}  // namespace opevo
