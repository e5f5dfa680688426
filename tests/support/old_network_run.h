#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdint>
#include <string>

#include "net/network_json.h"
#include "net/network_session.h"
#include "store/store.h"

namespace opevo::test {

// CPU timing as short as it gets: network runs in tests are about what is stored, not speed.
inline BackendOptions quickNetworkTiming() {
  BackendOptions options;
  options.cpu.timing.minTotalMs = 1;
  return options;
}

inline void execSql(const std::string& db, const std::string& sql) {
  sqlite3* handle = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &handle), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(handle, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK)
      << sqlite3_errmsg(handle);
  sqlite3_close(handle);
}

// Tunes `network` topologically in `mode` for `units` units of its `trials` (2 a unit) on this
// CPU, 1x1 inputs pinned where `inputPins` (net tune --pin-inputs), and interrupts it, as a stop
// does; its id.
inline std::int64_t tuneNetworkAndInterrupt(const std::string& db, const std::string& network,
                                            layout::TuningMode mode, int trials, int units,
                                            bool inputPins = false) {
  Store store(db);
  net::NetworkSource src;
  src.source = network;
  src.text = net::networkText(network);
  src.plan.trials = trials;
  src.plan.unit = 2;
  src.plan.seed = 3;
  src.plan.scheduler = net::SchedulerKind::Topological;
  src.plan.mode = mode;
  src.plan.inputPins = inputPins;
  net::NetworkSession s(store, std::move(src), quickNetworkTiming());
  for (int u = 0; u < units; ++u) EXPECT_TRUE(s.step());
  s.markInterrupted();
  return s.id();
}

// A joint topological run as versions before the depthwise pin (389256a) stored it, made for real:
// they pinned residuals alone, so on a network whose residuals no task writes they tuned exactly
// as joint-np tunes today. Such a run is tuned and interrupted, and its stored plan made what
// those versions wrote: joint mode, no "depthwise_pin".
inline std::int64_t storeRunBeforeDepthwisePins(const std::string& db, const std::string& network,
                                                int trials, int units) {
  const std::int64_t id =
      tuneNetworkAndInterrupt(db, network, layout::TuningMode::JointNoPropagation, trials, units);
  execSql(db,
          "UPDATE networks SET plan_json = json_remove(json_set(plan_json, '$.mode', 'joint'), "
          "'$.depthwise_pin') WHERE id = " +
              std::to_string(id));
  return id;
}

}  // namespace opevo::test
