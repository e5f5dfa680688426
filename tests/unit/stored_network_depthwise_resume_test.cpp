// A topological joint network run stored before depthwise tasks were pinned to their producers'
// channel blocks (389256a) resumes as it was tuned: its plan (stored without "depthwise_pin")
// reads as no pin, so its depthwise tasks keep the space they were tuned over and its closing
// round the reserve it was planned with. A run stored since keeps the pin across a resume.
//
// Such an old run is made for real on this CPU (old_network_run.h).

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "net/layout_constraints.h"
#include "net/network_json.h"
#include "net/network_plan.h"
#include "net/network_session.h"
#include "net/network_tuning.h"
#include "net/stored_network_run.h"
#include "net/tasks.h"
#include "old_network_run.h"
#include "store/store.h"
#include "temp_dir.h"

namespace opevo::net {
namespace {

using test::quickNetworkTiming;
using test::storeRunBeforeDepthwisePins;
using test::tuneNetworkAndInterrupt;

std::size_t taskNamed(const NetworkSession& s, const std::string& name) {
  std::size_t i = 0;
  while (s.graph().tasks.at(i).name != name) ++i;
  return i;
}

const std::string kDepthwise = std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_depthwise.json";

// The note is said of an old joint topological plan alone, where the network has a depthwise
// task a producer writes; one link or several, going on or over.
TEST(StoredNetworkDepthwiseResume, TheNoteIsSaidOfAnOldPlanWithDepthwiseLinksAlone) {
  const TaskGraph twoLinks = extractTasks(networkFromText(networkText(kDepthwise), kDepthwise));
  const TaskGraph oneLink = extractTasks(networkFromText(R"({
  "name": "one_dw", "params": {"batch": 1},
  "inputs": [{"name": "image", "shape": ["batch", 8, 10, 10]}],
  "layers": [
    {"name": "e", "op": "conv2d", "input": "image", "out_channels": 32, "kernel": 1},
    {"name": "dw", "op": "conv2d", "input": "e", "out_channels": 32, "kernel": 3, "padding": 1,
     "groups": 32}
  ],
  "output": "dw"
})",
                                                         "one_dw"));
  const TaskGraph noLink = extractTasks(networkFromText(R"({
  "name": "no_dw", "params": {"batch": 1},
  "inputs": [{"name": "image", "shape": ["batch", 8, 10, 10]}],
  "layers": [{"name": "e", "op": "conv2d", "input": "image", "out_channels": 32, "kernel": 1}],
  "output": "e"
})",
                                                        "no_dw"));
  NetworkTuningPlan old;
  old.mode = layout::TuningMode::Joint;
  old.scheduler = SchedulerKind::Topological;
  old.depthwisePins = false;
  const std::string head =
      "stored before depthwise tasks were tied to their producers' channel blocks, this run ";
  EXPECT_EQ(storedPlanNote(oneLink, old, false),
            head +
                "goes on as it was tuned: its depthwise task on blocks of its own, given its "
                "producer's after tuning where those fit (a new run ties it to its producer's "
                "blocks as it is tuned)");
  EXPECT_EQ(storedPlanNote(oneLink, old, true),
            head +
                "tuned its depthwise task on blocks of its own and ran it on its producer's where "
                "those fit, blocks it was not timed with (a new run ties it to its producer's "
                "blocks as it is tuned)");
  EXPECT_NE(storedPlanNote(twoLinks, old, false).find("its 2 depthwise tasks"), std::string::npos);
  EXPECT_EQ(storedPlanNote(noLink, old, false), "");
  NetworkTuningPlan p = old;
  p.depthwisePins = true;
  EXPECT_EQ(storedPlanNote(twoLinks, p, false), "");
  p = old;
  p.scheduler = SchedulerKind::Gradient;  // never pinned: a new run tunes as it did
  EXPECT_EQ(storedPlanNote(twoLinks, p, false), "");
  p = old;
  p.mode = layout::TuningMode::JointNoPropagation;
  EXPECT_EQ(storedPlanNote(twoLinks, p, false), "");
}

TEST(StoredNetworkDepthwiseResume, APlanStoredBeforeThePinReadsAsNoPinANewOneKeepsIt) {
  const NetworkTuningPlan old = planFromJson(
      R"({"algorithm":"opevo-m","mode":"joint","scheduler":"topological","seed":3,"trials":20,)"
      R"("unit":2,"weights":"cold","similar_size":2})",
      "");
  EXPECT_FALSE(old.depthwisePins);
  NetworkTuningPlan p;
  p.trials = 20;
  EXPECT_TRUE(p.depthwisePins);
  const nlohmann::json stored = planToJson(p);
  EXPECT_EQ(stored.value("depthwise_pin", false), true) << stored.dump();
  EXPECT_TRUE(planFromJson(stored.dump(), "").depthwisePins);
}

// net_depthwise interrupted after expand's share (2 units) and one unit of dw, which tuned its
// own blocks (16 channels) where expand chose 48. Pinned on resume, dw's space would hold 48
// alone while its restored trials and its best are on 16, its tuner would go on proposing
// 16-channel blocks outside that space, and the result would say "pinned to expand's
// (layout.out_c=1,48)" of a best on 3,16.
TEST(StoredNetworkDepthwiseResume, ADepthwiseTaskTunedBeforeThePinGoesOnAsItWasTuned) {
  test::TempDir dir;
  const std::string db = dir.file("runs.db");
  const std::int64_t id = storeRunBeforeDepthwisePins(db, kDepthwise, 20, 3);
  Store store(db);
  // Said where the run is read back (net tune --resume, net runs ID, the Networks page).
  EXPECT_EQ(readStoredNetworkRun(store, id).planNote,
            storedPlanNote(extractTasks(networkFromText(networkText(kDepthwise), kDepthwise)),
                           planFromJson(store.network(id)->planJson, ""), false));
  EXPECT_NE(readStoredNetworkRun(store, id).planNote.find("goes on as it was tuned"),
            std::string::npos);
  NetworkSession s(store, id, quickNetworkTiming());
  EXPECT_FALSE(s.source().plan.depthwisePins);
  const std::size_t dw = taskNamed(s, "dw");
  while (s.step()) {
  }
  EXPECT_EQ(s.tuning().trials(), 20);
  // Not pinned: every trial of dw, before and after the resume, in the space it is tuned over,
  // and no constraint claims blocks its best need not have.
  EXPECT_FALSE(s.tuning().layoutConstraint(dw).has_value());
  const std::vector<TrialRow> trials = store.trials(s.tuning().engine(dw).runs().front().storeId);
  EXPECT_GT(trials.size(), 1u);
  for (const TrialRow& t : trials)
    EXPECT_TRUE(s.tuning().space(dw).contains(s.tuning().space(dw).parse(t.config))) << t.config;
}

// Two blocks with twin expansions and twin depthwise tasks: before 389256a all four took part in
// the closing round (reserve 8 of 30); pinned, the expansions would not (reserve 4), the
// scheduler's topological shares would differ, and the stored units would not replay ("unit 3
// went to task 1, the scheduler now picks 0").
TEST(StoredNetworkDepthwiseResume, ARunWhoseClosingRoundWasPlannedBeforeThePinResumes) {
  test::TempDir dir;
  const std::string file = std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_dw_twins.json";
  const std::string db = dir.file("runs.db");
  const std::int64_t id = storeRunBeforeDepthwisePins(db, file, 30, 3);
  Store store(db);
  NetworkSession s(store, id, quickNetworkTiming());
  EXPECT_EQ(s.resumedAt(), 6);
  EXPECT_EQ(s.tuning().closingReserve(), 8);  // as it was planned
  while (s.step()) {
  }
  // It went on; what the closing round leaves of its reserve stays unspent under topological.
  EXPECT_GT(s.tuning().trials(), 6);
  EXPECT_LE(s.tuning().trials(), 30);
  for (std::size_t i = 0; i < s.graph().tasks.size(); ++i)
    EXPECT_FALSE(s.tuning().layoutConstraint(i).has_value()) << s.graph().tasks[i].name;
}

// A joint run stored since the pin keeps it across a resume: dw, begun after the resume, is
// pinned to expand's blocks, and every trial it measures is in that space.
TEST(StoredNetworkDepthwiseResume, ARunStoredWithThePinKeepsItOnResume) {
  test::TempDir dir;
  const std::string db = dir.file("runs.db");
  const std::int64_t id = tuneNetworkAndInterrupt(db, kDepthwise, layout::TuningMode::Joint, 20, 3);
  Store store(db);
  EXPECT_EQ(readStoredNetworkRun(store, id).planNote, "");
  NetworkSession s(store, id, quickNetworkTiming());
  EXPECT_TRUE(s.source().plan.depthwisePins);
  const std::size_t dw = taskNamed(s, "dw");
  while (s.step()) {
  }
  ASSERT_TRUE(s.tuning().layoutConstraint(dw).has_value());
  EXPECT_EQ(s.tuning().layoutConstraint(dw)->link, LinkKind::DepthwiseInput);
  EXPECT_EQ(s.tuning().layoutConstraint(dw)->outcome, ConstraintOutcome::Applied);
  for (const TrialRow& t : store.trials(s.tuning().engine(dw).runs().front().storeId))
    EXPECT_TRUE(s.tuning().space(dw).contains(s.tuning().space(dw).parse(t.config))) << t.config;
}

}  // namespace
}  // namespace opevo::net
