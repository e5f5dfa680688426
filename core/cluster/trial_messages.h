#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cluster/stream_entry.h"
#include "common/enum_names.h"
#include "engine/measurement.h"

namespace opevo::cluster {

// A measurement of a configuration, or of the vendor library's speed on the operator.
enum class RequestType { Measure, Reference };
const EnumNames<RequestType, 2>& requestTypeNames();

// The version of the messages below; an agent refuses (with a failed result saying why) a
// request of another version rather than guess at its fields.
// 2: operators may carry "target" (the GPU templates' space), which version 1 agents refuse.
// 3: a CPU result's speed is in GFLOP/s (engine/speed_unit.h); a version 2 agent sends TFLOPS,
//    which a master would store 1000 times too low.
inline constexpr int kMessageVersion = 3;

// One trial as the master puts it on its kind's stream.
struct TrialRequest {
  std::string trialId;  // unique in the cluster: the master's session and a number
  RequestType type = RequestType::Measure;
  std::string kind;     // the device kind, as the stream's name says
  std::string replyTo;  // the master's results stream
  std::string master;   // the master's liveness key: gone means nobody waits for the result
  // What the agent needs besides the configuration, the same for every trial of a run:
  // {"backend": "cpu", "operator": {...}, "options": {...}} or {"backend": "replay"}.
  nlohmann::json task;
  std::string config;  // the configuration as its space formats it; empty for a reference
  long long sentMs = 0;
  // A configuration timed again beside the reference after the run (tune's side-by-side), not
  // one of the run's trials: agents count it apart. Sent as the optional field "retiming" = "1";
  // older agents measure it all the same.
  bool retiming = false;
};

// What an agent answers.
struct TrialResult {
  std::string trialId;
  std::string agent;   // the agent's id
  std::string device;  // the device that measured it
  Measurement measurement;
  std::string library;  // a reference's library name
  double tookMs = 0;    // on the agent, from taking the trial to answering it
  // The agent could not measure at all (its measurer for the task could not be built: a broken
  // compiler, say), so the failure says nothing of the configuration: the master stops the run
  // (resumable) with the agent's reason instead of recording the trial, as a local run stops.
  // Sent as the optional field "fault" = "agent"; older masters ignore it.
  bool agentFault = false;
};

// Flat field/value lists for XADD.
std::vector<std::string> requestFields(const TrialRequest& r);
std::vector<std::string> resultFields(const TrialResult& r);
// ClusterMessageError naming the entry and what is wrong.
TrialRequest parseRequest(const StreamEntry& e);
TrialResult parseResult(const StreamEntry& e);

nlohmann::json measurementJson(const Measurement& m);
// ClusterMessageError for a status it does not know or a mistyped field.
Measurement measurementFromJson(const nlohmann::json& j, const std::string& where);

long long nowMs();

}  // namespace opevo::cluster
