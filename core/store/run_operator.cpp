#include "store/run_operator.h"

#include "common/error.h"

namespace opevo {

nlohmann::json runOperator(const std::string& operatorJson) {
  nlohmann::json j = nlohmann::json::parse(operatorJson, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    throw InputError("the stored run's operator is not a JSON object");
  return j;
}

std::string runOperatorKey(const std::string& operatorJson) {
  nlohmann::json j = nlohmann::json::parse(operatorJson, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return operatorJson;
  // A replay's pace (the window's, to watch a race) changes no measurement: a paced replay of a
  // dataset is the same operator as an unpaced one, and answers its history.
  j.erase("pace_ms");
  return j.dump();
}

std::string runProblemKey(const std::string& operatorJson) {
  nlohmann::json j = nlohmann::json::parse(runOperatorKey(operatorJson), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return operatorJson;
  // The operator file's words (ops/operator_json.h): "mode" and "target". Its "space" overrides
  // stay: two runs over differently narrowed spaces would read as one space's repeats.
  j.erase("mode");
  j.erase("target");
  return j.dump();
}

}  // namespace opevo
