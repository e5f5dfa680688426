// The cluster's throughput and the master's cost per trial, on real parts: a redis-server with a
// password on a Unix socket, N opevo-agent processes replaying a dataset with a simulated
// measurement time, and this process as the master (engine, cluster measurer, SQLite store).
//
//   ./build/release/bin/bench_cluster [DATASET] [--delay-ms 50] [--trials 200] [--batch 8]
//
// Prints, for 1, 2 and 4 agents, trials per second and the speed-up over one agent; then, with
// no simulated delay, the round trip of one trial through one agent and the master's CPU time
// per trial (sending, gathering, committing to the store).
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "backends/backend_factory.h"
#include "cluster/agent_registry.h"
#include "cluster/cluster_session.h"
#include "cluster/redis_server.h"
#include "common/child_process.h"
#include "engine/engine.h"
#include "engine/store_recorder.h"
#include "store/store.h"

namespace {

namespace fs = std::filesystem;
using namespace opevo;

struct Figures {
  double wallSeconds = 0;
  double cpuSeconds = 0;  // this process: the master
  int trials = 0;
};

double cpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

class Bench {
 public:
  Bench(std::string dataset, fs::path dir) : m_dataset(std::move(dataset)), m_dir(std::move(dir)) {
    m_password = "bench-" + std::to_string(getpid());
    setenv("OPEVO_CLUSTER_PASSWORD", m_password.c_str(), 1);
    cluster::RedisServerOptions o;
    o.dir = (m_dir / "redis").string();
    o.port = 0;
    o.unixSocket = (m_dir / "redis.sock").string();
    o.password = m_password;
    m_server = std::make_unique<cluster::RedisServer>(o);
    m_session = std::make_shared<cluster::ClusterSession>(m_server->endpoint(), m_password);
    m_agentProgram = (fs::read_symlink("/proc/self/exe").parent_path() / "opevo-agent").string();
  }
  ~Bench() {
    stopAgents();
    m_session.reset();
    m_server.reset();
  }

  void startAgents(int n, int delayMs) {
    stopAgents();
    for (int i = 0; i < n; ++i)
      m_agents.push_back(
          startChild({m_agentProgram, "--cluster", m_server->endpoint().text(), "--backend",
                      "replay:" + m_dataset, "--delay-ms", std::to_string(delayMs), "--name",
                      "bench-" + std::to_string(i), "--quiet"}));
    while (static_cast<int>(m_session->agents().size()) < n) {
      for (pid_t& pid : m_agents)
        if (waitpid(pid, nullptr, WNOHANG) == pid) {
          pid = -1;
          throw std::runtime_error("an agent exited before it registered (its message is above)");
        }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  void stopAgents() {
    for (pid_t pid : m_agents)
      if (pid > 0) kill(pid, SIGTERM);
    for (pid_t pid : m_agents)
      if (pid > 0) waitChild(pid);
    m_agents.clear();
    // Their records go with them; wait so the next count is not fooled by a leaving one.
    while (!m_session->agents().empty()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }

  // One run of `trials` random configurations in batches of `batch`, committed to a fresh store.
  Figures run(int trials, std::size_t batch) {
    BackendOptions options;
    options.cluster = m_session;
    MeasurementSetup setup = makeMeasurement("replay:" + m_dataset, "", options);
    const std::string db = (m_dir / ("runs-" + std::to_string(++m_runs) + ".db")).string();
    Store store(db);
    Engine engine(*setup.space, *setup.measurer);
    StoreRecorder recorder(
        store, engine,
        {setup.operatorName, setup.operatorJson, setup.backend, setup.measurer->device(),
         setup.measurer->speedUnit(), setup.measurer->label()});
    RunPlan plan;
    plan.algorithm = "random";
    plan.seed = static_cast<std::uint64_t>(m_runs);
    plan.budget.trials = trials;
    plan.batch = batch;
    engine.addRun(plan);
    recorder.createRuns();
    engine.addObserver(recorder);
    const double cpu0 = cpuSeconds();
    const auto t0 = std::chrono::steady_clock::now();
    engine.run();
    Figures f;
    f.wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    f.cpuSeconds = cpuSeconds() - cpu0;
    f.trials = engine.runs().front().trials;
    return f;
  }

 private:
  std::string m_dataset;
  fs::path m_dir;
  std::string m_password;
  std::unique_ptr<cluster::RedisServer> m_server;
  std::shared_ptr<cluster::ClusterSession> m_session;
  std::string m_agentProgram;
  std::vector<pid_t> m_agents;
  int m_runs = 0;
};

}  // namespace

int main(int argc, char** argv) {
  // Run from the checkout (as docs/performance.md says), or name the file.
  std::string dataset = "resources/datasets/gemm/RTX_2080_Ti.json.gz";
  int delayMs = 50, trials = 200;
  std::size_t batch = 8;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--delay-ms" && i + 1 < argc)
      delayMs = std::atoi(argv[++i]);
    else if (a == "--trials" && i + 1 < argc)
      trials = std::atoi(argv[++i]);
    else if (a == "--batch" && i + 1 < argc)
      batch = static_cast<std::size_t>(std::atoi(argv[++i]));
    else
      dataset = a;
  }
  if (!fs::exists(dataset)) {
    std::fprintf(stderr, "bench_cluster: no dataset %s (run it from the checkout, or name one)\n",
                 dataset.c_str());
    return 2;
  }
  dataset = fs::absolute(dataset).string();  // the agents start elsewhere
  char pattern[] = "/tmp/opevo-bench-cluster-XXXXXX";
  const fs::path dir = mkdtemp(pattern);
  try {
    Bench bench(dataset, dir);
    std::printf("replay of %s, %d trials per run, batches of %zu, random search\n",
                fs::path(dataset).filename().c_str(), trials, batch);
    std::printf("\n%-7s %-9s %9s %12s %9s %11s\n", "agents", "delay", "wall s", "trials/s",
                "speed-up", "efficiency");
    double one = 0;
    for (int n : {1, 2, 4}) {
      bench.startAgents(n, delayMs);
      const Figures f = bench.run(trials, batch);
      const double rate = f.trials / f.wallSeconds;
      if (n == 1) one = rate;
      const double ideal = n * 1000.0 / delayMs;
      std::printf("%-7d %-9s %9.2f %12.1f %8.2fx %10.0f%%\n", n,
                  (std::to_string(delayMs) + " ms").c_str(), f.wallSeconds, rate, rate / one,
                  100 * rate / ideal);
    }
    bench.startAgents(1, 0);
    const Figures rt = bench.run(trials, 1);
    bench.startAgents(4, 0);
    const Figures master = bench.run(trials, batch);
    std::printf("\nround trip of one trial (1 agent, no delay, batches of 1): %.2f ms\n",
                1e3 * rt.wallSeconds / rt.trials);
    std::printf(
        "master CPU time per trial (4 agents, no delay, batches of %zu): %.3f ms "
        "(%.1f trials/s)\n",
        batch, 1e3 * master.cpuSeconds / master.trials, master.trials / master.wallSeconds);
    bench.stopAgents();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_cluster: %s\n", e.what());
    fs::remove_all(dir);
    return 1;
  }
  fs::remove_all(dir);
  return 0;
}
