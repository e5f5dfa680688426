// Which agent measured each trial of a cluster run (trials.agent, schema 11): a real
// redis-server, real replay agents, `opevo tune --cluster` as the master. A performance engineer
// who saw one odd timing could not tell which node it came from.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "cluster_fixture.h"
#include "run_process.h"

namespace opevo::test {
namespace {

std::set<std::string> agentsOf(const std::vector<TrialRow>& trials, std::size_t from,
                               std::size_t to) {
  std::set<std::string> out;
  for (std::size_t i = from; i < to && i < trials.size(); ++i) out.insert(trials[i].agent);
  return out;
}

// The line of `show` for trial `seq` ("   17  ok  ...").
std::string showLine(const std::string& out, int seq) {
  std::istringstream in(out);
  char prefix[16];
  std::snprintf(prefix, sizeof prefix, "%5d  ", seq);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(prefix, 0) == 0) return line;
  return {};
}

// Two agents measure a run; one is stopped and a third takes its place for a resume that goes on
// to a new budget; then a resume --here measures the rest on this machine. Every trial keeps the
// agent that measured it through each resume, and show, show --json and export-t4 name it.
TEST(ClusterTrialAgent, EachTrialNamesItsAgentThroughResumesAndShowSaysWho) {
  ClusterFixture c("trial-agent");
  c.startAgent("node1", 20);
  c.startAgent("node2", 20);
  ASSERT_TRUE(c.waitForAgents(2));
  const ProcessResult tuned = runProcess(
      OPEVO_CLI, {"tune", "--cluster", c.address(), "--backend", "replay:" + kClusterDataset,
                  "--algo", "random", "--seed", "5", "--trials", "16", "--db", c.db()});
  ASSERT_EQ(tuned.status, 0) << tuned.err << c.logText("node1") << c.logText("node2");
  const std::vector<TrialRow> before = storedTrials(c.db());
  ASSERT_EQ(before.size(), 16u);
  EXPECT_EQ(agentsOf(before, 0, 16), (std::set<std::string>{"node1", "node2"}))
      << "each trial names its agent, and both agents measured";

  // node1 leaves (a polite stop withdraws it from the cluster), node3 joins.
  c.signal("node1", SIGTERM);
  ASSERT_EQ(c.wait("node1", 30), 0) << c.logText("node1");
  c.startAgent("node3", 20);
  ASSERT_TRUE(waitFor(30, [&] {
    std::set<std::string> live;
    for (const cluster::AgentRecord& a : c.agents()) live.insert(a.id);
    return live == std::set<std::string>{"node2", "node3"};
  }));
  const ProcessResult resumed = runProcess(OPEVO_CLI, {"tune", "--resume", "1", "--trials", "32",
                                                       "--cluster", c.address(), "--db", c.db()});
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  const ProcessResult here =
      runProcess(OPEVO_CLI, {"tune", "--resume", "1", "--trials", "40", "--here", "--db", c.db()});
  ASSERT_EQ(here.status, 0) << here.err;

  const std::vector<TrialRow> after = storedTrials(c.db());
  expectExactBudget(after, 40);
  for (std::size_t i = 0; i < before.size(); ++i)
    EXPECT_EQ(after[i].agent, before[i].agent) << "trial " << i + 1 << " lost its agent";
  EXPECT_EQ(agentsOf(after, 16, 32), (std::set<std::string>{"node2", "node3"}));
  EXPECT_EQ(agentsOf(after, 32, 40), (std::set<std::string>{""}))
      << "this machine's trials name no agent";

  // show: each trial's agent before its configuration ("-" for this machine's), and who measured
  // how many.
  const ProcessResult show = runProcess(OPEVO_CLI, {"show", "1", "--db", c.db()});
  ASSERT_EQ(show.status, 0) << show.err;
  for (int seq : {1, 17, 33}) {
    const std::string line = showLine(show.out, seq);
    const TrialRow& t = after[static_cast<std::size_t>(seq - 1)];
    EXPECT_NE(line.find("  " + (t.agent.empty() ? std::string("-") : t.agent) + "  "),
              std::string::npos)
        << line;
    EXPECT_NE(line.find(t.config), std::string::npos) << line;
  }
  int counts[4] = {0, 0, 0, 0};  // node1, node2, node3, this machine
  for (const TrialRow& t : after)
    ++counts[t.agent == "node1" ? 0 : t.agent == "node2" ? 1 : t.agent == "node3" ? 2 : 3];
  const std::size_t summary = show.out.find("measured by: ");
  ASSERT_NE(summary, std::string::npos) << show.out;
  const std::string said = show.out.substr(summary, show.out.find('\n', summary) - summary);
  EXPECT_NE(said.find("node1 " + std::to_string(counts[0])), std::string::npos) << said;
  EXPECT_NE(said.find("node3 " + std::to_string(counts[2])), std::string::npos) << said;
  EXPECT_NE(said.find("this machine 8"), std::string::npos) << said;

  // show --json: "agent" per trial, null for this machine's.
  const ProcessResult json = runProcess(OPEVO_CLI, {"show", "1", "--db", c.db(), "--json"});
  ASSERT_EQ(json.status, 0) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  ASSERT_EQ(j["trials"].size(), 40u);
  for (std::size_t i = 0; i < 40; ++i) {
    const nlohmann::json& agent = j["trials"][i]["agent"];
    if (after[i].agent.empty())
      EXPECT_TRUE(agent.is_null()) << i;
    else
      EXPECT_EQ(agent, after[i].agent) << i;
  }

  // export-t4 carries it among the per-trial metadata, and the file still imports.
  const std::string t4 = (c.dir() / "run1.json").string();
  const ProcessResult exported =
      runProcess(OPEVO_CLI, {"export-t4", "1", "--out", t4, "--db", c.db()});
  ASSERT_EQ(exported.status, 0) << exported.err;
  const nlohmann::json doc = nlohmann::json::parse(readText(t4));
  EXPECT_EQ(doc["metadata"]["trials"][0]["agent"], after[0].agent);
  EXPECT_FALSE(doc["metadata"]["trials"][39].contains("agent"));
  const ProcessResult imported =
      runProcess(OPEVO_CLI, {"import", t4, "--db", (c.dir() / "other.db").string()});
  EXPECT_EQ(imported.status, 0) << imported.err;
}

// A local run's `show` has no agent column and no "measured by" line.
TEST(ClusterTrialAgent, ALocalRunNamesNoAgent) {
  ClusterFixture c("no-agent");
  const ProcessResult tuned =
      runProcess(OPEVO_CLI, {"tune", "--backend", "replay:" + kClusterDataset, "--algo", "random",
                             "--trials", "4", "--db", c.db()});
  ASSERT_EQ(tuned.status, 0) << tuned.err;
  const ProcessResult show = runProcess(OPEVO_CLI, {"show", "1", "--db", c.db()});
  ASSERT_EQ(show.status, 0) << show.err;
  EXPECT_EQ(show.out.find("measured by"), std::string::npos) << show.out;
  const TrialRow t = storedTrials(c.db()).front();
  EXPECT_NE(showLine(show.out, 1).find("  " + t.config), std::string::npos) << show.out;
  const nlohmann::json j =
      nlohmann::json::parse(runProcess(OPEVO_CLI, {"show", "1", "--db", c.db(), "--json"}).out);
  EXPECT_TRUE(j["trials"][0]["agent"].is_null());
}

}  // namespace
}  // namespace opevo::test
