#include "common/strict_json.h"

#include <set>
#include <vector>

#include "common/error.h"

namespace opevo {

std::string jsonErrorText(const nlohmann::json::exception& e) {
  std::string what = e.what();
  if (what.rfind("[json.exception.", 0) == 0) {
    const auto close = what.find("] ");
    if (close != std::string::npos) what = what.substr(close + 2);
  }
  for (char& c : what)
    if (c == '\n' || c == '\r') c = ' ';
  if (what.size() > 300) what = what.substr(0, 300) + "...";
  return what;
}

std::string jsonErrorText(const nlohmann::json::parse_error& e, std::size_t textSize) {
  std::string what = jsonErrorText(static_cast<const nlohmann::json::exception&>(e));
  if (e.byte >= textSize) what += " (the file ends early: truncated?)";
  return what;
}

nlohmann::json parseStrictJson(const std::string& text, const std::string& source) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw InputError(source + ": the file is empty (expected JSON)");
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
  try {
    return nlohmann::json::parse(text, check);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(source + ": not valid JSON: " + jsonErrorText(e, text.size()));
  } catch (const nlohmann::json::exception& e) {  // out_of_range: a number like 1e400
    throw InputError(source + ": not valid JSON: " + jsonErrorText(e));
  }
}

}  // namespace opevo
