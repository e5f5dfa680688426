// A replay's pace (the window's, to watch a race) is stored with its run's operator so that a
// resume goes on at it, but it changes no measurement: a paced and an unpaced replay of one
// dataset are one operator's history. A real SQLite file.

#include <gtest/gtest.h>

#include "store/history.h"
#include "store/run_operator.h"
#include "store/store.h"
#include "temp_dir.h"

namespace opevo {
namespace {

std::int64_t storeReplayRun(Store& store, const std::string& operatorJson,
                            const std::string& config) {
  RunRecord r;
  r.operatorName = "Xgemm";
  r.operatorJson = operatorJson;
  r.algorithm = "random";
  r.settingsJson = "{}";
  r.backend = "replay";
  r.device = "NVIDIA GeForce RTX 2080 Ti";
  r.budgetJson = R"({"trials":1})";
  r.speedUnit = "GFLOP/s";
  TrialRow t;
  t.seq = t.order = 1;
  t.config = config;
  t.timesMs = {1.0};
  t.medianMs = 1.0;
  t.speed = 100;
  return store.createRunWithTrials(r, {t});
}

TEST(ReplayHistory, APacedReplayIsTheSameOperatorsHistory) {
  const test::TempDir dir;
  {
    Store store(dir.file("runs.db"));
    const std::string plain = R"({"replay":"/data/RTX_2080_Ti.json.gz"})";
    const std::string paced = R"({"pace_ms":20,"replay":"/data/RTX_2080_Ti.json.gz"})";
    EXPECT_EQ(runOperatorKey(paced), runOperatorKey(plain));
    EXPECT_NE(runOperatorKey(R"({"replay":"/data/A100.json.gz"})"), runOperatorKey(plain));
    storeReplayRun(store, paced, "a=1");
    const std::int64_t now = storeReplayRun(store, plain, "a=2");
    const History h = loadHistory(store, *store.run(now), now);
    EXPECT_EQ(h.byConfig.count("a=1"), 1u) << "the paced run's trial answers the unpaced one";
  }
}

}  // namespace
}  // namespace opevo
