#include "engine/budget.h"

#include <nlohmann/json.hpp>

#include "common/error.h"

namespace opevo {

void Budget::check() const {
  if (!trials && !seconds && !targetSpeed)
    throw InputError("a run needs a budget: a number of trials, a time, or a target speed");
  if (trials && *trials < 1)
    throw InputError("the trial budget must be at least 1, got " + std::to_string(*trials));
  if (seconds && !(*seconds > 0)) throw InputError("the time budget must be positive");
}

std::string Budget::toJson() const {
  nlohmann::json j = nlohmann::json::object();
  if (trials) j["trials"] = *trials;
  if (seconds) j["seconds"] = *seconds;
  if (seconds && clock) j["clock"] = budgetClockToken(*clock);
  if (targetSpeed) j["target"] = *targetSpeed;
  return j.dump();
}

Budget Budget::fromJson(const std::string& text) {
  const auto j = nlohmann::json::parse(text, nullptr, false);
  Budget b;
  if (!j.is_object()) return b;
  // A stored budget of the wrong type (a damaged database) is an error naming it, not a JSON
  // library exception.
  const auto number = [&](const char* key) {
    if (!j[key].is_number())
      throw InputError("stored budget " + text + ": '" + key + "' is not a number");
    return j[key];
  };
  if (j.contains("trials")) {
    const auto t = number("trials");
    if (!t.is_number_integer() || t.get<double>() < 1 || t.get<double>() > 1e9)
      throw InputError("stored budget " + text + ": 'trials' must be a whole number from 1");
    b.trials = t.get<int>();
  }
  if (j.contains("seconds")) {
    b.seconds = number("seconds").get<double>();
    b.clock = BudgetClock::Tuning;
  }
  if (j.contains("seconds") && j.contains("clock")) {
    const auto& clock = j["clock"];
    if (clock == budgetClockToken(BudgetClock::Device))
      b.clock = BudgetClock::Device;
    else if (clock == budgetClockToken(BudgetClock::Tuning))
      b.clock = BudgetClock::Tuning;
    else
      throw InputError("stored budget " + text + ": 'clock' must be \"device\" or \"tuning\"");
  }
  if (j.contains("target")) b.targetSpeed = number("target").get<double>();
  return b;
}

BudgetClock budgetClock(bool replay) {
  return replay ? BudgetClock::Device : BudgetClock::Tuning;
}

std::string_view budgetClockName(BudgetClock clock) {
  return clock == BudgetClock::Device ? "device time" : "tuning time";
}

std::string_view budgetClockToken(BudgetClock clock) {
  return clock == BudgetClock::Device ? "device" : "tuning";
}

}  // namespace opevo
