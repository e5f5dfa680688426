// Which cluster agent measured each trial (trials.agent, schema 11): a run measured on several
// nodes stored their timings with no word of where each came from.

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "engine/engine.h"
#include "engine/store_recorder.h"
#include "io/replay_dataset.h"
#include "io/run_restore.h"
#include "io/t4_export.h"
#include "replay/replay_measurer.h"
#include "sqlite_user_version.h"
#include "store/history.h"
#include "store/store.h"
#include "temp_dir.h"

namespace opevo {
namespace {

namespace fs = std::filesystem;

std::shared_ptr<const ReplayDataset> gemm() {
  static const auto dataset = std::make_shared<const ReplayDataset>(
      loadReplayDataset(std::string(OPEVO_DATASETS_DIR) + "/gemm/RTX_2080_Ti.json.gz"));
  return dataset;
}

// A replay whose answers come from two named agents in turn, as a cluster's measurer gives them
// (ClusterMeasurer stamps each result with the agent that sent it).
class TwoAgents final : public Measurer {
 public:
  TwoAgents() : m_replay(gemm()) {}
  std::string label() const override { return m_replay.label(); }
  bool isReplay() const override { return true; }
  std::string speedUnit() const override { return m_replay.speedUnit(); }
  std::vector<Measurement> measure(const std::vector<Config>& configs) override {
    std::vector<Measurement> out = m_replay.measure(configs);
    for (Measurement& m : out) m.agent = (m_next++ % 2 == 0) ? "node1-gpu0" : "node2";
    return out;
  }

 private:
  ReplayMeasurer m_replay;
  int m_next = 0;
};

RunPlan randomRun(int trials) {
  RunPlan plan;
  plan.algorithm = "random";
  plan.budget.trials = trials;
  plan.batch = 4;
  return plan;
}

// One run measured through "agents": `n` trials stored in `path`; returns the run's id.
std::int64_t storeAgentsRun(const std::string& path, int n) {
  Store store(path);
  TwoAgents measurer;
  Engine engine(gemm()->space, measurer);
  // The operator a replay run stores: its file, so that a restore rebuilds its space.
  const std::string replayOf =
      nlohmann::json{{"replay", std::string(OPEVO_DATASETS_DIR) + "/gemm/RTX_2080_Ti.json.gz"}}
          .dump();
  StoreRecorder recorder(store, engine, {"gemm", replayOf, "replay", "", "GFLOP/s", ""});
  engine.addObserver(recorder);
  engine.addRun(randomRun(n));
  recorder.createRuns();
  engine.run();
  return engine.runs().front().storeId;
}

// The agent travels from the measurement through the engine's trial and the recorder into the
// store, and back out of it as the measurement a resume restores.
TEST(StoreAgent, EachTrialKeepsTheAgentThatMeasuredIt) {
  const test::TempDir dir;
  const std::string path = dir.file("opevo.db");
  const std::int64_t id = storeAgentsRun(path, 8);
  const Store store(path, Store::Opening::ExistingOnly);
  const std::vector<TrialRow> trials = store.trials(id);
  ASSERT_EQ(trials.size(), 8u);
  std::set<std::string> agents;
  for (const TrialRow& t : trials) {
    agents.insert(t.agent);
    EXPECT_EQ(measurementOf(t).agent, t.agent);
  }
  EXPECT_EQ(agents, (std::set<std::string>{"node1-gpu0", "node2"}));
  for (const TrialRecord& r : trialRecords(*store.run(id), trials))
    EXPECT_FALSE(r.measurement.agent.empty()) << r.trial;
}

// A local run's trials name no agent.
TEST(StoreAgent, ALocalRunsTrialsNameNone) {
  const test::TempDir dir;
  const std::string path = dir.file("opevo.db");
  Store store(path);
  ReplayMeasurer measurer(gemm());
  Engine engine(gemm()->space, measurer);
  // The operator a replay run stores: its file, so that a restore rebuilds its space.
  const std::string replayOf =
      nlohmann::json{{"replay", std::string(OPEVO_DATASETS_DIR) + "/gemm/RTX_2080_Ti.json.gz"}}
          .dump();
  StoreRecorder recorder(store, engine, {"gemm", replayOf, "replay", "", "GFLOP/s", ""});
  engine.addObserver(recorder);
  engine.addRun(randomRun(4));
  recorder.createRuns();
  engine.run();
  const std::vector<TrialRow> trials = store.trials(engine.runs().front().storeId);
  ASSERT_EQ(trials.size(), 4u);
  for (const TrialRow& t : trials) EXPECT_EQ(t.agent, "") << t.seq;
}

// A trial answered from history keeps the agent whose timing it repeats: the odd timing is still
// that node's.
TEST(StoreAgent, ATrialAnsweredFromHistoryKeepsItsAgent) {
  const test::TempDir dir;
  const std::string path = dir.file("opevo.db");
  const std::int64_t first = storeAgentsRun(path, 6);
  Store store(path);
  const std::vector<TrialRow> earlier = store.trials(first);
  ReplayMeasurer inner(gemm());
  HistoryMeasurer measurer(inner, gemm()->space, loadHistory(store, *store.run(first), 0));
  std::vector<Config> configs;
  for (const TrialRow& t : earlier) configs.push_back(gemm()->space.parse(t.config));
  const std::vector<Measurement> answers = measurer.measure(configs);
  ASSERT_EQ(answers.size(), earlier.size());
  for (std::size_t i = 0; i < answers.size(); ++i) {
    EXPECT_TRUE(answers[i].reused);
    EXPECT_EQ(answers[i].agent, earlier[i].agent);
  }
}

// A T4 export names each trial's agent among its per-trial metadata, where the T4 fields leave
// room; a local trial has none there.
TEST(StoreAgent, AT4ExportNamesEachTrialsAgent) {
  const test::TempDir dir;
  const std::string path = dir.file("opevo.db");
  const std::int64_t id = storeAgentsRun(path, 4);
  Store store(path);
  TrialRow local = store.trials(id).back();
  local.seq = 5;
  local.order = 5;
  local.agent = "";
  store.appendTrial(local);
  const nlohmann::ordered_json doc = runToT4(*store.run(id), store.trials(id));
  const auto& extra = doc["metadata"]["trials"];
  ASSERT_EQ(extra.size(), 5u);
  for (std::size_t i = 0; i < 4; ++i)
    EXPECT_EQ(extra[i].value("agent", ""), store.trials(id)[i].agent) << i;
  EXPECT_FALSE(extra[4].contains("agent"));
  // Restored (opevo import --restore, a network archive's task runs), the trials keep them.
  const RunWithTrials back = runFromT4(doc, "run.json");
  ASSERT_EQ(back.trials.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(back.trials[i].agent, store.trials(id)[i].agent);
}

// tests/data/opevo-v10.db was written by the release before schema 11 (commit 9da0cf2): two
// replay runs on Kernel Tuner's GEMM cache of the RTX 2080 Ti (random, 3 trials; opevo, 4
// trials), both finished, measured on this machine.
TEST(StoreAgent, AVersion10DatabaseKeepsItsTrialsWithNoAgentSaid) {
  const test::TempDir dir;
  const std::string path = dir.file("opevo.db");
  fs::copy_file(fs::path(OPEVO_SOURCE_DIR) / "tests" / "data" / "opevo-v10.db", path);
  ASSERT_EQ(test::userVersion(path), 10);
  Store store(path);
  EXPECT_EQ(test::userVersion(path), Store::kSchemaVersion);
  ASSERT_EQ(store.runs().size(), 2u);
  const std::vector<TrialRow> first = store.trials(1), second = store.trials(2);
  ASSERT_EQ(first.size(), 3u);
  ASSERT_EQ(second.size(), 4u);
  for (const TrialRow& t : first) EXPECT_EQ(t.agent, "");
  for (const TrialRow& t : second) {
    EXPECT_EQ(t.agent, "");
    EXPECT_GT(t.speed, 0) << "a trial lost its timing in the migration";
  }
  // The migrated file stores an agent like a new one.
  TrialRow more = second.back();
  more.seq = 5;
  more.order = 5;
  more.agent = "node1";
  store.appendTrial(more);
  EXPECT_EQ(store.trials(2).back().agent, "node1");
}

}  // namespace
}  // namespace opevo
