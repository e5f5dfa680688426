// A network run's stored plan (net/network_plan.h), and the GPU campaign's committed network runs
// replayed under the plan they carry: a resume replays every stored unit through the scheduler,
// and a rule that chooses otherwise makes the run impossible to resume.

#include "net/network_plan.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "common/error.h"
#include "io/network_archive.h"
#include "net/network_json.h"
#include "net/tasks.h"
#include "store/store.h"

namespace opevo::net {
namespace {

namespace fs = std::filesystem;

// As a network run stored before the similarity rule kept it (the H200's AlexNet, 2026-11-28).
const char* kBeforeTheSizeRule =
    R"({"algorithm":"opevo-m","mode":"loop","scheduler":"gradient","seed":1,"trials":400,)"
    R"("unit":4,"weights":"warm"})";

TEST(NetworkPlan, RunsStoredBeforeTheSizeRuleReadAsAnsorsWholeKind) {
  const NetworkTuningPlan old = planFromJson(kBeforeTheSizeRule, "");
  EXPECT_EQ(old.gradient.similarSize, 0);
  EXPECT_EQ(old.trials, 400);
  EXPECT_FALSE(old.coldWeights);
  EXPECT_FALSE(old.coldActivations) << "timed with its activations cached, and goes on so";
  // A new plan keeps its rule.
  NetworkTuningPlan p;
  p.trials = 40;
  p.templates.winograd = true;
  p.templates.matvec = true;
  const NetworkTuningPlan back = planFromJson(planToJson(p).dump(), "");
  EXPECT_EQ(back.gradient.similarSize, GradientSettings{}.similarSize);
  EXPECT_GT(back.gradient.similarSize, 0);
  EXPECT_TRUE(back.templates.winograd);
  EXPECT_TRUE(back.templates.matvec);
  EXPECT_EQ(back.coldWeights, p.coldWeights);
  EXPECT_TRUE(back.coldActivations);
  p.coldActivations = false;
  EXPECT_FALSE(planFromJson(planToJson(p).dump(), "").coldActivations);
}

TEST(NetworkPlan, WhatIsNotAPlanIsRefusedWithWhereItWas) {
  for (const std::string& text :
       {std::string("garbage"), std::string(R"({"algorithm":"opevo-m"})"),
        std::string(R"({"algorithm":"opevo-m","seed":1,"trials":4,"unit":4,"scheduler":"x"})"),
        std::string(R"({"algorithm":"opevo-m","seed":1,"trials":4,"unit":4,)"
                    R"("scheduler":"gradient","similar_size":0.5})")}) {
    try {
      planFromJson(text, "archive.json: network.plan: ");
      ADD_FAILURE() << text << " was read as a plan";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("archive.json: network.plan: ", 0), 0u) << e.what();
    }
  }
}

// Each committed network run of the GPU campaign, restored, replays unit by unit: the scheduler
// of its stored plan, fed each task's best after the trials its units counted (as
// NetworkTuning::restore feeds it), picks the task every stored unit went to. Under the size
// rule these runs, tuned under Ansor's, went astray at unit 23 (AlexNet) and 22 (ResNet-18).
TEST(NetworkPlan, TheCampaignsNetworkRunsReplayUnderTheirOwnPlans) {
  const fs::path dir = fs::path(OPEVO_SOURCE_DIR) / "resources/measurements/h200/2026-11-28";
  const fs::path db = fs::temp_directory_path() / "opevo_network_plan_test.db";
  int replayed = 0;
  for (const char* name : {"net_alexnet_direct.json.gz", "net_resnet18_direct.json.gz"}) {
    fs::remove(db);
    Store store(db.string());
    const RestoredNetwork r = restoreNetworkArchive(store, (dir / name).string());
    const TaskGraph graph = extractTasks(networkFromText(
        r.network.networkJson, r.network.source, paramsFromJson(r.network.paramsJson, name)));
    const NetworkTuningPlan plan = planFromJson(r.network.planJson, name);
    TaskScheduler scheduler(schedulerTasks(graph), plan.scheduler, plan.seed, plan.gradient);
    std::vector<std::vector<TrialRow>> trials;
    for (std::int64_t id : r.network.taskRuns) trials.push_back(store.trials(id));
    std::vector<std::size_t> counted(graph.tasks.size(), 0);
    for (const NetworkUnitRow& u : store.networkUnits(r.network.id)) {
      ASSERT_EQ(scheduler.next(), std::optional<std::size_t>(u.task)) << name << ": unit " << u.seq;
      const auto task = static_cast<std::size_t>(u.task);
      counted[task] += static_cast<std::size_t>(u.trials);
      double best = 0;
      for (std::size_t k = 0; k < counted[task]; ++k)
        if (trials[task][k].status == TrialStatus::Ok) best = std::max(best, trials[task][k].speed);
      std::optional<double> seconds;
      if (best > 0) seconds = graph.tasks[task].op.flops() / (best * 1e12);  // TFLOPS
      scheduler.record(task, seconds);
      ++replayed;
    }
  }
  fs::remove(db);
  EXPECT_EQ(replayed, 100 + 101);
}

}  // namespace
}  // namespace opevo::net
