// Faults of a real cluster: redis-server with a password on a Unix socket, replay agents as real
// processes, `opevo tune --cluster` as the master writing a real store. Whatever dies, the run
// ends with exactly its budget of trials, none stored twice.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cluster_fixture.h"

namespace opevo::test {
namespace {

std::vector<std::string> tuneArgs(ClusterFixture& c, int trials) {
  return {OPEVO_CLI, "tune",  "--cluster", c.address(), "--backend", "replay:" + kClusterDataset,
          "--algo",  "opevo", "--seed",    "5",         "--trials",  std::to_string(trials),
          "--db",    c.db(),  "--json"};
}

nlohmann::json answer(ClusterFixture& c, const std::string& name) {
  const nlohmann::json j = nlohmann::json::parse(c.outText(name), nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << c.outText(name) << c.logText(name);
  return j;
}

// Waits for the master to store at least n trials (false when it ended or 60 s passed).
bool storedAtLeast(ClusterFixture& c, std::size_t n) {
  return waitFor(60, [&] { return storedTrials(c.db()).size() >= n; });
}

// The "done when", at a test's scale: three agents, one killed with -9 while it holds a
// trial; that trial is taken over by another agent and the run ends on its budget.
TEST(ClusterFaults, AgentKilledMidTrialLosesNothing) {
  ClusterFixture c("kill-agent");
  for (const char* name : {"a1", "a2", "a3"}) c.startAgent(name, 40);
  ASSERT_TRUE(c.waitForAgents(3));
  const std::string kind = c.kindOf("a2");
  const int budget = 120;
  c.startSplit("master", tuneArgs(c, budget));
  ASSERT_TRUE(storedAtLeast(c, 10));
  // Killed while a consumer of it holds a trial: that trial is orphaned for certain.
  ASSERT_TRUE(waitFor(20, [&] { return !c.held(kind, "a2").empty(); }));
  c.killNow("a2");
  ASSERT_EQ(c.wait("master", 90), 0) << c.logText("master");
  expectExactBudget(storedTrials(c.db()), budget);
  // Usually before the run could end; at the latest once its entry has been idle long enough.
  EXPECT_TRUE(waitFor(10, [&] {
    return (c.logText("a1") + c.logText("a3")).find("took over trial") != std::string::npos;
  })) << "no agent took over the killed agent's trial";
  EXPECT_EQ(answer(c, "master")["trials"], budget);
}

// A stopped agent (SIGSTOP) stops touching its trial: another takes it over and the run goes on.
// Continued, the stopped agent answers too: that second result is dropped, not stored.
TEST(ClusterFaults, StoppedAgentsTrialIsTakenOverAndItsLateResultDropped) {
  ClusterFixture c("stop-agent");
  c.startAgent("a1", 40);
  c.startAgent("a2", 40);
  ASSERT_TRUE(c.waitForAgents(2));
  const std::string kind = c.kindOf("a1");
  const int budget = 150;
  c.startSplit("master", tuneArgs(c, budget));
  ASSERT_TRUE(storedAtLeast(c, 10));
  std::vector<std::string> held;
  ASSERT_TRUE(waitFor(20, [&] { return !(held = c.held(kind, "a1")).empty(); }));
  c.signal("a1", SIGSTOP);
  // Taken over: the entry it held now belongs to a2 (or is answered and gone).
  EXPECT_TRUE(waitFor(20, [&] {
    for (const std::string& id : c.held(kind, "a1"))
      if (id == held.front()) return false;
    return true;
  }));
  c.signal("a1", SIGCONT);
  ASSERT_EQ(c.wait("master", 90), 0) << c.logText("master");
  expectExactBudget(storedTrials(c.db()), budget);
  const nlohmann::json j = answer(c, "master");
  EXPECT_GE(j["cluster"]["duplicates"].get<int>(), 1)
      << "the stopped agent's late result did not reach the master";
  EXPECT_TRUE(
      waitFor(10, [&] { return c.logText("a2").find("took over trial") != std::string::npos; }));
}

// redis-server killed with -9 mid-run and started again on its files a second later: master and
// agents wait, say so, reconnect, and the run ends on its budget.
TEST(ClusterFaults, RedisKilledAndRestartedLosesNothing) {
  ClusterFixture c("kill-redis");
  c.startAgent("a1", 30);
  c.startAgent("a2", 30);
  ASSERT_TRUE(c.waitForAgents(2));
  const int budget = 100;
  c.startSplit("master", tuneArgs(c, budget));
  ASSERT_TRUE(storedAtLeast(c, 25));
  c.server().kill();
  std::this_thread::sleep_for(std::chrono::seconds(1));
  c.server().start();
  ASSERT_EQ(c.wait("master", 90), 0) << c.logText("master");
  expectExactBudget(storedTrials(c.db()), budget);
  EXPECT_NE(c.logText("master").find("retrying in"), std::string::npos) << c.logText("master");
  EXPECT_NE(c.logText("a1").find("retrying in"), std::string::npos) << c.logText("a1");
  EXPECT_TRUE(c.waitForAgents(2, 10)) << "the agents did not register again";
}

// The master killed with -9 mid-run, then resumed with --resume: the stored trials stay, the
// trials it had out are never stored, and the run ends on its budget.
TEST(ClusterFaults, MasterKilledThenResumedEndsOnBudget) {
  ClusterFixture c("kill-master");
  c.startAgent("a1", 30);
  c.startAgent("a2", 30);
  ASSERT_TRUE(c.waitForAgents(2));
  const int budget = 100;
  c.startSplit("master", tuneArgs(c, budget));
  ASSERT_TRUE(storedAtLeast(c, 30));
  c.killNow("master");
  const std::vector<TrialRow> before = storedTrials(c.db());
  ASSERT_LT(static_cast<int>(before.size()), budget);
  c.startSplit("resume", {OPEVO_CLI, "tune", "--resume", "1", "--cluster", c.address(), "--db",
                          c.db(), "--json"});
  ASSERT_EQ(c.wait("resume", 90), 0) << c.logText("resume");
  const std::vector<TrialRow> after = storedTrials(c.db());
  expectExactBudget(after, budget);
  for (std::size_t i = 0; i < before.size(); ++i) EXPECT_EQ(after[i].config, before[i].config);
  EXPECT_EQ(Store(c.db()).run(1)->status, RunStatus::Finished);
}

}  // namespace
}  // namespace opevo::test
