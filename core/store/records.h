#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace opevo {

// What the store keeps of a tuning run. JSON columns hold structured values verbatim so older
// builds can still read rows that newer ones wrote.
struct RunRecord {
  std::int64_t id = 0;
  std::string operatorName;
  std::string operatorJson;  // the operator spec and its search space
  std::string algorithm;
  std::string settingsJson;  // every tuner setting
  std::uint64_t seed = 0;
  std::string backend;       // cuda, hip, cpu, replay
  std::string device;        // device description
  std::string budgetJson;    // {"trials": N} or {"seconds": S} or {"target": T}
  std::string status;        // running, finished, interrupted, failed
  std::string started;       // ISO 8601 UTC
  std::string ended;
  std::string speedUnit;
};

struct TrialRow {
  std::int64_t runId = 0;
  int seq = 0;               // 1-based order of measurement within the run
  std::string config;        // SearchSpace::format text
  std::string status;        // statusName(TrialStatus)
  std::string message;
  std::vector<double> timesMs;
  double medianMs = 0;
  double speed = 0;
  double compileMs = 0;
  std::string started;
  std::string finished;
};

}  // namespace opevo
