// A real agent against requests put on its stream by hand: the rules it follows for trials that
// kill agents, requests it cannot read, a cluster that is not there yet, and a wrong password.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cluster/trial_consumer.h"
#include "cluster/trial_messages.h"
#include "cluster_fixture.h"
#include "io/replay_dataset.h"
#include "run_process.h"

namespace opevo::test {
namespace {

using cluster::RedisValue;

cluster::TrialRequest request(const std::string& kind, const std::string& trial,
                              const std::string& config) {
  cluster::TrialRequest r;
  r.trialId = trial;
  r.kind = kind;
  r.replyTo = "opevo:results:test";
  r.master = "opevo:master:test";
  r.task = {{"backend", "replay"}};
  r.config = config;
  return r;
}

std::string add(cluster::RedisConnection& redis, const std::string& kind,
                const std::vector<std::string>& fields) {
  std::vector<std::string> xadd = {"XADD", cluster::trialsStream(kind), "*"};
  xadd.insert(xadd.end(), fields.begin(), fields.end());
  return redis.call(xadd).str();
}

// The results the agent added for the test's "master", by trial id.
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

// A trial delivered three times without a result (three consumers took it and died) is answered
// as failed, with that reason, and not measured a fourth time; a request missing a field is
// answered as failed naming the field; a good one is measured. One agent serves all three.
TEST(ClusterAgent, ThriceDeliveredAndMalformedRequestsFailWithTheirReason) {
  ClusterFixture c("agent-rules");
  c.startAgent("probe", 0);
  ASSERT_TRUE(c.waitForAgents(1));
  const std::string kind = c.kindOf("probe");
  c.killNow("probe");  // its kind is known; the requests go in before a live agent reads them
  auto redis = c.connect();
  redis.call({"SET", "opevo:master:test", "alive", "EX", "60"});
  const std::string stream = cluster::trialsStream(kind);
  cluster::ensureGroup(redis, stream);

  const auto ds = loadReplayDataset(kClusterDataset);
  const std::string config = ds.space.format(ds.bestConfig);
  const std::string poison = add(redis, kind, cluster::requestFields(request(kind, "t-1", config)));
  // Three consumers take it in turn and "die" (never answer).
  redis.call({"XREADGROUP", "GROUP", cluster::kConsumerGroup, "dead-1", "COUNT", "1", "STREAMS",
              stream, ">"});
  for (const char* consumer : {"dead-2", "dead-3"})
    redis.call({"XCLAIM", stream, cluster::kConsumerGroup, consumer, "0", poison});
  std::vector<std::string> noConfig = cluster::requestFields(request(kind, "t-2", config));
  noConfig.erase(noConfig.end() - 4, noConfig.end() - 2);  // drops "config" and its value
  add(redis, kind, noConfig);
  add(redis, kind, cluster::requestFields(request(kind, "t-3", config)));

  c.startAgent("a1", 0);
  ASSERT_TRUE(waitFor(30, [&] { return results(c).size() == 3; })) << c.logText("a1");
  const auto r = results(c);
  EXPECT_EQ(r.at("t-1").measurement.status, TrialStatus::RuntimeFault);
  EXPECT_NE(r.at("t-1").measurement.message.find("delivered 3 times without a result"),
            std::string::npos)
      << r.at("t-1").measurement.message;
  EXPECT_EQ(r.at("t-2").measurement.status, TrialStatus::LaunchError);
  EXPECT_NE(r.at("t-2").measurement.message.find("field 'config' is missing"), std::string::npos)
      << r.at("t-2").measurement.message;
  EXPECT_EQ(r.at("t-3").measurement.status, TrialStatus::Ok);
  EXPECT_DOUBLE_EQ(r.at("t-3").measurement.speed, ds.bestSpeed);
  // Every request acknowledged and deleted: nothing pending, nothing waiting.
  EXPECT_EQ(redis.call({"XLEN", stream}).integer, 0);
}

// An agent started before its cluster says it cannot reach it and keeps trying; once redis-server
// is up it registers. Requests of a master that is gone are skipped, not measured.
TEST(ClusterAgent, WaitsForAnUnreachableClusterAndSkipsDeadMastersTrials) {
  ClusterFixture c("agent-waits");
  c.server().stop();
  c.startAgent("a1", 0);
  ASSERT_TRUE(waitFor(20, [&] { return c.logText("a1").find("retrying in") != std::string::npos; }))
      << c.logText("a1");
  c.server().start();
  ASSERT_TRUE(c.waitForAgents(1, 20)) << c.logText("a1");
  const std::string kind = c.kindOf("a1");
  auto redis = c.connect();
  const auto ds = loadReplayDataset(kClusterDataset);
  // No opevo:master:test key: its master is gone.
  add(redis, kind, cluster::requestFields(request(kind, "orphan", ds.space.format(ds.bestConfig))));
  ASSERT_TRUE(waitFor(20, [&] {
    return redis.call({"XLEN", cluster::trialsStream(kind)}).integer == 0;
  }));
  EXPECT_TRUE(results(c).empty()) << "a dead master's trial was measured";
}

// Two agents of one host timing on the same cores would each record the other's load: the second
// is refused, naming the first and the way out, unless it is told to share.
TEST(ClusterAgent, ASecondAgentOnTheSameCoresIsRefusedUnlessTold) {
  ClusterFixture c("shared-cores");
  c.startAgent("first", 0, "cpu");
  ASSERT_TRUE(c.waitForAgents(1)) << c.logText("first");
  c.startAgent("second", 0, "cpu");
  EXPECT_EQ(c.wait("second", 30), 2) << c.logText("second");
  const std::string log = c.logText("second");
  EXPECT_NE(log.find("agent 'first'"), std::string::npos) << log;
  EXPECT_NE(log.find("already measures on cpu"), std::string::npos) << log;
  EXPECT_NE(log.find("--share-hardware"), std::string::npos) << log;
  ASSERT_TRUE(waitFor(10, [&] { return c.agents().size() == 1; }))
      << "the refused one stayed listed";
  c.start("third", {OPEVO_CLI, "agent", "--cluster", c.address(), "--backend", "cpu", "--name",
                    "third", "--heartbeat", "0.5", "--share-hardware"});
  EXPECT_TRUE(c.waitForAgents(2)) << c.logText("third");
}

// Started at the same moment (a script, two systemd units), each agent sees the other once
// registered: the later gives way and the earlier serves, never both gone.
TEST(ClusterAgent, OfTwoAgentsStartedAtOnceOnTheSameCoresOneServes) {
  ClusterFixture c("shared-cores-at-once");
  c.startAgent("left", 0, "cpu");
  c.startAgent("right", 0, "cpu");
  std::string refused;
  ASSERT_TRUE(waitFor(30,
                      [&] {
                        for (const char* name : {"left", "right"})
                          if (c.wait(name, 0) == 2) refused = name;
                        return !refused.empty();
                      }))
      << c.logText("left") << c.logText("right");
  const std::string serving = refused == "left" ? "right" : "left";
  EXPECT_NE(c.logText(refused).find("agent '" + serving + "'"), std::string::npos)
      << c.logText(refused);
  ASSERT_TRUE(waitFor(10, [&] { return c.agents().size() == 1; }))
      << c.logText("left") << c.logText("right");
  EXPECT_EQ(c.agents().front().id, serving);
  EXPECT_EQ(c.wait(serving, 1), -1) << "the serving agent ended: " << c.logText(serving);
}

// A wrong or missing password is refused with a message saying what to do, by agents and masters
// alike, and the master stores nothing.
TEST(ClusterAgent, WrongOrMissingPasswordIsRefused) {
  ClusterFixture c("auth");
  setenv("OPEVO_CLUSTER_PASSWORD", "not-the-password", 1);
  c.startAgent("wrong", 0);
  EXPECT_EQ(c.wait("wrong", 30), 2);
  EXPECT_NE(c.logText("wrong").find("refused the password"), std::string::npos)
      << c.logText("wrong");
  unsetenv("OPEVO_CLUSTER_PASSWORD");
  c.startSplit("master", {OPEVO_CLI, "tune", "--cluster", c.address(), "--backend",
                          "replay:" + kClusterDataset, "--trials", "5", "--db", c.db()});
  EXPECT_EQ(c.wait("master", 30), 2);
  EXPECT_NE(c.logText("master").find("requires a password"), std::string::npos)
      << c.logText("master");
  EXPECT_NE(c.logText("master").find("OPEVO_CLUSTER_PASSWORD"), std::string::npos);
  EXPECT_TRUE(storedTrials(c.db()).empty());
  EXPECT_TRUE(!fs::exists(c.db()) || Store(c.db()).runs().empty());
  setenv("OPEVO_CLUSTER_PASSWORD", c.password().c_str(), 1);
}

// The agent's numbers are checked as the command line's are: CLI11's PositiveNumber took nan, and
// 0x2 was read as 2.
TEST(ClusterAgent, ItsNumbersAreDecimalAndFinite) {
  for (const auto& [option, value] : std::vector<std::pair<std::string, std::string>>{
           {"--heartbeat", "nan"}, {"--reclaim-after", "0x2"}, {"--delay-ms", "1.5"}}) {
    const ProcessResult r = runProcess(
        OPEVO_CLI, {"agent", "--cluster", "127.0.0.1:1", "--backend", "cpu", option, value});
    EXPECT_EQ(r.status, 2) << option << ": " << r.err;
    EXPECT_NE(r.err.find(option + ": must be a "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("got " + value), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace opevo::test
