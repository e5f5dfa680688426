#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace opevo {

// Parses JSON text, and throws InputError naming `source`: for an empty text ("the file is
// empty"), for text that is not JSON or a number beyond a double ("not valid JSON: " and
// nlohmann's words, jsonErrorText; the raw exception text reached users), and for an object that
// holds a key twice (the parser would keep the last value quietly, and a file saying "kind" twice
// means one of them is a mistake).
nlohmann::json parseStrictJson(const std::string& text, const std::string& source);

// nlohmann's message without its "[json.exception.parse_error.101] " tag, on one line of at most
// about 300 characters; with the text's size, a parse error at its end says the text ends early.
std::string jsonErrorText(const nlohmann::json::exception& e);
std::string jsonErrorText(const nlohmann::json::parse_error& e, std::size_t textSize);

}  // namespace opevo
