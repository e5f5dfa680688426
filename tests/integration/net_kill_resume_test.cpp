#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "common/child_process.h"
#include "common/rng.h"
#include "store/store.h"

namespace opevo {
namespace {

namespace fs = std::filesystem;

// Every stored trial of every run, by run.
std::map<std::int64_t, std::vector<TrialRow>> storedTrials(const std::string& db) {
  std::map<std::int64_t, std::vector<TrialRow>> out;
  if (!fs::exists(db)) return out;
  Store store(db);
  for (const RunRecord& r : store.runs()) out[r.id] = store.trials(r.id);
  return out;
}

std::size_t count(const std::map<std::int64_t, std::vector<TrialRow>>& trials) {
  std::size_t n = 0;
  for (const auto& [run, rows] : trials) n += rows.size();
  return n;
}

// A real `opevo net tune` of a small network on the CPU is killed with SIGKILL at random
// moments (mid-unit too) and resumed each time: it must end with exactly its budget, every task's
// trials numbered without a gap, nothing committed before a kill changed, no configuration of a
// task measured twice, the units adding up to the budget, and the tuned network verified. In
// both tuning modes: a joint run's tasks resume in their layout spaces; and tuned in topological
// order, where a resumed task whose layout an earlier task constrained is constrained again.
struct KillCase {
  std::string mode;
  std::string scheduler;
  std::string network;  // in tests/data
  std::size_t tasks = 0;
};

class NetKillAndResumeIn : public ::testing::TestWithParam<KillCase> {};

TEST_P(NetKillAndResumeIn, KillsLoseNothingAndTheNetworkEndsOnBudget) {
  char pattern[] = "/tmp/opevo-netkill-XXXXXX";
  const fs::path dir = mkdtemp(pattern);
  const std::string db = (dir / "runs.db").string();
  setenv("XDG_CACHE_HOME", (dir / "cache").c_str(), 1);
  const KillCase& c = GetParam();
  const std::string network = std::string(OPEVO_SOURCE_DIR) + "/tests/data/" + c.network;
  const int budget = 36;
  // The resumes must time as the run began, whichever it chose.
  const std::string weights = c.mode == "joint" ? "warm" : "cold";
  const std::string activations = c.mode == "joint" ? "cold" : "warm";

  Rng rng(20261125);
  std::map<std::int64_t, std::vector<TrialRow>> before;
  int kills = 0;
  for (int attempt = 0; attempt < 5 && kills < 3; ++attempt) {
    std::vector<std::string> args = {OPEVO_CLI, "net", "tune"};
    if (attempt == 0)
      args.insert(args.end(), {network, "--trials", std::to_string(budget), "--unit", "3", "--seed",
                               "7", "--no-reference", "--mode", c.mode, "--scheduler", c.scheduler,
                               "--weights", weights, "--activations", activations});
    else
      args.insert(args.end(), {"--resume", "1", "--no-reference"});
    args.insert(args.end(), {"--db", db});
    ChildStreams quiet;
    quiet.stdoutToNull = true;
    quiet.stderrToNull = true;
    const pid_t pid = startChild(args, quiet);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    int status = 0;
    bool exited = false;
    while (std::chrono::steady_clock::now() < deadline) {
      if (waitpid(pid, &status, WNOHANG) == pid) {
        exited = true;
        break;
      }
      if (count(storedTrials(db)) > count(before)) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (exited) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(rng.below(400)));
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    ++kills;
    const auto after = storedTrials(db);
    for (const auto& [run, rows] : before) {
      ASSERT_GE(after.at(run).size(), rows.size());
      for (std::size_t i = 0; i < rows.size(); ++i)
        EXPECT_EQ(after.at(run)[i].config, rows[i].config) << "run " << run << " trial " << i;
    }
    before = after;
    if (static_cast<int>(count(before)) >= budget) break;
  }
  EXPECT_GE(kills, 2) << "the network ended too quickly to be interrupted";

  // Killed after its last trial but before it ended (the end-to-end build), it is not finished.
  const bool finishedBefore = [&] {
    Store store(db);
    const auto n = store.network(1);
    return n && n->status == RunStatus::Finished;
  }();
  const auto r = [&] {
    ChildStreams quiet;
    quiet.stdoutToNull = true;
    quiet.stderrToNull = true;
    return waitChild(startChild({OPEVO_CLI, "net", "tune", "--resume", "1", "--db", db}, quiet));
  }();
  const auto trials = storedTrials(db);
  Store store(db);
  const auto net = store.network(1);
  ASSERT_TRUE(net.has_value());
  EXPECT_EQ(r, finishedBefore ? 2 : 0);  // 2: it had finished, nothing to resume
  EXPECT_EQ(net->status, RunStatus::Finished);
  EXPECT_EQ(nlohmann::json::parse(net->resultJson).value("weights", ""), weights);
  EXPECT_EQ(nlohmann::json::parse(net->resultJson).value("activations", ""), activations);
  EXPECT_EQ(static_cast<int>(count(trials)), budget);
  int unitTrials = 0;
  for (const NetworkUnitRow& u : store.networkUnits(1)) unitTrials += u.trials;
  EXPECT_EQ(unitTrials, budget);
  ASSERT_EQ(net->taskRuns.size(), c.tasks);
  for (const auto& [run, rows] : trials) {
    std::set<std::string> configs;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      EXPECT_EQ(rows[i].seq, static_cast<int>(i) + 1) << "run " << run;
      configs.insert(rows[i].config);
    }
    EXPECT_EQ(configs.size(), rows.size()) << "run " << run << " measured a configuration twice";
    const auto& old = before.count(run) ? before.at(run) : std::vector<TrialRow>{};
    for (std::size_t i = 0; i < old.size(); ++i) EXPECT_EQ(rows[i].config, old[i].config);
  }
  // The result of the end-to-end run is kept with the network, in its mode.
  EXPECT_NE(net->resultJson.find("\"verified\""), std::string::npos);
  EXPECT_NE(net->resultJson.find("\"mode\":\"" + c.mode + "\""), std::string::npos);
  if (c.scheduler == "topological" && c.mode == "joint") {
    // short (run 2) was tuned after b (run 3) and constrained to b's best output layout, in
    // every trial it measured, those before and after each kill.
    const nlohmann::json result = nlohmann::json::parse(net->resultJson);
    const nlohmann::json& lc = result["tasks"][1]["layout_constraint"];
    ASSERT_TRUE(lc.is_object()) << result["tasks"].dump(2);
    EXPECT_EQ(lc["by"], "b");
    const std::string layout = lc["output_layout"];
    const std::vector<TrialRow>& reader = trials.at(net->taskRuns[1]);
    ASSERT_FALSE(reader.empty());
    for (const TrialRow& t : reader) EXPECT_EQ(t.config.rfind(layout, 0), 0u) << t.config;
    const TrialRow* best = nullptr;
    for (const TrialRow& t : trials.at(net->taskRuns[2]))
      if (t.status == TrialStatus::Ok && (!best || t.speed > best->speed)) best = &t;
    ASSERT_NE(best, nullptr);
    EXPECT_EQ(best->config.rfind(layout, 0), 0u) << best->config;
  }
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Modes, NetKillAndResumeIn,
                         ::testing::Values(KillCase{"loop", "gradient", "net_all_ops.json", 8},
                                           KillCase{"joint", "gradient", "net_all_ops.json", 8},
                                           KillCase{"joint", "topological",
                                                    "net_residual_producer.json", 4}),
                         [](const ::testing::TestParamInfo<KillCase>& info) {
                           return info.param.mode + "_" + info.param.scheduler;
                         });

// Ctrl-C: the trial in hand is committed, the network and its task runs are marked interrupted,
// the command says how to go on, and a resume finishes the budget.
TEST(NetKillAndResume, CtrlCLeavesAnInterruptedNetworkThatResumes) {
  char pattern[] = "/tmp/opevo-netint-XXXXXX";
  const fs::path dir = mkdtemp(pattern);
  const std::string db = (dir / "runs.db").string();
  setenv("XDG_CACHE_HOME", (dir / "cache").c_str(), 1);
  const std::string network = std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_all_ops.json";
  ChildStreams quiet;
  quiet.stdoutToNull = true;
  quiet.stderrToNull = true;
  const pid_t pid = startChild({OPEVO_CLI, "net", "tune", network, "--trials", "40", "--unit", "2",
                                "--db", db, "--no-reference"},
                               quiet);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (count(storedTrials(db)) < 6 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  kill(pid, SIGINT);
  EXPECT_EQ(waitChild(pid), 130);  // 128 + SIGINT
  {
    Store store(db);
    const auto net = store.network(1);
    ASSERT_TRUE(net.has_value());
    EXPECT_EQ(net->status, RunStatus::Interrupted);
    for (std::int64_t run : net->taskRuns)
      EXPECT_EQ(store.run(run)->status, RunStatus::Interrupted);
    EXPECT_LT(count(storedTrials(db)), 40u);
  }
  EXPECT_EQ(waitChild(startChild(
                {OPEVO_CLI, "net", "tune", "--resume", "1", "--db", db, "--no-reference"}, quiet)),
            0);
  Store store(db);
  EXPECT_EQ(store.network(1)->status, RunStatus::Finished);
  EXPECT_EQ(count(storedTrials(db)), 40u);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace opevo
