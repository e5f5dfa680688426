// `opevo cluster serve` and `opevo cluster status` as a user runs them.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "cluster_fixture.h"
#include "run_process.h"

namespace opevo::test {
namespace {

// A loopback port nobody listens on now.
int freePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t n = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &n);
  close(fd);
  return ntohs(a.sin_port);
}

// The password reaches redis-server through a file only its owner reads, never a command line;
// it listens on loopback; status lists a live agent; Ctrl-C stops redis-server with it.
TEST(ClusterServe, PasswordOffCommandLinesAndCtrlCStopsRedis) {
  ClusterFixture c("serve");  // its own server is not the one under test; its helpers are
  const int port = freePort();
  const std::string where = "127.0.0.1:" + std::to_string(port);
  const fs::path dir = c.dir() / "served";
  c.startSplit("serve", {OPEVO_CLI, "cluster", "serve", "--port", std::to_string(port), "--dir",
                         dir.string()});
  ASSERT_TRUE(waitFor(20,
                      [&] {
                        return c.outText("serve").find("cluster listening on " + where) !=
                               std::string::npos;
                      }))
      << c.outText("serve") << c.logText("serve");
  const std::string out = c.outText("serve");
  const auto at = out.find("pid ") + 4;
  const pid_t redis = static_cast<pid_t>(std::stol(out.substr(at)));
  const std::string cmdline = readText("/proc/" + std::to_string(redis) + "/cmdline");
  EXPECT_EQ(cmdline.find(c.password()), std::string::npos) << "the password is on a command line";
  EXPECT_EQ(readText("/proc/" + std::to_string(c.pid("serve")) + "/cmdline").find(c.password()),
            std::string::npos);
  struct stat st {};
  ASSERT_EQ(stat((dir / "redis.conf").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_NE(readText(dir / "redis.conf").find("appendonly yes"), std::string::npos);
  EXPECT_NE(readText(dir / "redis.conf").find("bind 127.0.0.1"), std::string::npos);

  c.start("agent", {OPEVO_CLI, "agent", "--cluster", where, "--backend",
                    "replay:" + kClusterDataset, "--delay-ms", "5", "--name", "node-1"});
  nlohmann::json status;
  ASSERT_TRUE(waitFor(20, [&] {
    const ProcessResult r =
        runProcess(OPEVO_CLI, {"cluster", "status", "--cluster", where, "--json"});
    status = nlohmann::json::parse(r.out, nullptr, false);
    return r.status == 0 && status.is_object() && status["agents"].size() == 1;
  })) << status.dump();
  EXPECT_EQ(status["agents"][0]["id"], "node-1");
  EXPECT_EQ(status["agents"][0]["devices"][0]["delay_ms"], 5);
  const ProcessResult text = runProcess(OPEVO_CLI, {"cluster", "status", "--cluster", where});
  EXPECT_NE(text.out.find("simulated 5 ms per trial"), std::string::npos) << text.out;

  c.signal("agent", SIGTERM);
  EXPECT_EQ(c.wait("agent", 20), 0) << c.logText("agent");
  c.signal("serve", SIGINT);
  EXPECT_EQ(c.wait("serve", 30), 0) << c.logText("serve");
  EXPECT_NE(kill(redis, 0), 0) << "redis-server outlived opevo cluster serve";
}

TEST(ClusterServe, RefusesToServeWithoutAPasswordOrWithABadAddress) {
  unsetenv("OPEVO_CLUSTER_PASSWORD");
  ProcessResult r = runProcess(OPEVO_CLI, {"cluster", "serve", "--dir", "/tmp/opevo-never"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("needs a password"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists("/tmp/opevo-never"));
  // One the walk started with: a server on a network would answer guesses of it all day.
  setenv("OPEVO_CLUSTER_PASSWORD", "a", 1);
  r = runProcess(OPEVO_CLI, {"cluster", "serve", "--dir", "/tmp/opevo-never"});
  unsetenv("OPEVO_CLUSTER_PASSWORD");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("the cluster's password has 1 character; serving needs 12 or more"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists("/tmp/opevo-never"));
  r = runProcess(OPEVO_CLI, {"cluster", "status", "--cluster", "localhost:sixty"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("the port 'sixty' is not a number"), std::string::npos) << r.err;
  r = runProcess(OPEVO_CLI, {"cluster", "status", "--cluster", "127.0.0.1:1"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("cannot reach the cluster at 127.0.0.1:1"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace opevo::test
