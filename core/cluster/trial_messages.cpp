#include "cluster/trial_messages.h"

#include <chrono>
#include <cstdlib>

namespace opevo::cluster {
namespace {

nlohmann::json parseJson(const StreamEntry& e, const std::string& field, const std::string& what) {
  const nlohmann::json j = nlohmann::json::parse(e.field(field, what), nullptr, false);
  if (j.is_discarded())
    throw ClusterMessageError(what + " " + e.id + ": field '" + field + "' is not JSON");
  return j;
}

void checkVersion(const StreamEntry& e, const std::string& what) {
  const std::string v = e.field("v", what);
  if (v != std::to_string(kMessageVersion))
    throw ClusterMessageError(what + " " + e.id + " is of message version " + v + "; this " +
                              "program speaks version " + std::to_string(kMessageVersion) +
                              " (run the same OpEvo Studio version on master and agents)");
}

}  // namespace

const EnumNames<RequestType, 2>& requestTypeNames() {
  static const EnumNames<RequestType, 2> names{
      {{{RequestType::Measure, "measure"}, {RequestType::Reference, "reference"}}}};
  return names;
}

long long nowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

nlohmann::json measurementJson(const Measurement& m) {
  return {{"status", statusName(m.status)}, {"speed", m.speed},          {"median_ms", m.medianMs},
          {"times_ms", m.timesMs},          {"compile_ms", m.compileMs}, {"verify_ms", m.verifyMs},
          {"measure_ms", m.measureMs},      {"message", m.message}};
}

Measurement measurementFromJson(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) throw ClusterMessageError(where + ": the measurement is not an object");
  Measurement m;
  try {
    if (!parseStatus(j.at("status").get<std::string>(), m.status))
      throw ClusterMessageError(where + ": unknown trial status '" +
                                j.at("status").get<std::string>() +
                                "' (known: " + trialStatusNames().list() + ")");
    m.speed = j.value("speed", 0.0);
    m.medianMs = j.value("median_ms", 0.0);
    m.timesMs = j.value("times_ms", std::vector<double>{});
    m.compileMs = j.value("compile_ms", 0.0);
    m.verifyMs = j.value("verify_ms", 0.0);
    m.measureMs = j.value("measure_ms", 0.0);
    m.message = j.value("message", std::string());
  } catch (const nlohmann::json::exception& e) {
    throw ClusterMessageError(where + ": the measurement is malformed (" + e.what() + ")");
  }
  return m;
}

std::vector<std::string> requestFields(const TrialRequest& r) {
  std::vector<std::string> fields = {"v",      std::to_string(kMessageVersion),
                                     "trial",  r.trialId,
                                     "type",   std::string(requestTypeNames().name(r.type)),
                                     "kind",   r.kind,
                                     "reply",  r.replyTo,
                                     "master", r.master,
                                     "task",   r.task.dump(),
                                     "config", r.config,
                                     "sent",   std::to_string(r.sentMs)};
  if (r.retiming) fields.insert(fields.end(), {"retiming", "1"});
  return fields;
}

TrialRequest parseRequest(const StreamEntry& e) {
  const std::string what = "trial request";
  TrialRequest r;
  checkVersion(e, what);
  r.trialId = e.field("trial", what);
  r.replyTo = e.field("reply", what);
  r.master = e.field("master", what);
  r.kind = e.field("kind", what);
  const std::string type = e.field("type", what);
  const auto t = requestTypeNames().parse(type);
  if (!t)
    throw ClusterMessageError(what + " " + e.id + ": type '" + type + "' is not " +
                              requestTypeNames().list());
  r.type = *t;
  r.task = parseJson(e, "task", what);
  if (!r.task.is_object() || !r.task.contains("backend") || !r.task["backend"].is_string())
    throw ClusterMessageError(what + " " + e.id + ": field 'task' has no backend");
  if (r.type == RequestType::Measure) r.config = e.field("config", what);
  // strtoll, not atoll: a number past 64 bits is undefined behaviour for atoll.
  r.sentMs = std::strtoll(e.fieldOr("sent", "0").c_str(), nullptr, 10);
  r.retiming = e.fieldOr("retiming", "") == "1";
  return r;
}

std::vector<std::string> resultFields(const TrialResult& r) {
  std::vector<std::string> fields = {"v",       std::to_string(kMessageVersion),
                                     "trial",   r.trialId,
                                     "agent",   r.agent,
                                     "device",  r.device,
                                     "m",       measurementJson(r.measurement).dump(),
                                     "library", r.library,
                                     "took_ms", std::to_string(r.tookMs)};
  if (r.agentFault) fields.insert(fields.end(), {"fault", "agent"});
  return fields;
}

TrialResult parseResult(const StreamEntry& e) {
  const std::string what = "trial result";
  checkVersion(e, what);
  TrialResult r;
  r.trialId = e.field("trial", what);
  r.agent = e.fieldOr("agent", "");
  r.device = e.fieldOr("device", "");
  r.measurement = measurementFromJson(parseJson(e, "m", what), what + " " + e.id);
  r.library = e.fieldOr("library", "");
  r.tookMs = std::strtod(e.fieldOr("took_ms", "0").c_str(), nullptr);
  r.agentFault = e.fieldOr("fault", "") == "agent";
  return r;
}

}  // namespace opevo::cluster
