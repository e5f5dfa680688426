#include "io/json_column.h"

namespace opevo {

nlohmann::ordered_json columnJson(const std::string& text) {
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_structured()) return text;
  return j;
}

std::string columnText(const nlohmann::ordered_json& j) {
  return j.is_string() ? j.get<std::string>() : j.dump();
}

}  // namespace opevo
