#include "net/network_plan.h"

#include <nlohmann/json.hpp>

#include "common/error.h"

namespace opevo::net {

nlohmann::json planToJson(const NetworkTuningPlan& p) {
  nlohmann::json j = {{"algorithm", p.algorithm},
                      {"seed", p.seed},
                      {"trials", p.trials},
                      {"unit", p.unit},
                      {"scheduler", schedulerKindName(p.scheduler)},
                      {"mode", layout::tuningModeName(p.mode)}};
  // "template" as stored before the matrix-vector template, which has a key of its own.
  if (p.templates.winograd) j["template"] = "winograd";
  if (p.templates.matvec) j["matvec"] = true;
  j["weights"] = p.coldWeights ? "cold" : "warm";
  j["activations"] = p.coldActivations ? "cold" : "warm";
  j["similar_size"] = p.gradient.similarSize;
  j["depthwise_pin"] = p.depthwisePins;
  j["input_pin"] = p.inputPins;
  j["residual_reader_keeps"] = p.residualReaderKeeps;
  return j;
}

TaskTemplates planTemplates(const nlohmann::json& plan) {
  // Runs stored before the Winograd or the matrix-vector template tuned the direct one.
  TaskTemplates t;
  t.winograd = plan.value("template", "direct") == "winograd";
  t.matvec = plan.value("matvec", false);
  return t;
}

NetworkTuningPlan planFromJson(const std::string& text, const std::string& where) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw InputError(where + "not a network plan (JSON)");
  NetworkTuningPlan p;
  try {
    p.algorithm = j.at("algorithm").get<std::string>();
    p.seed = j.at("seed").get<std::uint64_t>();
    p.trials = j.at("trials").get<int>();
    p.unit = j.at("unit").get<std::size_t>();
    p.scheduler = parseSchedulerKind(j.at("scheduler").get<std::string>());
    // Runs stored before layouts tuned their loops only.
    p.mode = layout::parseTuningMode(j.value("mode", "loop"), "stored network plan");
    p.templates = planTemplates(j);
    p.coldWeights = j.value("weights", "warm") == "cold";
    p.coldActivations = j.value("activations", "warm") == "cold";
    // Runs stored before the size rule took every task of a kind as similar (Ansor's rule).
    p.gradient.similarSize = j.value("similar_size", 0.0);
    // Runs stored before depthwise tasks were pinned to their producers' channel blocks tuned
    // them on blocks of their own (and planned their closing round so).
    p.depthwisePins = j.value("depthwise_pin", false);
    // And before 1x1 readers were pinned to their producers' output layouts.
    p.inputPins = j.value("input_pin", false);
    // And before a residual's reader tuned before its writer kept its choice through the closing
    // round.
    p.residualReaderKeeps = j.value("residual_reader_keeps", false);
    checkGradientSettings(p.gradient);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(where + "not a network plan: " + e.what());
  } catch (const InputError& e) {
    throw InputError(where + e.what());
  }
  return p;
}

}  // namespace opevo::net
