#pragma once

// What the cluster tests share: a real redis-server with a password on a Unix socket in a
// temporary directory, real agents (`opevo agent`, i.e. opevo-agent processes) and real masters
// (`opevo tune`), each process's output in a log file of its own for the assertions.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cluster/agent_registry.h"
#include "cluster/cluster_keys.h"
#include "cluster/redis_connection.h"
#include "cluster/redis_server.h"
#include "common/child_process.h"
#include "store/store.h"

namespace opevo::test {

namespace fs = std::filesystem;

// A small dataset, so agents start in well under a second.
inline const std::string kClusterDataset =
    std::string(OPEVO_DATASETS_DIR) + "/convolution/RTX_2080_Ti.json.gz";

inline std::string readText(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::vector<TrialRow> storedTrials(const std::string& db, std::int64_t run = 1) {
  if (!fs::exists(db)) return {};
  Store store(db);
  return store.run(run) ? store.trials(run) : std::vector<TrialRow>{};
}

template <typename Predicate>
bool waitFor(double seconds, Predicate done) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return done();
}

class ClusterFixture {
 public:
  explicit ClusterFixture(const std::string& name) {
    char pattern[] = "/tmp/opevo-cluster-XXXXXX";
    m_dir = mkdtemp(pattern);
    // Long enough for opevo cluster serve (kMinPasswordLength), which tests run with it too.
    m_password = "opevo-test-" + name + "-" + std::to_string(getpid());
    setenv("OPEVO_CLUSTER_PASSWORD", m_password.c_str(), 1);
    setenv("XDG_CACHE_HOME", (m_dir / "cache").c_str(), 1);
    cluster::RedisServerOptions o;
    o.dir = (m_dir / "redis").string();
    o.port = 0;
    o.unixSocket = (m_dir / "redis.sock").string();
    o.password = m_password;
    m_server = std::make_unique<cluster::RedisServer>(o);
  }
  ~ClusterFixture() {
    for (auto& [name, pid] : m_processes) {
      ::kill(pid, SIGCONT);
      ::kill(pid, SIGKILL);
      waitChild(pid);
    }
    m_server.reset();
    fs::remove_all(m_dir);
  }
  ClusterFixture(const ClusterFixture&) = delete;
  ClusterFixture& operator=(const ClusterFixture&) = delete;

  const fs::path& dir() const { return m_dir; }
  std::string address() const { return m_server->endpoint().text(); }
  std::string db() const { return (m_dir / "runs.db").string(); }
  const std::string& password() const { return m_password; }
  cluster::RedisServer& server() { return *m_server; }
  cluster::RedisConnection connect() const { return {m_server->endpoint(), m_password}; }

  fs::path log(const std::string& name) const { return m_dir / (name + ".log"); }
  std::string logText(const std::string& name) const { return readText(log(name)); }

  // A process of ours, its standard output and error in log(name).
  pid_t start(const std::string& name, const std::vector<std::string>& args) {
    ChildStreams s;
    s.stdoutFile = log(name).string();
    s.stderrToStdout = true;
    const pid_t pid = startChild(args, s);
    m_processes[name] = pid;
    return pid;
  }
  // A replay agent that takes over trials left 1.5 s by a stopped consumer.
  pid_t startAgent(const std::string& name, int delayMs,
                   const std::string& backend = "replay:" + kClusterDataset) {
    std::vector<std::string> args = {OPEVO_CLI,     "agent", "--cluster",       address(),
                                     "--backend",   backend, "--name",          name,
                                     "--heartbeat", "0.5",   "--reclaim-after", "1.5"};
    if (delayMs > 0) args.insert(args.end(), {"--delay-ms", std::to_string(delayMs)});
    return start(name, args);
  }
  // The same with standard output apart, in out(name) (a --json answer), through a shell that
  // execs the program: the pid is the program's own.
  pid_t startSplit(const std::string& name, const std::vector<std::string>& args) {
    // Appended piece by piece: GCC 12 warns (-Wrestrict) about "literal" + temporary here.
    std::string command = "exec";
    for (const std::string& a : args) command.append(" ").append(quote(a));
    command.append(" >").append(quote(out(name).string()));
    command.append(" 2>").append(quote(log(name).string()));
    const pid_t pid = startChild({"/bin/sh", "-c", command});
    m_processes[name] = pid;
    return pid;
  }
  fs::path out(const std::string& name) const { return m_dir / (name + ".out"); }
  std::string outText(const std::string& name) const { return readText(out(name)); }
  pid_t pid(const std::string& name) const { return m_processes.at(name); }
  // Its exit status (128 + signal), waiting at most `seconds`; -1 when it is still running.
  int wait(const std::string& name, double seconds) {
    const pid_t p = m_processes.at(name);
    int status = -1;
    const bool ended = waitFor(seconds, [&] {
      int raw = 0;
      if (waitpid(p, &raw, WNOHANG) != p) return false;
      status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
      return true;
    });
    if (ended) m_processes.erase(name);
    return ended ? status : -1;
  }
  void signal(const std::string& name, int sig) { ::kill(m_processes.at(name), sig); }
  void killNow(const std::string& name) {
    ::kill(m_processes.at(name), SIGKILL);
    waitChild(m_processes.at(name));
    m_processes.erase(name);
  }

  std::vector<cluster::AgentRecord> agents() {
    auto redis = connect();
    return cluster::liveAgents(redis);
  }
  bool waitForAgents(std::size_t count, double seconds = 30) {
    return waitFor(seconds, [&] { return agents().size() >= count; });
  }
  std::string kindOf(const std::string& agent) {
    for (const cluster::AgentRecord& a : agents())
      if (a.id == agent && !a.devices.empty()) return a.devices.front().kind;
    return {};
  }
  // The trial entries a consumer of the agent holds on the kind's stream (being measured).
  std::vector<std::string> held(const std::string& kind, const std::string& agent) {
    auto redis = connect();
    const cluster::RedisValue p = redis.command(
        {"XPENDING", cluster::trialsStream(kind), cluster::kConsumerGroup, "-", "+", "100"});
    std::vector<std::string> out;
    for (const cluster::RedisValue& e : p.elements)
      if (e.elements.size() >= 2 && e.elements[1].str().rfind(agent + "/", 0) == 0)
        out.push_back(e.elements[0].str());
    return out;
  }

 private:
  static std::string quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
  }

  fs::path m_dir;
  std::string m_password;
  std::unique_ptr<cluster::RedisServer> m_server;
  std::map<std::string, pid_t> m_processes;
};

// Exactly `budget` trials, numbered 1..budget, no configuration twice.
inline void expectExactBudget(const std::vector<TrialRow>& trials, int budget) {
  ASSERT_EQ(static_cast<int>(trials.size()), budget);
  std::set<std::string> configs;
  for (int i = 0; i < budget; ++i) {
    EXPECT_EQ(trials[i].seq, i + 1);
    configs.insert(trials[i].config);
  }
  EXPECT_EQ(static_cast<int>(configs.size()), budget) << "a configuration was stored twice";
}

}  // namespace opevo::test
