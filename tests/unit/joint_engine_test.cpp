// Joint layout runs through the engine and the store: the joint settings are stored with the run
// and give the same stage plan back on resume, and a share of a time budget ends the joint stage.

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "codegen_test_util.h"
#include "common/error.h"
#include "engine/engine.h"
#include "engine/store_recorder.h"
#include "layout/conv2d_layout.h"
#include "layout/operand_layouts.h"
#include "ops/presets.h"
#include "store/store.h"
#include "tuners/joint_layout_tuner.h"

namespace opevo::test {
namespace {

// Every configuration works, a little faster the larger its hash; each takes `ms` of tuning time.
class SyntheticMeasurer final : public Measurer {
 public:
  explicit SyntheticMeasurer(int ms = 0) : m_ms(ms) {}
  std::string label() const override { return "synthetic"; }
  bool isReplay() const override { return false; }
  std::string speedUnit() const override { return "GFLOP/s"; }
  std::vector<Measurement> measure(const std::vector<Config>& configs) override {
    std::vector<Measurement> out;
    for (const Config& c : configs) {
      if (m_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(m_ms));
      Measurement m;
      m.speed = 1.0 + double(ConfigHash{}(c) % 1000) / 1000.0;
      m.medianMs = 1.0 / m.speed;
      out.push_back(m);
    }
    return out;
  }

 private:
  int m_ms;
};

struct TempDb {
  std::filesystem::path path;
  TempDb() {
    char pattern[] = "/tmp/opevo-joint-engine-XXXXXX";
    path = std::filesystem::path(mkdtemp(pattern)) / "runs.db";
  }
  ~TempDb() { std::filesystem::remove_all(path.parent_path()); }
};

const SearchSpace& convSpace() {
  static const SearchSpace space = layout::conv2dLayoutSpace(smallConv(1, 16, 32, 12, 3, 1, 1));
  return space;
}

// As gpu/backends/stored_run.cpp reads a stored run's settings back for its resume.
std::map<std::string, std::string> readBack(const std::string& settingsJson) {
  std::map<std::string, std::string> out;
  const nlohmann::json stored = nlohmann::json::parse(settingsJson);  // items() refers into it
  for (const auto& [k, v] : stored.items())
    out[k] = v.is_string() ? v.get<std::string>() : v.dump();
  return out;
}

TEST(JointEngine, AJointRunStoresItsSettingsAndResumesWithTheSamePlan) {
  TempDb db;
  Store store(db.path.string());
  SyntheticMeasurer measurer;
  Engine engine(convSpace(), measurer);
  RunPlan plan;
  plan.algorithm = "opevo";
  plan.settings = {{"joint.share", "0.5"}, {"joint.layout_trials", "4"}, {"q", "0.4"}};
  plan.budget.trials = 24;
  engine.addRun(plan);
  StoreRecorder recorder(store, engine, {"conv", "{}", "cpu", "synthetic", "GFLOP/s", "synthetic"});
  recorder.createRuns();
  const std::optional<RunRecord> run = store.run(engine.runs()[0].storeId);
  ASSERT_TRUE(run);
  const nlohmann::json stored = nlohmann::json::parse(run->settingsJson);
  // It stored {} before: a resume went back to the default share (a boundary at 7, not 12).
  EXPECT_EQ(stored.value("joint.share", 0.0), 0.5) << run->settingsJson;
  EXPECT_EQ(stored.value("joint.layout_trials", 0), 4) << run->settingsJson;
  EXPECT_EQ(stored.value("joint.cross", 0), 1) << run->settingsJson;
  EXPECT_EQ(stored.value("q", 0.0), 0.4) << run->settingsJson;

  RunPlan resumed;
  resumed.algorithm = run->algorithm;
  resumed.settings = readBack(run->settingsJson);
  resumed.budget = Budget::fromJson(run->budgetJson);
  const auto tuner = tunerForPlan(convSpace(), resumed);
  const auto* joint = dynamic_cast<const JointLayoutTuner*>(tuner.get());
  ASSERT_NE(joint, nullptr);
  EXPECT_EQ(joint->plan().jointTrials, 12);
  EXPECT_EQ(joint->plan().trialsPerLayout, 4);
  EXPECT_EQ(tuner->settings().summary(), engine.tuner(0).settings().summary());
}

TEST(JointEngine, AShareOfATimeBudgetEndsTheJointStage) {
  SyntheticMeasurer measurer(10);
  Engine engine(convSpace(), measurer);
  RunPlan plan;
  plan.algorithm = "random";
  plan.settings = {{"joint.share", "0.5"}};
  plan.budget.seconds = 1.0;
  engine.addRun(plan);
  engine.run();
  const RunState& run = engine.runs()[0];
  EXPECT_EQ(run.end, EndReason::Time);
  const auto& joint = dynamic_cast<const JointLayoutTuner&>(engine.tuner(0));
  ASSERT_TRUE(joint.plan().jointSeconds);
  EXPECT_DOUBLE_EQ(*joint.plan().jointSeconds, 0.5);
  // It was never reached with a time budget alone (the share was of a trial budget only).
  ASSERT_TRUE(joint.stageBoundary()) << run.trials << " trials";
  // At about half the trials: each takes the same time.
  EXPECT_GT(*joint.stageBoundary(), run.trials / 4) << run.trials;
  EXPECT_LT(*joint.stageBoundary(), run.trials * 3 / 4) << run.trials;
}

TEST(JointEngine, TheFirstShareToEndEndsTheJointStage) {
  TunerSettings joint = jointSettings();
  joint.set(kJointSettingsOwner, "joint.share", "0.25");
  const JointStagePlan both = jointStagePlan(joint, 100, 8.0);
  EXPECT_EQ(both.jointTrials, 25);
  EXPECT_DOUBLE_EQ(both.jointSeconds.value_or(0), 2.0);
  const JointStagePlan trials = jointStagePlan(joint, 100);
  EXPECT_FALSE(trials.jointSeconds);
  const JointStagePlan time = jointStagePlan(joint, std::nullopt, 8.0);
  EXPECT_GT(time.jointTrials, 1'000'000);  // no trial limit: the time share alone ends it
}

TEST(JointEngine, AJointSettingOnALoopRunSaysItNeedsTheJointMode) {
  RunPlan plan;
  plan.algorithm = "opevo-m";
  plan.settings = {{"joint.share", "0.5"}};
  plan.budget.trials = 10;
  try {
    checkRunPlan(defaultSpace(preset("MM1")), plan);
    FAIL() << "a joint setting was taken by a loop run";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("joint.share"), std::string::npos) << what;
    EXPECT_NE(what.find("--mode joint"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace opevo::test
