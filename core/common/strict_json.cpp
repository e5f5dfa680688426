#include "common/strict_json.h"

#include <set>
#include <vector>

#include "common/error.h"

namespace opevo {

nlohmann::json parseStrictJson(const std::string& text, const std::string& source) {
  std::vector<std::set<std::string>> objects;  // the keys of each object being read, innermost last
  const nlohmann::json::parser_callback_t check = [&](int, nlohmann::json::parse_event_t event,
                                                      nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (event == Event::object_start) {
      objects.emplace_back();
    } else if (event == Event::object_end) {
      if (!objects.empty()) objects.pop_back();
    } else if (event == Event::key && !objects.empty()) {
      const std::string key = parsed.get<std::string>();
      if (!objects.back().insert(key).second)
        throw InputError(source + ": the key '" + key +
                         "' appears twice in one object (which one is meant?)");
    }
    return true;
  };
  return nlohmann::json::parse(text, check);
}

}  // namespace opevo
