// What a user walk of the cluster found about agents that stop and masters that wait, each with
// real processes on a real redis-server: an agent stopped politely answers the trial it measures;
// a trial handed back, or left by a killed agent whose name a new one takes, is taken at once; a
// replay no agent serves is refused before a run is stored; a master names the gone agent that
// holds its trial; a run measured on the cluster is known as such from its stored record.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <nlohmann/json.hpp>

#include "cluster/cluster_run.h"
#include "cluster/cluster_session.h"
#include "cluster/trial_consumer.h"
#include "cluster/trial_messages.h"
#include "cluster_fixture.h"
#include "io/replay_dataset.h"
#include "run_process.h"

namespace opevo::test {
namespace {

// An agent that waits `reclaimAfter` seconds before taking over a trial someone else holds: long
// enough that a test passing in less shows the trial was not reclaimed by that rule.
pid_t startPatientAgent(ClusterFixture& c, const std::string& process, const std::string& name,
                        int delayMs, const std::string& reclaimAfter = "600") {
  return c.start(process, {OPEVO_CLI, "agent", "--cluster", c.address(), "--backend",
                           "replay:" + kClusterDataset, "--name", name, "--heartbeat", "0.5",
                           "--reclaim-after", reclaimAfter, "--delay-ms", std::to_string(delayMs)});
}

std::vector<std::string> tuneArgs(ClusterFixture& c, int trials) {
  return {OPEVO_CLI, "tune",   "--cluster", c.address(),   "--backend", "replay:" + kClusterDataset,
          "--algo",  "random", "--seed",    "3",           "--trials",  std::to_string(trials),
          "--db",    c.db(),   "--json",    "--no-history"};
}

// The results stream "opevo:results:test" by trial id.
std::map<std::string, cluster::TrialResult> results(ClusterFixture& c) {
  auto redis = c.connect();
  std::map<std::string, cluster::TrialResult> out;
  for (const cluster::StreamEntry& e :
       cluster::entriesOf(redis.call({"XRANGE", "opevo:results:test", "-", "+"}))) {
    const cluster::TrialResult r = cluster::parseResult(e);
    out[r.trialId] = r;
  }
  return out;
}

// Finding 1: SIGTERM while a trial is measured. The agent answers it (the walk saw it wait out
// the measurement, then exit without posting, leaving the trial held by nobody for 15 s and
// counted as a delivery: three such stops stored a good trial as a runtime fault). The run's
// stored record then says where it was measured (finding 3), unlike a run measured here.
TEST(ClusterStop, APoliteStopAnswersTheTrialInHand) {
  ClusterFixture c("polite-stop");
  c.startAgent("slow", 2500);
  ASSERT_TRUE(c.waitForAgents(1)) << c.logText("slow");
  const std::string kind = c.kindOf("slow");
  c.startSplit("master", tuneArgs(c, 2));
  ASSERT_TRUE(waitFor(30, [&] { return !c.held(kind, "slow").empty(); })) << c.logText("master");
  c.signal("slow", SIGTERM);
  EXPECT_EQ(c.wait("slow", 20), 0) << c.logText("slow");
  EXPECT_NE(c.logText("slow").find("stopped after 1 trial"), std::string::npos)
      << c.logText("slow");
  // Its answer reached the master: the trial is stored without another agent.
  ASSERT_TRUE(waitFor(10, [&] { return storedTrials(c.db()).size() == 1; })) << c.logText("master");
  EXPECT_EQ(storedTrials(c.db())[0].status, TrialStatus::Ok);
  EXPECT_TRUE(c.held(kind, "slow").empty());

  c.startAgent("quick", 0);
  ASSERT_EQ(c.wait("master", 60), 0) << c.logText("master") << c.logText("quick");
  const std::vector<TrialRow> trials = storedTrials(c.db());
  expectExactBudget(trials, 2);
  for (const TrialRow& t : trials) EXPECT_EQ(t.status, TrialStatus::Ok) << t.message;

  const ProcessResult here =
      runProcess(OPEVO_CLI, {"tune", "--backend", "replay:" + kClusterDataset, "--trials", "2",
                             "--db", c.db(), "--no-history"});
  ASSERT_EQ(here.status, 0) << here.err;
  Store store(c.db());
  EXPECT_EQ(cluster::clusterOfRun(*store.run(1)), c.address()) << store.run(1)->label;
  EXPECT_EQ(cluster::clusterOfRun(*store.run(2)), std::nullopt) << store.run(2)->label;
  const auto problem = cluster::clusterResumeProblem(*store.run(1), false, false);
  ASSERT_TRUE(problem);
  EXPECT_NE(problem->find("--cluster " + c.address()), std::string::npos) << *problem;
  EXPECT_FALSE(cluster::clusterResumeProblem(*store.run(1), true, false));
  EXPECT_FALSE(cluster::clusterResumeProblem(*store.run(1), false, true));
  EXPECT_FALSE(cluster::clusterResumeProblem(*store.run(2), false, false));
}

// A trial an agent took and gives back unmeasured (stopping before it started) is taken by the
// next agent at once, however long its --reclaim-after, and the hand-back is no delivery.
TEST(ClusterStop, ATrialHandedBackIsTakenAtOnceAndNotCountedAsADelivery) {
  ClusterFixture c("hand-back");
  c.startAgent("probe", 0);
  ASSERT_TRUE(c.waitForAgents(1)) << c.logText("probe");
  const std::string kind = c.kindOf("probe");
  c.killNow("probe");
  auto redis = c.connect();
  redis.call({"SET", "opevo:master:test", "alive", "EX", "120"});
  const std::string stream = cluster::trialsStream(kind);
  cluster::ensureGroup(redis, stream);
  const auto ds = loadReplayDataset(kClusterDataset);
  cluster::TrialRequest r;
  r.trialId = "t-1";
  r.kind = kind;
  r.replyTo = "opevo:results:test";
  r.master = "opevo:master:test";
  r.task = {{"backend", "replay"}};
  r.config = ds.space.format(ds.bestConfig);
  std::vector<std::string> xadd = {"XADD", stream, "*"};
  for (const std::string& f : cluster::requestFields(r)) xadd.push_back(f);
  const std::string entry = redis.call(xadd).str();
  redis.call({"XREADGROUP", "GROUP", cluster::kConsumerGroup, "leaving/0", "COUNT", "1", "STREAMS",
              stream, ">"});
  EXPECT_FALSE(cluster::handBack(redis, stream, "someone-else/0", entry, 0));
  EXPECT_TRUE(cluster::handBack(redis, stream, "leaving/0", entry, 0));

  startPatientAgent(c, "taker", "taker", 0);
  ASSERT_TRUE(waitFor(30, [&] { return results(c).count("t-1") > 0; })) << c.logText("taker");
  EXPECT_EQ(results(c).at("t-1").measurement.status, TrialStatus::Ok);
  EXPECT_NE(c.logText("taker").find("took over trial t-1"), std::string::npos)
      << c.logText("taker");
  // Its first delivery was given back: this one is still the first.
  EXPECT_NE(c.logText("taker").find("(delivery 1)"), std::string::npos) << c.logText("taker");
}

// Finding 8: an agent killed mid-trial and started again at once under its name (which it takes
// over) hands the dead one's trial on at once, not after --reclaim-after; that delivery counts.
TEST(ClusterStop, AnAgentTakingOverAKilledOnesNameTakesItsTrialAtOnce) {
  ClusterFixture c("name-takeover");
  startPatientAgent(c, "first", "twin", 60000);
  ASSERT_TRUE(c.waitForAgents(1)) << c.logText("first");
  const std::string kind = c.kindOf("twin");
  c.startSplit("master", tuneArgs(c, 1));
  ASSERT_TRUE(waitFor(30, [&] { return !c.held(kind, "twin").empty(); })) << c.logText("master");
  c.killNow("first");
  startPatientAgent(c, "second", "twin", 0);
  // Far less than the 600 s it would otherwise wait.
  ASSERT_EQ(c.wait("master", 60), 0) << c.logText("master") << c.logText("second");
  expectExactBudget(storedTrials(c.db()), 1);
  EXPECT_EQ(storedTrials(c.db())[0].status, TrialStatus::Ok);
  const std::string log = c.logText("second");
  EXPECT_NE(log.find("took over the id twin"), std::string::npos) << log;
  EXPECT_NE(log.find("left unanswered by an earlier agent named twin"), std::string::npos) << log;
  EXPECT_NE(log.find("(delivery 2)"), std::string::npos) << log;
}

// Finding 2: a replay master whose dataset no live agent replays is refused at once (exit status
// 2), naming the dataset's file in the command that starts an agent, and stores nothing; the
// walk saw it create a run and wait until killed.
TEST(ClusterMaster, AReplayNoAgentServesIsRefusedBeforeARunIsStored) {
  ClusterFixture c("replay-unserved");
  // Started apart, so that a master that waits fails the test instead of hanging it.
  c.startSplit("master", {OPEVO_CLI, "tune", "--cluster", c.address(), "--backend",
                          "replay:" + kClusterDataset, "--trials", "4", "--db", c.db()});
  EXPECT_EQ(c.wait("master", 20), 2) << c.logText("master");
  const std::string err = c.logText("master");
  EXPECT_NE(err.find("no live agent on the cluster at " + c.address() + " replays " +
                     fs::path(kClusterDataset).filename().string()),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("--backend replay:" + kClusterDataset), std::string::npos) << err;
  EXPECT_FALSE(fs::exists(c.db()));
}

// Finding 1's master side: a trial held by an agent that is gone is said as such (the walk's
// master said "waiting for 1 result from the 2 live devices" while an exited agent held it).
TEST(ClusterMaster, AWaitNamesTheGoneAgentThatHoldsATrial) {
  ClusterFixture c("gone-holder");
  std::atomic<bool> cancel{false};
  std::mutex mutex;
  std::vector<std::string> notices;
  cluster::ClusterSessionOptions o;
  o.cancel = &cancel;
  o.waitNoticeSeconds = 0.3;
  o.notice = [&](const std::string& text) {
    std::lock_guard lock(mutex);
    notices.push_back(text);
    if (text.find("held by") != std::string::npos) cancel = true;
  };
  const std::string kind = "cpu:Nobody's CPU, 2 threads";
  cluster::ClusterSession session(c.server().endpoint(), c.password(), o);
  std::thread taker([&] {
    // A consumer of an agent that is not live takes the request and never answers.
    auto redis = c.connect();
    // As an agent does: the group is made before it reads (the session may not have sent yet).
    cluster::ensureGroup(redis, cluster::trialsStream(kind));
    waitFor(10, [&] {
      const cluster::RedisValue got =
          redis.call({"XREADGROUP", "GROUP", cluster::kConsumerGroup, "ghost/0", "COUNT", "1",
                      "STREAMS", cluster::trialsStream(kind), ">"});
      return got.isArray() && !got.elements.empty();
    });
    // Should the notice never come, the test fails instead of waiting for ever.
    waitFor(20, [&] { return cancel.load(); });
    cancel = true;
  });
  session.measure(kind, {{"backend", "cpu"}}, {{}},
                  [](std::size_t, const cluster::TrialResult&) {});
  taker.join();
  std::lock_guard lock(mutex);
  ASSERT_FALSE(notices.empty());
  EXPECT_NE(notices.back().find("1 is held by agent ghost, no longer live"), std::string::npos)
      << notices.back();
  EXPECT_NE(notices.back().find("--backend cpu"), std::string::npos) << notices.back();
}

}  // namespace
}  // namespace opevo::test
