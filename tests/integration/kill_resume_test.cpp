#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "common/child_process.h"
#include "common/rng.h"
#include "run_process.h"
#include "store/store.h"

namespace opevo {
namespace {

namespace fs = std::filesystem;

pid_t spawn(const std::vector<std::string>& args) {
  ChildStreams streams;
  streams.stdoutToNull = true;
  streams.stderrToNull = true;
  return startChild(args, streams);
}

std::vector<TrialRow> storedTrials(const std::string& db) {
  if (!fs::exists(db)) return {};
  Store store(db);
  const auto runs = store.runs();
  return runs.empty() ? std::vector<TrialRow>{} : store.trials(runs.front().id);
}

bool alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  return std::getline(stat, line) && line.find(") Z ") == std::string::npos;
}

// A worker whose engine died (SIGKILL, a crash, a time limit) exits within a second, even when
// nothing closes its stdin, as while the engine's request keeps it busy: it would otherwise go on
// timing a kernel, holding the CPU or the GPU (a C2 trial on the CPU went on for minutes). Here a
// shell starts the worker, its stdin from `sleep 20` (which stays open), and is killed.
TEST(KillAndResume, AnOrphanedWorkerExits) {
  char pattern[] = "/tmp/opevo-orphan-XXXXXX";
  const fs::path dir = mkdtemp(pattern);
  ChildStreams streams;
  streams.stdoutFile = (dir / "pid").string();
  const pid_t shell = startChild(
      {"/bin/sh", "-c", std::string("sleep 20 | '") + OPEVO_WORKER + "' & echo $!; wait"}, streams);
  pid_t worker = -1;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (worker <= 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::ifstream in(dir / "pid");
    in >> worker;
  }
  ASSERT_GT(worker, 0) << "the shell printed no worker pid";
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the worker is reading stdin
  ASSERT_TRUE(alive(worker));
  kill(shell, SIGKILL);
  waitpid(shell, nullptr, 0);
  const auto start = std::chrono::steady_clock::now();
  while (alive(worker) && std::chrono::steady_clock::now() - start < std::chrono::seconds(5))
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(alive(worker)) << "opevo-worker " << worker << " outlived its parent by 5 s";
  kill(-shell, SIGKILL);  // the shell's process group: the sleep, and the worker if it is left
  fs::remove_all(dir);
}

// A real `opevo tune --backend cpu` is killed with SIGKILL at five random moments and resumed
// each time; the run must end with exactly its budget of trials, no configuration twice, and
// every trial committed before a kill still there.
TEST(KillAndResume, FiveKillsLoseNothingAndEndOnBudget) {
  char pattern[] = "/tmp/opevo-kill-XXXXXX";
  const fs::path dir = mkdtemp(pattern);
  const std::string db = (dir / "runs.db").string();
  const fs::path op = dir / "small.json";
  std::ofstream(op)
      << R"({"name": "small", "kind": "matmul", "shape": {"n": 64, "m": 64, "k": 64}})";
  setenv("XDG_CACHE_HOME", (dir / "cache").c_str(), 1);
  const int budget = 40;
  const std::vector<std::string> common = {"--db", db, "--min-time-ms", "1", "--timeout", "20"};

  Rng rng(20261121);
  std::vector<TrialRow> before;
  int kills = 0;
  for (int attempt = 0; attempt < 6 && kills < 5; ++attempt) {
    std::vector<std::string> args = {OPEVO_CLI, "tune"};
    if (attempt == 0)
      args.insert(args.end(), {"--op", op.string(), "--backend", "cpu", "--algo", "opevo",
                               "--trials", std::to_string(budget), "--seed", "4"});
    else
      args.insert(args.end(), {"--resume", "1"});
    args.insert(args.end(), common.begin(), common.end());
    const pid_t pid = spawn(args);
    // Wait for at least one new committed trial, then a random extra moment.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    int status = 0;
    bool exited = false;
    while (std::chrono::steady_clock::now() < deadline) {
      if (waitpid(pid, &status, WNOHANG) == pid) {
        exited = true;
        break;
      }
      if (storedTrials(db).size() > before.size()) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (exited) break;  // it finished before we could kill it
    // A random moment soon after a commit, so the run is still going when it is killed.
    std::this_thread::sleep_for(std::chrono::milliseconds(rng.below(300)));
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    ++kills;
    const auto after = storedTrials(db);
    ASSERT_GE(after.size(), before.size());
    for (std::size_t i = 0; i < before.size(); ++i) {
      EXPECT_EQ(after[i].seq, before[i].seq);
      EXPECT_EQ(after[i].config, before[i].config);
    }
    before = after;
    if (static_cast<int>(before.size()) >= budget) break;
  }
  EXPECT_GE(kills, 3) << "the runs ended too quickly to be interrupted";

  // The last resume runs to the end of the budget, unless an attempt ran to its end before it
  // could be killed. Asked of the store, not of the trials seen: a kill can land after the last
  // trial's commit and before the run is marked finished (resuming then measures nothing and
  // ends it), and an attempt that finished on its own left `before` short.
  if (Store(db).run(1)->status != RunStatus::Finished) {
    std::vector<std::string> args = {OPEVO_CLI, "tune", "--resume", "1"};
    args.insert(args.end(), common.begin(), common.end());
    const pid_t pid = spawn(args);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }
  const auto trials = storedTrials(db);
  ASSERT_EQ(static_cast<int>(trials.size()), budget);
  std::set<std::string> configs;
  for (int i = 0; i < budget; ++i) {
    EXPECT_EQ(trials[i].seq, i + 1);
    configs.insert(trials[i].config);
  }
  EXPECT_EQ(static_cast<int>(configs.size()), budget) << "a configuration was measured twice";
  for (std::size_t i = 0; i < before.size(); ++i) EXPECT_EQ(trials[i].config, before[i].config);
  Store store(db);
  EXPECT_EQ(store.run(1)->status, RunStatus::Finished);
  fs::remove_all(dir);
}

// A run that one process tunes is not resumed by a second beside it (the second is refused at
// once, storing nothing, naming the process), and once the first is killed with SIGKILL the run
// resumes at once: the lock went with the process.
TEST(KillAndResume, ARunTunedElsewhereIsNotResumedBesideIt) {
  char pattern[] = "/tmp/opevo-held-XXXXXX";
  const fs::path dir = mkdtemp(pattern);
  const std::string db = (dir / "runs.db").string();
  setenv("XDG_CACHE_HOME", (dir / "cache").c_str(), 1);
  const pid_t first = spawn({OPEVO_CLI, "tune", "--op", "MM1", "--backend", "cpu", "--trials",
                             "100000", "--db", db, "--min-time-ms", "1"});
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (storedTrials(db).empty() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_FALSE(storedTrials(db).empty()) << "the first process stored no trial";

  // (Under `timeout`: were it not refused, it would tune on beside the first.)
  const auto refused =
      test::runProcess("timeout", {"60", OPEVO_CLI, "tune", "--resume", "1", "--db", db});
  EXPECT_EQ(refused.status, 2) << refused.err;
  EXPECT_NE(refused.err.find("run 1 of " + db + " is being tuned by another process (pid " +
                             std::to_string(first) + ")"),
            std::string::npos)
      << refused.err;
  EXPECT_EQ(Store(db).run(1)->status, RunStatus::Running) << "the refused resume touched it";
  // Listed as it stands: running while its process holds it...
  const auto listed = [&] {
    const auto r = test::runProcess(OPEVO_CLI, {"show", "1", "--db", db, "--json"});
    return nlohmann::json::parse(r.out)["run"]["status"].get<std::string>();
  };
  EXPECT_EQ(listed(), "running");

  kill(first, SIGKILL);
  waitpid(first, nullptr, 0);
  const std::size_t kept = storedTrials(db).size();
  // ...and interrupted once it died, though the store still says running (it once listed it
  // "running" for ever).
  EXPECT_EQ(Store(db).run(1)->status, RunStatus::Running);
  EXPECT_EQ(listed(), "interrupted");
  const auto shown = test::runProcess(OPEVO_CLI, {"show", "1", "--db", db});
  EXPECT_NE(shown.out.find("stored as running, but no process is tuning it"), std::string::npos)
      << shown.out;
  // The killed process's lock went with it: a resume now measures on.
  const pid_t second =
      spawn({OPEVO_CLI, "tune", "--resume", "1", "--db", db, "--min-time-ms", "1"});
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (storedTrials(db).size() <= kept && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_GT(storedTrials(db).size(), kept) << "the resume after the kill measured nothing";
  kill(second, SIGKILL);
  waitpid(second, nullptr, 0);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace opevo
