#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>

#include "common/child_process.h"
#include "run_process.h"
#include "store/store.h"

// How the long commands stop: Ctrl-C, SIGTERM and SIGHUP each stop the work in hand cleanly and
// exit with 128 + the signal; a second Ctrl-C abandons a trial in hand at once.
namespace opevo::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

struct Dir {
  fs::path path;
  Dir() {
    char pattern[] = "/tmp/opevo-stop-XXXXXX";
    path = mkdtemp(pattern);
    setenv("XDG_CACHE_HOME", (path / "cache").c_str(), 1);
  }
  ~Dir() { fs::remove_all(path); }
  std::string file(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
    return (path / name).string();
  }
  std::string read(const std::string& name) const {
    std::ifstream in(path / name);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  std::string db() const { return (path / "runs.db").string(); }
  std::string matmul() const {
    return file("mm.json", R"({"name": "mm96", "kind": "matmul",
        "shape": {"n": 96, "m": 128, "k": 64}})");
  }
};

// A command started in the background, its stdout and stderr in dir's log.txt.
struct Logged {
  const Dir& dir;
  pid_t pid = 0;
  Logged(const Dir& d, const std::vector<std::string>& args) : dir(d) {
    ChildStreams streams;
    streams.stdoutFile = (dir.path / "log.txt").string();
    streams.stderrToStdout = true;
    pid = startChild(args, streams);
  }
  std::string text() const { return dir.read("log.txt"); }
  bool waitFor(const std::function<bool()>& done, std::chrono::seconds limit) const {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(20ms);
    }
    return true;
  }
  bool says(const std::string& what, std::chrono::seconds limit = 120s) const {
    return waitFor([&] { return text().find(what) != std::string::npos; }, limit);
  }
  // Its exit status (128 + a signal that killed it) if it ends within `limit`; else it is killed
  // and -1 returned.
  int exitWithin(std::chrono::seconds limit) const {
    int status = 0;
    const bool ended = waitFor([&] { return waitpid(pid, &status, WNOHANG) == pid; }, limit);
    if (!ended) {
      kill(pid, SIGKILL);
      waitChild(pid);
      return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
};

bool processGone(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  const auto close = line.rfind(')');
  return close != std::string::npos && line.size() > close + 2 && line[close + 2] == 'Z';
}

// A worker that never answers (it writes its pid and sleeps): the trial it is handed stays in
// hand until the program measuring it kills it.
struct SilentWorker {
  const Dir& dir;
  std::string pidFile = (dir.path / "worker.pid").string();
  std::string path =
      dir.file("worker.sh", "#!/bin/sh\necho $$ > " + pidFile + "\nexec sleep 600\n");
  explicit SilentWorker(const Dir& d) : dir(d) { chmod(path.c_str(), 0755); }
  ~SilentWorker() {
    // Left running by a test that failed.
    if (const pid_t pid = started(); pid > 0 && !processGone(pid)) kill(pid, SIGKILL);
  }
  std::string env() const { return "OPEVO_WORKER=" + path; }
  // Its pid once `run` has handed it a trial (within 120 s), else 0.
  pid_t handed(const Logged& run) const {
    run.waitFor([&] { return started() > 0; }, std::chrono::seconds(120));
    return started();
  }

 private:
  pid_t started() const {
    const std::string text = dir.read("worker.pid");
    return text.empty() ? 0 : std::stoi(text);
  }
};

// The user's walk: a trial that takes long (here a worker that never answers), Ctrl-C, nothing
// said for 20 s and a second Ctrl-C ignored. Now the first is acknowledged at once and the second
// kills the worker and exits: the trial in hand is not stored, the run reads interrupted with the
// trials it committed, and resumes.
TEST(CliStopSignals, ASecondCtrlCAbandonsTheTrialInHand) {
  Dir dir;
  const SilentWorker worker(dir);
  const Logged tune(
      dir, {"/usr/bin/env", worker.env(), OPEVO_CLI, "tune", "--op", dir.matmul(), "--backend",
            "cpu", "--trials", "10", "--db", dir.db(), "--timeout", "300", "--side-by-side", "0"});
  // The batch is built; its first trial is in the worker's hands.
  const pid_t workerPid = worker.handed(tune);
  ASSERT_GT(workerPid, 0) << tune.text();
  kill(tune.pid, SIGINT);
  EXPECT_TRUE(tune.says("stopping after the trial in hand (Ctrl-C again to abandon it)",
                        std::chrono::seconds(3)))
      << tune.text();
  kill(tune.pid, SIGINT);
  EXPECT_EQ(tune.exitWithin(10s), 130) << tune.text();
  EXPECT_NE(tune.text().find("the trial in hand was abandoned; resume with opevo tune --resume 1"),
            std::string::npos)
      << tune.text();
  EXPECT_TRUE(tune.waitFor([&] { return processGone(workerPid); }, 5s)) << "the worker runs on";
  Store store(dir.db());
  const auto run = store.run(1);
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->status, RunStatus::Interrupted);
  EXPECT_EQ(run->endReason, EndReason::Stopped);
  EXPECT_TRUE(store.trials(1).empty());  // the abandoned trial is no runtime fault of its config
}

// SIGTERM (a scheduler, kill) and SIGHUP (the terminal or ssh session closed) stop a run as
// Ctrl-C does, after the trial in hand, the run stored interrupted; the exit status names the
// signal. SIGHUP killed the program (the run left "running", the batch in hand lost) and SIGTERM
// exited 1.
TEST(CliStopSignals, SigtermAndSighupStopATuneWithTheirOwnStatus) {
  for (const auto& [signal, status] : {std::pair{SIGTERM, 143}, std::pair{SIGHUP, 129}}) {
    SCOPED_TRACE(signal);
    Dir dir;
    const Logged tune(
        dir, {OPEVO_CLI, "tune", "--op", dir.matmul(), "--backend", "cpu", "--trials", "100000",
              "--db", dir.db(), "--min-time-ms", "5", "--side-by-side", "0"});
    ASSERT_TRUE(tune.says("trial 2/")) << tune.text();
    kill(tune.pid, signal);
    EXPECT_EQ(tune.exitWithin(120s), status) << tune.text();
    EXPECT_NE(tune.text().find("is stored interrupted after "), std::string::npos) << tune.text();
    Store store(dir.db());
    const auto run = store.run(1);
    ASSERT_TRUE(run.has_value());
    EXPECT_EQ(run->status, RunStatus::Interrupted);
    EXPECT_EQ(run->endReason, EndReason::Stopped);
    EXPECT_GE(store.trials(1).size(), 2u);
  }
}

// A sweep stopped by SIGTERM exits 143, not Ctrl-C's 130.
TEST(CliStopSignals, SweepStoppedBySigtermExits143) {
  Dir dir;
  const std::string gemm = std::string(OPEVO_DATASETS_DIR) + "/gemm/RTX_2080_Ti.json.gz";
  const Logged sweep(dir,
                     {OPEVO_CLI, "sweep", "--space", gemm, "--algo", "opevo", "--set", "q=0.2,0.6",
                      "--repeats", "10", "--trials", "2000", "--out", (dir.path / "out").string()});
  ASSERT_TRUE(sweep.says("repeat 2 ")) << sweep.text();
  kill(sweep.pid, SIGTERM);
  EXPECT_EQ(sweep.exitWithin(120s), 143) << sweep.text();
  EXPECT_NE(sweep.text().find("interrupted: stopped after "), std::string::npos) << sweep.text();
}

// A replay answers configurations from the store by default: the end of the run says how many,
// as --json does, and the help says what that does to a comparison.
TEST(CliStopSignals, AReplaySaysHowManyTrialsTheStoreAnswered) {
  Dir dir;
  const std::string gemm = std::string(OPEVO_DATASETS_DIR) + "/gemm/RTX_2080_Ti.json.gz";
  // Without the warm start, the same seed proposes the same 30 configurations again.
  const std::vector<std::string> args = {"tune", "--backend", "replay:" + gemm, "--trials",
                                         "30",   "--db",      dir.db(),         "--no-warm-start"};
  ASSERT_EQ(runProcess(OPEVO_CLI, args).status, 0);
  const auto again = runProcess(OPEVO_CLI, args);
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_NE(again.out.find("answered from the store: 30 of its trials"), std::string::npos)
      << again.out;
  EXPECT_NE(again.err.find("measured by earlier runs in this database will be answered from the "
                           "store"),
            std::string::npos)
      << again.err;
  const auto help = runProcess(OPEVO_CLI, {"tune", "--help"});
  EXPECT_NE(help.out.find("depend on the database"), std::string::npos) << help.out;
}

// net tune checks its worker before it stores anything: it stored a network run and failed at
// its first trial, once per attempt.
TEST(CliStopSignals, NetTuneRefusesAMissingWorkerBeforeStoringARun) {
  Dir dir;
  const std::string network = std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_all_ops.json";
  const auto r = runProcess(
      "/usr/bin/env", {"OPEVO_WORKER=/nonexistent/opevo-worker", OPEVO_CLI, "net", "tune", network,
                       "--trials", "4", "--db", dir.db(), "--no-reference"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("OPEVO_WORKER is set to '/nonexistent/opevo-worker'"), std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir.db())) << "a database was made for a run that cannot measure";
}

// `opevo net compare` (no database: curve.csv and summary.json are all it leaves). It installed
// no handler: one Ctrl-C killed it with a partial curve.csv and no summary.json. Now the first
// signal stops every contender after its trials in hand and runs each end to end as tuned so far;
// the second ends it at once, curve.csv kept.
struct NetCompare {
  Dir dir;
  fs::path out = dir.path / "out";
  std::optional<Logged> run;
  // `env`: NAME=VALUE settings of the command's own.
  explicit NetCompare(const std::vector<std::string>& extra,
                      const std::vector<std::string>& env = {}) {
    std::vector<std::string> args{"/usr/bin/env"};
    args.insert(args.end(), env.begin(), env.end());
    for (const std::string& a :
         {std::string(OPEVO_CLI), std::string("net"), std::string("compare"),
          std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_all_ops.json", std::string("--algos"),
          std::string("random,opevo-m"), std::string("--schedulers"), std::string("round-robin"),
          std::string("--out"), out.string()})
      args.push_back(a);
    args.insert(args.end(), extra.begin(), extra.end());
    run.emplace(dir, args);
  }
  // summary.json, parsed; null when there is none.
  nlohmann::json summary() const {
    std::ifstream in(out / "summary.json");
    return in ? nlohmann::json::parse(in) : nlohmann::json();
  }
  // Lines of curve.csv, its header left out.
  int curveRows() const {
    std::ifstream in(out / "curve.csv");
    int rows = -1;
    for (std::string line; std::getline(in, line);) ++rows;
    return rows;
  }
};

TEST(CliStopSignals, NetCompareStoppedOnceRunsEachContenderAsTunedSoFar) {
  // No libtorch reference: what is tested is the stop, and opevo-torch is optional.
  NetCompare c({"--trials", "400", "--runs", "2", "--no-reference"});
  // Both contenders have run a unit each at least (units of 4 in turn).
  ASSERT_TRUE(c.run->says("opevo-m/round-robin/joint/r1")) << c.run->text();
  kill(c.run->pid, SIGINT);
  EXPECT_TRUE(c.run->says("stopping every contender after its trials in hand", 3s))
      << c.run->text();
  ASSERT_EQ(c.run->exitWithin(240s), 130) << c.run->text();
  EXPECT_NE(c.run->text().find("interrupted: stopped while tuning after "), std::string::npos)
      << c.run->text();
  EXPECT_NE(c.run->text().find("summary.json holds 2 of 2 contenders run end to end"),
            std::string::npos)
      << c.run->text();
  const nlohmann::json j = c.summary();
  ASSERT_FALSE(j.is_null()) << "no summary.json";
  EXPECT_EQ(j["stopped_early"], true);
  EXPECT_EQ(j["trials_per_contender"], 400);
  EXPECT_EQ(j["contenders"], 2);
  ASSERT_EQ(j["results"].size(), 2u);
  int trials = 0;
  for (const auto& r : j["results"]) {
    EXPECT_GE(r["trials"].get<int>(), 1);
    EXPECT_LT(r["trials"].get<int>(), 400);
    EXPECT_GT(r["end_to_end_ms"].get<double>(), 0) << r.dump();
    trials += r["trials"].get<int>();
  }
  // Every unit run is in curve.csv: at most 4 trials each.
  EXPECT_GE(c.curveRows() * 4, trials);
  EXPECT_GE(c.curveRows(), 2);
}

TEST(CliStopSignals, NetCompareStoppedTwiceEndsAtOnceWithItsCurveKept) {
  NetCompare c({"--trials", "400", "--runs", "2", "--no-reference"});
  ASSERT_TRUE(c.run->says("opevo-m/round-robin/joint/r1")) << c.run->text();
  kill(c.run->pid, SIGTERM);
  ASSERT_TRUE(c.run->says("stopping every contender", 3s)) << c.run->text();
  kill(c.run->pid, SIGTERM);
  EXPECT_EQ(c.run->exitWithin(10s), 143) << c.run->text();
  EXPECT_NE(c.run->text().find("curve.csv holds every unit tuned; no summary.json was written"),
            std::string::npos)
      << c.run->text();
  EXPECT_FALSE(fs::exists(c.out / "summary.json"));
  EXPECT_GE(c.curveRows(), 2);
}

// A trial that never ends (a worker that never answers): the first signal waits for it, the
// second kills the worker before the program ends. It ended with the worker left running.
TEST(CliStopSignals, NetCompareStoppedTwiceKillsTheWorkerInHand) {
  Dir dir;
  const SilentWorker worker(dir);
  NetCompare c({"--trials", "8", "--no-reference"}, {worker.env()});
  const pid_t workerPid = worker.handed(*c.run);
  ASSERT_GT(workerPid, 0) << c.run->text();
  kill(c.run->pid, SIGINT);
  ASSERT_TRUE(c.run->says("stopping every contender", 3s)) << c.run->text();
  kill(c.run->pid, SIGINT);
  EXPECT_EQ(c.run->exitWithin(10s), 130) << c.run->text();
  EXPECT_TRUE(c.run->waitFor([&] { return processGone(workerPid); }, 5s)) << "the worker runs on";
  EXPECT_FALSE(fs::exists(c.out / "summary.json"));
}

// net tune's second signal kills the workers measuring the trials in hand too, and the network
// run reads interrupted (no process holds it). The worker ran on.
TEST(CliStopSignals, NetTuneStoppedTwiceKillsTheWorkerInHand) {
  Dir dir;
  const SilentWorker worker(dir);
  const Logged tune(dir, {"/usr/bin/env", worker.env(), OPEVO_CLI, "net", "tune",
                          std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_all_ops.json",
                          "--trials", "8", "--db", dir.db(), "--no-reference"});
  const pid_t workerPid = worker.handed(tune);
  ASSERT_GT(workerPid, 0) << tune.text();
  kill(tune.pid, SIGINT);
  ASSERT_TRUE(tune.says("stopping after the trials in hand", 3s)) << tune.text();
  kill(tune.pid, SIGINT);
  EXPECT_EQ(tune.exitWithin(10s), 130) << tune.text();
  EXPECT_TRUE(tune.waitFor([&] { return processGone(workerPid); }, 5s)) << "the worker runs on";
  const auto runs = runProcess(OPEVO_CLI, {"net", "runs", "--db", dir.db(), "--json"});
  ASSERT_EQ(runs.status, 0) << runs.err;
  const nlohmann::json listed = nlohmann::json::parse(runs.out);
  ASSERT_EQ(listed.size(), 1u) << runs.out;
  EXPECT_EQ(listed[0]["status"], "interrupted") << runs.out;
}

// Stopped once the tuning is done, while the networks run end to end: the contenders not run yet
// are skipped and the summary holds those that were.
TEST(CliStopSignals, NetCompareStoppedDuringTheEndToEndRunsWritesTheContendersRun) {
  // Long end-to-end timings, so the signal finds the first contender running.
  NetCompare c({"--trials", "8", "--runs", "40000", "--no-reference"});
  ASSERT_TRUE(c.run->says("running each contender's network end to end", 240s)) << c.run->text();
  kill(c.run->pid, SIGHUP);
  EXPECT_TRUE(c.run->says("stopping after the run in hand", 3s)) << c.run->text();
  ASSERT_EQ(c.run->exitWithin(300s), 129) << c.run->text();
  EXPECT_NE(c.run->text().find("interrupted: stopped during the end-to-end runs; summary.json "
                               "holds 1 of 2 contenders run end to end and 0 of 1 untuned "
                               "networks\n"),
            std::string::npos)
      << c.run->text();
  const nlohmann::json j = c.summary();
  ASSERT_FALSE(j.is_null()) << "no summary.json";
  EXPECT_EQ(j["stopped_early"], true);
  // The first contender's run was in hand (the second's comes after 40000 passes of the first).
  EXPECT_EQ(j["results"].size(), 1u) << c.run->text();
  for (const auto& r : j["results"]) EXPECT_EQ(r["trials"], 8);
  EXPECT_EQ(c.curveRows(), 4);
}

}  // namespace
}  // namespace opevo::test
