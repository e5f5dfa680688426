#include "store/run_operator.h"

#include <initializer_list>

#include "common/error.h"

namespace opevo {

nlohmann::json runOperator(const std::string& operatorJson) {
  nlohmann::json j = nlohmann::json::parse(operatorJson, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    throw InputError("the stored run's operator is not a JSON object");
  return j;
}

namespace {

// The operator as canonical text without these keys; the stored text itself where it is no JSON
// object.
std::string keyWithout(const std::string& operatorJson, std::initializer_list<const char*> keys) {
  nlohmann::json j = nlohmann::json::parse(operatorJson, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return operatorJson;
  for (const char* key : keys) j.erase(key);
  return j.dump();
}

}  // namespace

std::string runOperatorKey(const std::string& operatorJson) {
  // A replay's pace (the window's, to watch a race) changes no measurement: a paced replay of a
  // dataset is the same operator as an unpaced one, and answers its history.
  return keyWithout(operatorJson, {"pace_ms"});
}

std::string runProblemKey(const std::string& operatorJson) {
  // How the space was built, in the operator file's words (ops/operator_json.h): "mode" and
  // "target". Its "space" overrides stay: two runs over differently narrowed spaces would read
  // as one space's repeats.
  return keyWithout(operatorJson, {"pace_ms", "mode", "target"});
}

}  // namespace opevo
