// Ctrl-C on a cluster whose trials take long. Here the first Ctrl-C waits for the trials in hand;
// on a cluster the measurers stop waiting at once (an agent may be gone, or hold a trial for
// minutes), and the commands said "stopping after the trials in hand" all the same.
#include <gtest/gtest.h>

#include "cluster_fixture.h"

namespace opevo::test {
namespace {

// A cluster whose one agent takes ten minutes a trial; `stop` sends a command Ctrl-C once its
// first trial is in the agent's hands and checks what a user sees: the end within seconds with
// 130, told that the agents' trials are not waited for (not "after the trial in hand").
struct SlowCluster {
  ClusterFixture c;
  std::string kind;
  explicit SlowCluster(const std::string& name) : c(name) {
    c.startAgent("slow", 600000);
    EXPECT_TRUE(c.waitForAgents(1)) << c.logText("slow");
    kind = c.kindOf("slow");
  }
  void stop(const std::string& name) {
    EXPECT_TRUE(waitFor(60, [&] { return !c.held(kind, "slow").empty(); })) << c.logText(name);
    c.signal(name, SIGINT);
    EXPECT_EQ(c.wait(name, 20), 130) << c.logText(name);
    EXPECT_NE(c.logText(name).find(
                  "stopping now: the trials the cluster's agents hold are not waited for"),
              std::string::npos)
        << c.logText(name);
    EXPECT_EQ(c.logText(name).find("after the trial"), std::string::npos) << c.logText(name);
  }
  // Every stored run reads stopped (resumable), none "running".
  void expectRunsStopped(std::size_t count) {
    const std::vector<RunRecord> runs = Store(c.db()).runs();
    EXPECT_EQ(runs.size(), count);
    for (const RunRecord& r : runs) {
      EXPECT_EQ(r.status, RunStatus::Interrupted) << r.id;
      EXPECT_EQ(r.endReason, EndReason::Stopped) << r.id;
    }
  }
};

TEST(ClusterStopNow, ARaceStopsAtOnceSaysSoAndWritesItsSummary) {
  SlowCluster s("stop-race");
  s.c.start("race", {OPEVO_CLI, "compare", "--space", kClusterDataset, "--algos", "opevo-m,random",
                     "--repeats", "1", "--trials", "5", "--out", (s.c.dir() / "race").string(),
                     "--db", s.c.db(), "--cluster", s.c.address()});
  s.stop("race");
  EXPECT_TRUE(fs::exists(s.c.dir() / "race" / "summary.json")) << s.c.logText("race");
  s.expectRunsStopped(2);
}

TEST(ClusterStopNow, ATuneStopsAtOnceAndSaysSo) {
  SlowCluster s("stop-tune");
  s.c.start("tune",
            {OPEVO_CLI, "tune", "--cluster", s.c.address(), "--backend",
             "replay:" + kClusterDataset, "--trials", "5", "--db", s.c.db(), "--no-history"});
  s.stop("tune");
  s.expectRunsStopped(1);
}

// net tune the same, on a cpu agent (real builds: its first unit is under way within seconds).
TEST(ClusterStopNow, ANetTuneStopsAtOnceAndSaysSo) {
  ClusterFixture c("stop-net");
  c.startAgent("cpu", 0, "cpu");
  ASSERT_TRUE(c.waitForAgents(1)) << c.logText("cpu");
  c.start("net",
          {OPEVO_CLI, "net", "tune",
           std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_dense_pair.json", "--trials", "100000",
           "--unit", "2", "--no-reference", "--cluster", c.address(), "--db", c.db()});
  ASSERT_TRUE(waitFor(120, [&] { return c.logText("net").find(" trials] ") != std::string::npos; }))
      << c.logText("net");
  c.signal("net", SIGINT);
  EXPECT_EQ(c.wait("net", 60), 130) << c.logText("net");
  EXPECT_NE(c.logText("net").find(
                "stopping now: the trials the cluster's agents hold are not waited for"),
            std::string::npos)
      << c.logText("net");
  for (const RunRecord& r : Store(c.db()).runs()) EXPECT_NE(r.status, RunStatus::Running) << r.id;
}

}  // namespace
}  // namespace opevo::test
