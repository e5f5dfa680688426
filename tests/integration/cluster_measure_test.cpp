// What the cluster measures is what this machine would: real CPU kernels built and timed by a
// cpu agent's worker, and a race on a replay answered exactly as a local replay answers it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cluster_fixture.h"
#include "run_process.h"

namespace opevo::test {
namespace {

// A cpu agent compiles each kernel on its node, verifies and times it in its opevo-worker; the
// master (no compiler needed) stores the trials under the agent's device, with the agent's
// OpenBLAS reference.
TEST(ClusterMeasure, CpuAgentBuildsAndTimesRealKernels) {
  ClusterFixture c("cpu");
  const fs::path op = c.dir() / "small.json";
  std::ofstream(op)
      << R"({"name": "small", "kind": "matmul", "shape": {"n": 32, "m": 32, "k": 32}})";
  c.startAgent("cpu-1", 0, "cpu");
  ASSERT_TRUE(c.waitForAgents(1)) << c.logText("cpu-1");
  const std::string device = c.agents().front().devices.front().name;
  c.startSplit("master", {OPEVO_CLI, "tune", "--cluster", c.address(), "--backend", "cpu", "--op",
                          op.string(), "--algo", "random", "--trials", "4", "--min-time-ms", "1",
                          "--db", c.db(), "--json"});
  ASSERT_EQ(c.wait("master", 120), 0) << c.logText("master") << c.logText("cpu-1");
  const nlohmann::json j = nlohmann::json::parse(c.outText("master"));
  EXPECT_EQ(j["trials"], 4);
  EXPECT_EQ(j["backend"], "cpu");
  EXPECT_EQ(j["device"], device);
  EXPECT_GT(j["best_speed"].get<double>(), 0.0);
  EXPECT_TRUE(j.contains("reference_library")) << j.dump();
  const std::vector<TrialRow> trials = storedTrials(c.db());
  expectExactBudget(trials, 4);
  for (const TrialRow& t : trials) EXPECT_EQ(t.status, TrialStatus::Ok) << t.message;
  EXPECT_EQ(Store(c.db()).run(1)->device, device);
}

// The summary table lines of a compare's output.
std::string table(const std::string& out) {
  std::string rows;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("|", 0) == 0) rows += line + "\n";
  return rows;
}

// A race of two algorithms through one agent (results in the order they were sent) ends with the
// very summary a local replay gives: the cluster changes where trials are measured, nothing else.
TEST(ClusterMeasure, RaceThroughTheClusterMatchesTheLocalReplay) {
  ClusterFixture c("race");
  c.startAgent("a1", 0);
  ASSERT_TRUE(c.waitForAgents(1));
  const std::vector<std::string> race = {
      "compare",  "--space", kClusterDataset, "--algos", "opevo,random", "--repeats", "2",
      "--trials", "30",      "--seed",        "7"};
  std::vector<std::string> local = race, remote = race;
  local.insert(local.end(), {"--out", (c.dir() / "local").string()});
  remote.insert(remote.end(), {"--out", (c.dir() / "remote").string(), "--cluster", c.address()});
  const ProcessResult l = runProcess(OPEVO_CLI, local);
  const ProcessResult r = runProcess(OPEVO_CLI, remote);
  ASSERT_EQ(l.status, 0) << l.err;
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("on the cluster at " + c.address()), std::string::npos) << r.err;
  ASSERT_FALSE(table(l.out).empty()) << l.out;
  EXPECT_EQ(table(r.out), table(l.out));
  // Counted by the agent's next heartbeat.
  EXPECT_TRUE(waitFor(10, [&] { return c.agents().front().trialsDone() == 2 * 2 * 30; }));
}

}  // namespace
}  // namespace opevo::test
