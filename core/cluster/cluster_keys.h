#pragma once

#include <string>

namespace opevo::cluster {

// The keys the cluster keeps in Redis, all under "opevo:" so a shared instance stays tidy.
//   opevo:trials:<kind>      stream of trial requests for one device kind (consumer group below)
//   opevo:results:<session>  stream of results for one master session
//   opevo:master:<session>   a master's liveness (expires when it dies)
//   opevo:agent:<id>         hash describing a live agent (expires when it stops beating)
//   opevo:agents             set of agent ids, pruned of expired ones
inline constexpr const char* kConsumerGroup = "opevo-agents";
inline constexpr const char* kAgentsSet = "opevo:agents";
inline constexpr const char* kTrialsPrefix = "opevo:trials:";

inline std::string trialsStream(const std::string& kind) {
  return kTrialsPrefix + kind;
}
inline std::string resultsStream(const std::string& session) {
  return "opevo:results:" + session;
}
inline std::string masterKey(const std::string& session) {
  return "opevo:master:" + session;
}
inline std::string agentKey(const std::string& id) {
  return "opevo:agent:" + id;
}

}  // namespace opevo::cluster
