// What a user walk through the cluster found, each as the user met it: an agent that cannot
// compile, a port or a directory already taken, a server left behind, an address that is not a
// Redis server or names no host, two agents of one name, a master waiting with no agent, and a
// master given its password in a file.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <atomic>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "cluster/cluster_session.h"
#include "cluster_fixture.h"
#include "run_process.h"

namespace opevo::test {
namespace {

// A loopback listener of the test's own: it accepts nothing (a server that never answers), or
// answers every connection as a web server would.
class Listener {
 public:
  explicit Listener(bool answerLikeHttp) {
    m_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(m_fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t n = sizeof a;
    getsockname(m_fd, reinterpret_cast<sockaddr*>(&a), &n);
    m_port = ntohs(a.sin_port);
    listen(m_fd, 16);
    if (answerLikeHttp)
      m_thread = std::thread([this] {
        while (true) {
          const int client = accept(m_fd, nullptr, nullptr);
          if (client < 0) return;
          // Read first: closing with a request unread would reset the connection before the
          // client reads the answer.
          char request[1024];
          [[maybe_unused]] const ssize_t got = read(client, request, sizeof request);
          const char reply[] = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
          [[maybe_unused]] const ssize_t sent = write(client, reply, sizeof reply - 1);
          close(client);
        }
      });
  }
  ~Listener() {
    shutdown(m_fd, SHUT_RDWR);
    if (m_thread.joinable()) m_thread.join();
    close(m_fd);
  }
  std::string address() const { return "127.0.0.1:" + std::to_string(m_port); }
  int port() const { return m_port; }

 private:
  int m_fd = -1;
  int m_port = 0;
  std::thread m_thread;
};

int freePort() {
  const Listener probe(false);
  return probe.port();
}

// The pid after "pid " following `after` in text (0 when absent).
long pidAfter(const std::string& text, const std::string& after) {
  const auto at = text.find(after);
  if (at == std::string::npos) return 0;
  const auto p = text.find("pid ", at);
  return p == std::string::npos ? 0 : std::stol(text.substr(p + 4));
}

// Whether some process holds the dir's lock (the test takes it for a moment to find out).
bool dirLocked(const fs::path& dir) {
  const int fd = open((dir / "serve.lock").c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) return false;
  const bool locked = flock(fd, LOCK_EX | LOCK_NB) != 0;
  close(fd);
  return locked;
}

// A serve that must be refused, run for at most 30 s: one that is not refused serves until it is
// stopped, and would hold runProcess (and ctest) until the suite's timeout. timeout(1) stops it
// with SIGTERM (it stops its redis-server and exits) and exits 124, so the test fails with what
// it printed instead.
ProcessResult runRefusedServe(const std::vector<std::string>& args) {
  std::vector<std::string> bounded = {"-k", "5", "30", OPEVO_CLI, "cluster", "serve"};
  bounded.insert(bounded.end(), args.begin(), args.end());
  return runProcess("timeout", bounded);
}

// The fields of /proc/PID/stat after the command's closing parenthesis (the state first), empty
// when there is no such process: the command may hold spaces and parentheses of its own.
std::string statFields(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(in, line);
  const auto close = line.rfind(')');
  return close == std::string::npos || close + 2 > line.size() ? "" : line.substr(close + 2);
}

// Whether the process is stopped (state T).
bool processStopped(long pid) {
  return statFields(static_cast<pid_t>(pid)).rfind('T', 0) == 0;
}

// The start time of the process (field 22, in clock ticks since boot), 0 when there is none: with
// its pid it names one process, not whichever later takes its pid.
unsigned long long startTime(pid_t pid) {
  std::istringstream fields(statFields(pid));
  std::string field;
  for (int i = 3; i < 22 && fields >> field; ++i) {
  }
  unsigned long long start = 0;
  fields >> start;
  return start;
}

// The parent of the process (field 4), 0 when there is none.
pid_t parentOf(pid_t pid) {
  std::istringstream fields(statFields(pid));
  char state = 0;
  pid_t parent = 0;
  fields >> state >> parent;
  return parent;
}

// This process's children, as /proc has them. Never throws: LeftBehind's destructor calls it.
std::set<pid_t> ownChildren() {
  std::set<pid_t> out;
  std::error_code error;
  for (fs::directory_iterator it("/proc", error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const auto pid = static_cast<pid_t>(std::strtol(name.c_str(), nullptr, 10));
    if (parentOf(pid) == getpid()) out.insert(pid);
  }
  return out;
}

// The processes a test stopped (SIGSTOP) or adopted, continued, killed and reaped however the
// test ends: a failing ASSERT returns at once, and a redis-server left stopped would hold its dir
// and port for the rest of the suite, and outlive it. Each is known by its pid and start time, so
// one the test has reaped itself (its pid free for another process) is left alone. Declared after
// the test's ClusterFixture, it ends first: a redis-server whose serve still runs is killed
// before the fixture kills and waits for that serve.
class LeftBehind {
 public:
  LeftBehind() = default;
  LeftBehind(const LeftBehind&) = delete;
  LeftBehind& operator=(const LeftBehind&) = delete;
  ~LeftBehind() {
    stopAdopting();
    for (const auto& [pid, start] : m_processes) {
      if (start == 0 || startTime(pid) != start) continue;  // gone, reaped by the test
      ::kill(pid, SIGCONT);
      ::kill(pid, SIGKILL);
      // One of ours (adopted) is reaped here; another's by its parent, or by init after it.
      if (parentOf(pid) == getpid()) waitChild(pid);
    }
  }

  // Stops the process with SIGSTOP; whether it could.
  bool stop(pid_t pid) {
    remember(pid);
    return ::kill(pid, SIGSTOP) == 0;
  }

  // Until stopAdopting, this process adopts the orphans of its descendants
  // (PR_SET_CHILD_SUBREAPER). A serve killed with -9 leaves its redis-server an orphan in a
  // process group of its own; adopted by init (another session), that group is orphaned, and Linux
  // sends a stopped member of an orphaned group SIGHUP and SIGCONT: a redis-server stopped to keep
  // the dir would run again at once, act on its parent's death (SIGTERM) and free the dir within
  // 10-40 ms, before the next serve had looked, which then served (the test hung). Adopted by the
  // test, in the test's session, its group is not orphaned and it stays stopped. False (errno
  // set) when the setting cannot be changed.
  bool adoptOrphans() {
    int was = 0;
    if (prctl(PR_GET_CHILD_SUBREAPER, &was) != 0) return false;
    m_childrenBefore = ownChildren();
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) return false;
    m_wasSubreaper = was;
    m_adopting = true;
    return true;
  }
  // Gives the setting back as it was; the processes adopted meanwhile are remembered, to be
  // killed and reaped at the end.
  void stopAdopting() {
    if (!m_adopting) return;
    prctl(PR_SET_CHILD_SUBREAPER, m_wasSubreaper);
    m_adopting = false;
    for (const pid_t pid : ownChildren())
      if (!m_childrenBefore.count(pid)) remember(pid);
  }

 private:
  void remember(pid_t pid) { m_processes.emplace(pid, startTime(pid)); }

  std::map<pid_t, unsigned long long> m_processes;
  std::set<pid_t> m_childrenBefore;
  int m_wasSubreaper = 0;
  bool m_adopting = false;
};

// Finding 1: an agent whose compiler is broken refuses to start and says why, instead of failing
// every trial of the runs it takes.
TEST(ClusterAgent, AnAgentWhoseCompilerIsBrokenRefusesToStart) {
  ClusterFixture c("no-cxx");
  setenv("OPEVO_CXX", "/nonexistent/bin/c++", 1);
  c.startAgent("bad", 0, "cpu");
  unsetenv("OPEVO_CXX");
  EXPECT_EQ(c.wait("bad", 60), 2) << c.logText("bad");
  const std::string log = c.logText("bad");
  EXPECT_NE(log.find("this machine cannot measure cpu trials"), std::string::npos) << log;
  EXPECT_NE(log.find("/nonexistent/bin/c++"), std::string::npos) << log;
  EXPECT_TRUE(c.agents().empty());
}

// Finding 1, its other half, and finding 9: an agent whose measurer cannot be built for a task
// (here its kernel cache cannot be made) answers so; the master counts no trial and stops the run
// failed, resumable, with the agent's reason, as a local run stops. Resumed on a working agent it
// ends on its budget; that agent, closed with SIGHUP, says what it measured, its reference apart.
TEST(ClusterMeasure, AnAgentThatCannotMeasureStopsTheRunResumably) {
  ClusterFixture c("broken-agent");
  const fs::path op = c.dir() / "small.json";
  std::ofstream(op)
      << R"({"name": "small", "kind": "matmul", "shape": {"n": 32, "m": 32, "k": 32}})";
  const std::string cache = std::getenv("XDG_CACHE_HOME");
  setenv("XDG_CACHE_HOME", "/proc/opevo-no-cache", 1);  // not even root can make folders there
  c.startAgent("broken", 0, "cpu");
  setenv("XDG_CACHE_HOME", cache.c_str(), 1);
  ASSERT_TRUE(c.waitForAgents(1)) << c.logText("broken");
  const std::vector<std::string> tune = {
      OPEVO_CLI, "tune",   "--cluster", c.address(), "--backend",     "cpu", "--op", op.string(),
      "--algo",  "random", "--trials",  "4",         "--min-time-ms", "1",   "--db", c.db()};
  c.startSplit("master", tune);
  ASSERT_EQ(c.wait("master", 120), 1) << c.logText("master") << c.logText("broken");
  const std::string master = c.logText("master");
  EXPECT_NE(master.find("agent broken cannot measure"), std::string::npos) << master;
  EXPECT_NE(master.find("opevo-no-cache"), std::string::npos) << master;
  EXPECT_NE(master.find("--resume 1"), std::string::npos) << master;
  EXPECT_TRUE(storedTrials(c.db()).empty()) << "a trial the agent could not measure was stored";
  EXPECT_EQ(Store(c.db()).run(1)->status, RunStatus::Failed);
  EXPECT_NE(c.logText("broken").find("cannot measure trial"), std::string::npos)
      << c.logText("broken");
  c.killNow("broken");

  c.startAgent("good", 0, "cpu");
  ASSERT_TRUE(waitFor(30, [&] {
    for (const auto& a : c.agents())
      if (a.id == "good") return true;
    return false;
  })) << c.logText("good");
  c.startSplit("resume", {OPEVO_CLI, "tune", "--resume", "1", "--cluster", c.address(), "--db",
                          c.db(), "--json"});
  ASSERT_EQ(c.wait("resume", 120), 0) << c.logText("resume") << c.logText("good");
  expectExactBudget(storedTrials(c.db()), 4);
  EXPECT_EQ(Store(c.db()).run(1)->status, RunStatus::Finished);
  c.signal("good", SIGHUP);
  ASSERT_EQ(c.wait("good", 30), 0) << c.logText("good");
  // The reference and tune's side-by-side rounds after the run are timings beside its trials.
  const std::string good = c.logText("good");
  EXPECT_NE(good.find("stopped after 4 trials"), std::string::npos) << good;
  EXPECT_NE(good.find("reference measurement"), std::string::npos) << good;
}

// Finding 2: a port another program listens on, and an address of no interface here, are said as
// such (exit 2) before anything claims to listen.
TEST(ClusterServe, APortInUseOrAForeignAddressIsSaidBeforeListening) {
  ClusterFixture c("port-in-use");
  const Listener other(false);
  ProcessResult r =
      runProcess(OPEVO_CLI, {"cluster", "serve", "--port", std::to_string(other.port()), "--dir",
                             (c.dir() / "a").string()});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("port " + std::to_string(other.port()) + " is in use"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.out.find("listening"), std::string::npos) << r.out;
  // TEST-NET-1 (RFC 5737): never an address of this machine.
  r = runProcess(OPEVO_CLI, {"cluster", "serve", "--bind", "192.0.2.1", "--port",
                             std::to_string(freePort()), "--dir", (c.dir() / "b").string()});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("not an address of this machine"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("listening"), std::string::npos) << r.out;
}

// Findings 2, 3 and 4: a second serve on the same dir is refused naming the first; SIGHUP (the
// terminal closed) stops serve and its redis-server; a serve killed with -9 takes its
// redis-server with it, and one that cannot (stopped) is named by the next serve; serving a Unix
// socket alone says so.
TEST(ClusterServe, OneServerPerDirAndNoneLeftBehind) {
  ClusterFixture c("one-per-dir");
  const fs::path dir = c.dir() / "served";
  const int port = freePort();
  auto serve = [&](const std::string& name, int p) {
    c.startSplit(
        name, {OPEVO_CLI, "cluster", "serve", "--port", std::to_string(p), "--dir", dir.string()});
    return waitFor(20,
                   [&] { return c.outText(name).find("cluster listening") != std::string::npos; });
  };
  ASSERT_TRUE(serve("first", port)) << c.outText("first") << c.logText("first");
  const long redis = pidAfter(c.outText("first"), "redis-server");
  ASSERT_GT(redis, 0) << c.outText("first");

  ProcessResult r = runRefusedServe({"--port", std::to_string(freePort()), "--dir", dir.string()});
  EXPECT_EQ(r.status, 2) << r.err << r.out;
  EXPECT_NE(r.err.find("is in use by another cluster (opevo pid " + std::to_string(c.pid("first"))),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out.find("listening"), std::string::npos) << r.out;

  c.signal("first", SIGHUP);
  EXPECT_EQ(c.wait("first", 30), 0) << c.logText("first");
  EXPECT_NE(c.outText("first").find("cluster stopped"), std::string::npos) << c.outText("first");
  EXPECT_FALSE(dirLocked(dir)) << "redis-server outlived serve after SIGHUP";

  ASSERT_TRUE(serve("second", port)) << c.outText("second") << c.logText("second");
  const long redis2 = pidAfter(c.outText("second"), "redis-server");
  c.killNow("second");
  // redis-server follows its serve (SIGTERM: it saves and exits), letting the dir and port go.
  EXPECT_TRUE(waitFor(20, [&] { return !dirLocked(dir); }))
      << "redis-server " << redis2 << " outlived a killed serve";

  ASSERT_TRUE(serve("third", port)) << c.outText("third") << c.logText("third");
  const long redis3 = pidAfter(c.outText("third"), "redis-server");
  ASSERT_GT(redis3, 0);
  LeftBehind leftBehind;  // the stopped redis-server, whatever fails from here on
  // It cannot act on its parent's death...
  ASSERT_TRUE(leftBehind.stop(static_cast<pid_t>(redis3))) << std::strerror(errno);
  ASSERT_TRUE(waitFor(10, [&] { return processStopped(redis3); }));
  // ...as long as it is not continued by the kernel when its parent dies (see adoptOrphans); then
  // it is our child, to be reaped below.
  ASSERT_TRUE(leftBehind.adoptOrphans()) << std::strerror(errno);
  c.killNow("third");
  leftBehind.stopAdopting();
  EXPECT_TRUE(processStopped(redis3)) << "redis-server " << redis3 << " runs again";
  r = runRefusedServe({"--port", std::to_string(port), "--dir", dir.string()});
  kill(static_cast<pid_t>(redis3), SIGCONT);  // ...until it runs again
  EXPECT_EQ(r.status, 2) << r.err << r.out;
  EXPECT_NE(r.err.find("a redis-server started from " + dir.string() + " is still running (pid " +
                       std::to_string(redis3) + ")"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("kill " + std::to_string(redis3)), std::string::npos) << r.err;
  bool timedOut = false;
  waitChild(static_cast<pid_t>(redis3), 20, &timedOut);  // it saves and exits on the SIGTERM
  EXPECT_FALSE(timedOut) << "redis-server " << redis3 << " did not end on its parent's death";
  EXPECT_TRUE(waitFor(20, [&] { return !dirLocked(dir); }));

  const fs::path socket = c.dir() / "only.sock";
  c.startSplit("unix", {OPEVO_CLI, "cluster", "serve", "--port", "0", "--unix-socket",
                        socket.string(), "--dir", dir.string()});
  ASSERT_TRUE(
      waitFor(20, [&] { return c.outText("unix").find("Ctrl-C stops it") != std::string::npos; }))
      << c.outText("unix") << c.logText("unix");
  const std::string out = c.outText("unix");
  EXPECT_NE(out.find("on the Unix socket " + socket.string() + " only"), std::string::npos) << out;
  EXPECT_EQ(out.find("bound to"), std::string::npos) << out;
  c.signal("unix", SIGTERM);
  EXPECT_EQ(c.wait("unix", 30), 0);
}

// A second serve that looks while the first has locked the dir but not yet written its pids into
// the lock file (which still names an earlier serve, gone) names the first as soon as it has, not
// "another process". The test is that first serve: it locks the dir as serve does (flock on
// serve.lock) and writes its pid only once the second has read the file and found the gone
// serve's (inotify tells when the file is read). Written after a fixed delay instead, a second
// serve slow to start (on a loaded machine) could read the pid at its first look and pass without
// ever reading it again.
TEST(ClusterServe, ASecondServeNamesAFirstThatHasNotWrittenItsPidsYet) {
  ClusterFixture c("pids-late");
  const fs::path dir = c.dir() / "served";
  fs::create_directories(dir);
  const pid_t gone = startChild({"true"});
  waitChild(gone);
  const fs::path lock = dir / "serve.lock";
  const int fd = open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0) << std::strerror(errno);
  const std::string before = "opevo " + std::to_string(gone) + "\n";
  ASSERT_EQ(pwrite(fd, before.data(), before.size(), 0), static_cast<ssize_t>(before.size()));
  ASSERT_EQ(flock(fd, LOCK_EX | LOCK_NB), 0) << std::strerror(errno);
  // Watched from here on, after the test's own write: every read it reports is the serve's.
  const int reads = inotify_init1(IN_CLOEXEC);
  ASSERT_GE(reads, 0) << std::strerror(errno);
  ASSERT_GE(inotify_add_watch(reads, lock.c_str(), IN_ACCESS), 0) << std::strerror(errno);
  int done[2];
  ASSERT_EQ(pipe2(done, O_CLOEXEC), 0) << std::strerror(errno);
  std::atomic<bool> readBefore{false};
  std::thread first([&] {
    // Until the serve has read the file, or has ended (done) without reading it.
    pollfd wait[2] = {{reads, POLLIN, 0}, {done[0], POLLIN, 0}};
    while (poll(wait, 2, -1) < 0 && errno == EINTR) {
    }
    if (!(wait[0].revents & POLLIN)) return;
    // It read what was there before (the event comes after the read): it has to look again.
    readBefore = true;
    const std::string text = "opevo " + std::to_string(getpid()) + "\n";
    if (ftruncate(fd, 0) == 0) {
      [[maybe_unused]] const ssize_t n = pwrite(fd, text.data(), text.size(), 0);
    }
  });
  const ProcessResult r =
      runRefusedServe({"--port", std::to_string(freePort()), "--dir", dir.string()});
  [[maybe_unused]] const ssize_t woken = write(done[1], "x", 1);
  first.join();
  close(done[0]);
  close(done[1]);
  close(reads);
  close(fd);
  EXPECT_TRUE(readBefore) << "the serve never read " << lock << ": " << r.err;
  EXPECT_EQ(r.status, 2) << r.err << r.out;
  EXPECT_NE(r.err.find("is in use by another cluster (opevo pid " + std::to_string(getpid())),
            std::string::npos)
      << r.err;
}

// Finding 5: something that is not Redis at the address, and a host that cannot be resolved, are
// said in those words, and an agent gives up on them at once (exit 2); a server that never answers
// is said to give no answer within the time waited.
TEST(ClusterAgent, AddressesThatCannotWorkAreSaidAndNotRetried) {
  ClusterFixture c("addresses");
  {
    const Listener web(true);
    c.start("web", {OPEVO_CLI, "agent", "--cluster", web.address(), "--backend",
                    "replay:" + kClusterDataset});
    EXPECT_EQ(c.wait("web", 30), 2) << c.logText("web");
    EXPECT_NE(c.logText("web").find("is not a Redis server"), std::string::npos)
        << c.logText("web");
    const ProcessResult r =
        runProcess(OPEVO_CLI, {"cluster", "status", "--cluster", web.address()});
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.err.find("is not a Redis server"), std::string::npos) << r.err;
  }
  addrinfo* found = nullptr;
  const int rv = getaddrinfo("nosuch.invalid", nullptr, nullptr, &found);
  if (found) freeaddrinfo(found);
  if (rv != EAI_AGAIN) {  // a machine without any resolver cannot tell
    c.start("nohost", {OPEVO_CLI, "agent", "--cluster", "nosuch.invalid:6391", "--backend",
                       "replay:" + kClusterDataset});
    EXPECT_EQ(c.wait("nohost", 30), 2) << c.logText("nohost");
    EXPECT_NE(c.logText("nohost").find("cannot resolve host 'nosuch.invalid'"), std::string::npos)
        << c.logText("nohost");
  }
  const Listener mute(false);
  const ProcessResult r = runProcess(OPEVO_CLI, {"cluster", "status", "--cluster", mute.address()});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("no answer from the cluster at " + mute.address() + " within 15 s"),
            std::string::npos)
      << r.err;
}

// Finding 7: a second live agent with a name already taken is refused, naming the first; an agent
// started again under its name after being killed takes its name back at once.
TEST(ClusterAgent, ASecondAgentOfTheSameNameIsRefused) {
  ClusterFixture c("twins");
  c.startAgent("twin", 0);
  ASSERT_TRUE(c.waitForAgents(1)) << c.logText("twin");
  const pid_t first = c.pid("twin");
  c.start("second", {OPEVO_CLI, "agent", "--cluster", c.address(), "--backend",
                     "replay:" + kClusterDataset, "--name", "twin"});
  EXPECT_EQ(c.wait("second", 30), 2) << c.logText("second");
  EXPECT_NE(c.logText("second").find("another live agent is registered as 'twin'"),
            std::string::npos)
      << c.logText("second");
  EXPECT_NE(c.logText("second").find("pid " + std::to_string(first)), std::string::npos)
      << c.logText("second");
  ASSERT_EQ(c.agents().size(), 1u);
  c.killNow("twin");
  c.start("third", {OPEVO_CLI, "agent", "--cluster", c.address(), "--backend",
                    "replay:" + kClusterDataset, "--name", "twin", "--heartbeat", "0.5"});
  EXPECT_TRUE(waitFor(20, [&] {
    for (const auto& a : c.agents())
      if (a.id == "twin" && a.pid == c.pid("third")) return true;
    return false;
  })) << c.logText("third");
  EXPECT_NE(c.logText("third").find("took over the id twin"), std::string::npos)
      << c.logText("third");
}

// Finding 6: a master waiting with no live agent says for one result "1 result", and names the
// backend to start an agent with.
TEST(ClusterMaster, WaitingWithNoAgentNamesTheBackend) {
  ClusterFixture c("no-agent");
  std::atomic<bool> cancel{false};
  std::mutex mutex;
  std::vector<std::string> notices;
  cluster::ClusterSessionOptions o;
  o.cancel = &cancel;
  o.waitNoticeSeconds = 0.3;
  o.notice = [&](const std::string& text) {
    std::lock_guard lock(mutex);
    notices.push_back(text);
    if (text.find("waiting for") != std::string::npos) cancel = true;
  };
  cluster::ClusterSession session(c.server().endpoint(), c.password(), o);
  session.measure("cpu:Nobody's CPU, 2 threads", {{"backend", "cpu"}}, {{}},
                  [](std::size_t, const cluster::TrialResult&) {});
  std::lock_guard lock(mutex);
  ASSERT_FALSE(notices.empty());
  EXPECT_NE(notices.back().find("waiting for 1 result, but no live agent serves cpu:Nobody's "
                                "CPU, 2 threads"),
            std::string::npos)
      << notices.back();
  EXPECT_NE(notices.back().find("--backend cpu"), std::string::npos) << notices.back();
}

// Finding 8: every master takes --password-file as serve, agent and status do.
TEST(ClusterMaster, MastersTakeAPasswordFile) {
  ClusterFixture c("password-file");
  c.startAgent("a1", 0);
  ASSERT_TRUE(c.waitForAgents(1)) << c.logText("a1");
  const fs::path file = c.dir() / "password";
  std::ofstream(file) << c.password() << "\n";
  // Readable by all: it works, with a warning naming the file and the fix.
  ::chmod(file.c_str(), 0644);
  unsetenv("OPEVO_CLUSTER_PASSWORD");
  const ProcessResult open = runProcess(
      OPEVO_CLI, {"cluster", "status", "--cluster", c.address(), "--password-file", file.string()});
  EXPECT_EQ(open.status, 0) << open.err;
  EXPECT_NE(open.err.find("warning: the password file " + file.string() +
                          " can be read by others than its owner (mode 0644): chmod 600 " +
                          file.string()),
            std::string::npos)
      << open.err;
  ::chmod(file.c_str(), 0600);
  const ProcessResult r = runProcess(
      OPEVO_CLI, {"tune", "--cluster", c.address(), "--password-file", file.string(), "--backend",
                  "replay:" + kClusterDataset, "--trials", "5", "--db", c.db(), "--json"});
  const ProcessResult alone =
      runProcess(OPEVO_CLI, {"tune", "--password-file", file.string(), "--backend",
                             "replay:" + kClusterDataset, "--trials", "5", "--db", c.db()});
  setenv("OPEVO_CLUSTER_PASSWORD", c.password().c_str(), 1);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
  expectExactBudget(storedTrials(c.db()), 5);
  EXPECT_EQ(alone.status, 2) << alone.err;
  EXPECT_NE(alone.err.find("--password-file needs --cluster"), std::string::npos) << alone.err;
  for (const std::vector<std::string>& help :
       {std::vector<std::string>{"compare", "--help"}, {"net", "tune", "--help"}}) {
    const ProcessResult h = runProcess(OPEVO_CLI, help);
    EXPECT_NE(h.out.find("--password-file"), std::string::npos) << help[0] << h.out;
  }
}

}  // namespace
}  // namespace opevo::test
