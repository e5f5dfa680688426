#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace opevo {

// Parses JSON text as nlohmann::json::parse does (its exceptions for text that is not JSON), and
// throws InputError naming `source` and the key for an object that holds a key twice: the parser
// would keep the last value quietly, and a file saying "kind" twice means one of them is a
// mistake.
nlohmann::json parseStrictJson(const std::string& text, const std::string& source);

}  // namespace opevo
