#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace opevo {

// JSON text parsed for a reader that must explain every failure to a user in one line.
struct ParsedJson {
  nlohmann::json value;
  // The text did not parse as written and parseJsonFile supplied closing braces it lacked.
  bool closedUnterminated = false;
  // When closedUnterminated: why the text as written did not parse, for a caller that decides
  // the repaired document is not one it accepts after all.
  std::string originalError;
};

// Parses text read from path. Throws InputError "PATH: ..." for an empty file and for malformed
// JSON (with nlohmann's line and column, and a hint when the text ends early). When
// allowUnclosedObjects > 0 and the text stops right after a complete object, nested at most that
// deep in objects only (a Kernel Tuner cache still being written ends in "}," inside "cache"),
// the missing closing braces are supplied instead of failing.
ParsedJson parseJsonFile(const std::string& text, const std::string& path,
                         int allowUnclosedObjects = 0);

// The keys, in file order, of the first object that is the value of `key` at nesting depth
// `depth` (1: a key of the top-level object); empty when there is none. nlohmann::json sorts
// keys, and ordered_json is quadratic on a 20k-key object, so the order is read by a separate
// SAX pass that stops as soon as that object ends.
std::vector<std::string> keysInFileOrder(const std::string& text, const std::string& key,
                                         int depth);

}  // namespace opevo
