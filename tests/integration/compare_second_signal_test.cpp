// `opevo compare --db` stopped twice while a step takes long: the first signal asks the race to
// stop after the trials in hand, the second abandons the step in hand (InterruptNotice's abandon,
// storeAbandonedRunsStopped). What a user must see: the program ends at once with 128 + the
// signal and says its stored runs read stopped, the database holds every trial the race reported
// and nothing of the abandoned step, each run reads interrupted (stopped), and a resume goes on
// from the stored trials. Without the abandon the second signal ends the program at once all the
// same, saying the same, but leaves every stored run reading "running" with no process tuning it.
//
// `opevo net compare` takes no --db: it has no runs to abandon, and its second signal ends it at
// once (CliStopSignals.NetCompareStoppedTwice...).
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

#include "common/child_process.h"
#include "engine/run_status.h"
#include "run_process.h"
#include "store/store.h"

namespace opevo::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

const std::string kGemm = std::string(OPEVO_DATASETS_DIR) + "/gemm/RTX_2080_Ti.json.gz";

// Trials of each run's first batch. autotvm's first plan of this size is random; its second is
// annealed on the model, for a million steps of 1024 chains here: a step that outlasts the test by
// hours, as a cost model's step on a large space can outlast a user's patience.
constexpr int kBatch = 8;

std::string fileText(const fs::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// (race order, configuration) of each trial in a trials CSV, and how many each algorithm has.
struct CsvTrials {
  std::set<std::pair<long long, std::string>> trials;
  std::map<std::string, int> perAlgorithm;
};

CsvTrials csvTrials(const fs::path& path) {
  CsvTrials t;
  std::istringstream in(fileText(path));
  std::string line;
  std::getline(in, line);  // header: order,run,algorithm,repeat,seed,trial,config,...
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::istringstream row(line);
    for (std::string field; fields.size() < 7 && std::getline(row, field, ',');)
      fields.push_back(field);
    if (fields.size() < 7) continue;  // a line still being written
    t.trials.insert({std::stoll(fields[0]), fields[6]});
    ++t.perAlgorithm[fields[2]];
  }
  return t;
}

bool waitFor(const std::function<bool()>& done, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(20ms);
  }
  return true;
}

// A race of autotvm and random, one repeat each, stored in dir's runs.db, its output in log.txt.
// Killed when the test ends with it still running (a failed expectation must not leave an
// annealing process behind).
struct Race {
  fs::path dir;
  fs::path out;
  std::string db;
  pid_t pid = 0;
  bool reaped = false;

  Race() {
    char pattern[] = "/tmp/opevo-second-signal-XXXXXX";
    dir = mkdtemp(pattern);
    out = dir / "race";
    db = (dir / "runs.db").string();
    ChildStreams streams;
    streams.stdoutFile = (dir / "log.txt").string();
    streams.stderrToStdout = true;
    pid = startChild({OPEVO_CLI,   "compare",
                      "--space",   kGemm,
                      "--algos",   "autotvm,random",
                      "--repeats", "1",
                      "--trials",  "100",
                      "--batch",   std::to_string(kBatch),
                      "--set",     "autotvm.plan_size=" + std::to_string(kBatch),
                      "--set",     "autotvm.sa_chains=1024",
                      "--set",     "autotvm.sa_iterations=1000000",
                      "--set",     "autotvm.sa_early_stop=1000000",
                      "--out",     out.string(),
                      "--db",      db},
                     streams);
  }
  ~Race() {
    if (!reaped) {
      kill(pid, SIGKILL);
      waitChild(pid);
    }
    fs::remove_all(dir);
  }
  std::string log() const { return fileText(dir / "log.txt"); }
  bool says(const std::string& text, std::chrono::milliseconds limit) const {
    return waitFor([&] { return log().find(text) != std::string::npos; }, limit);
  }
  bool running() const { return !reaped && waitpid(pid, nullptr, WNOHANG) == 0; }
  // Its exit status (128 + the signal that killed it) if it ends within `limit`; -1 otherwise (it
  // is killed then).
  int exitWithin(std::chrono::milliseconds limit) {
    int status = 0;
    const bool ended = waitFor([&] { return waitpid(pid, &status, WNOHANG) == pid; }, limit);
    reaped = true;
    if (!ended) {
      kill(pid, SIGKILL);
      waitChild(pid);
      return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
};

// Starts the race, waits until both runs measured their first batch (autotvm's second step is
// then annealing), signals it twice and checks what the user sees and what is stored.
void stopTwice(Race& race, int signal, int exitStatus) {
  const fs::path partial = race.out / "trials.csv.partial";
  ASSERT_TRUE(waitFor([&] { return csvTrials(partial).trials.size() == 2u * kBatch; }, 60s))
      << race.log();
  // The engine is past the random run's last commit and into autotvm's annealing well within this.
  std::this_thread::sleep_for(500ms);

  kill(race.pid, signal);
  EXPECT_TRUE(race.says(
      "opevo: stopping after the trials in hand, then writing the summary (Ctrl-C again to end "
      "now)",
      5s))
      << race.log();
  // The step in hand outlasts the first signal: what follows is the second signal's doing.
  std::this_thread::sleep_for(300ms);
  ASSERT_TRUE(race.running()) << "the race ended on the first signal:\n" << race.log();

  const auto sent = std::chrono::steady_clock::now();
  kill(race.pid, signal);
  EXPECT_EQ(race.exitWithin(10s), exitStatus) << race.log();
  const auto took = std::chrono::steady_clock::now() - sent;
  EXPECT_LT(took, 5s) << "the second signal took "
                      << std::chrono::duration_cast<std::chrono::milliseconds>(took).count()
                      << " ms to end the race";
  EXPECT_NE(race.log().find("opevo: interrupted: the race was stopped; " + partial.string() +
                            " holds every trial run; its stored runs read stopped (resumable)"),
            std::string::npos)
      << race.log();
  // Abandoned, not finished: no summary was written and the trials file still says partial.
  EXPECT_FALSE(fs::exists(race.out / "summary.json"));
  EXPECT_FALSE(fs::exists(race.out / "trials.csv"));

  Store store(race.db);
  const std::vector<RunRecord> runs = store.runs();
  ASSERT_EQ(runs.size(), 2u);
  std::set<std::pair<long long, std::string>> stored;
  for (const RunRecord& run : runs) {
    SCOPED_TRACE(run.algorithm);
    EXPECT_EQ(runStatusName(run.status), runStatusName(RunStatus::Interrupted));
    EXPECT_EQ(endReasonName(run.endReason), endReasonName(EndReason::Stopped));
    const std::vector<TrialRow> trials = store.trials(run.id);
    // autotvm's abandoned step stored nothing; each run keeps its first batch.
    EXPECT_EQ(trials.size(), static_cast<std::size_t>(kBatch));
    for (const TrialRow& t : trials) stored.insert({t.order, t.config});
  }
  // Every trial the race reported is stored, and nothing else.
  const CsvTrials reported = csvTrials(partial);
  EXPECT_EQ(stored, reported.trials);
  EXPECT_EQ(reported.perAlgorithm.at("autotvm"), kBatch);
  EXPECT_EQ(reported.perAlgorithm.at("random"), kBatch);
}

TEST(CompareSecondSignal, ASecondCtrlCAbandonsTheStepAndLeavesTheRunsResumable) {
  Race race;
  stopTwice(race, SIGINT, 130);
  if (HasFatalFailure()) return;

  // The random run resumes from its stored trials (autotvm's would anneal again) and finishes.
  Store store(race.db);
  std::int64_t randomRun = 0;
  for (const RunRecord& run : store.runs())
    if (run.algorithm == "random") randomRun = run.id;
  ASSERT_NE(randomRun, 0);
  const std::vector<TrialRow> before = store.trials(randomRun);
  const ProcessResult resumed =
      runProcess(OPEVO_CLI, {"tune", "--resume", std::to_string(randomRun), "--db", race.db,
                             "--trials", std::to_string(kBatch + 4)});
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("resuming after " + std::to_string(kBatch) + " stored trials"),
            std::string::npos)
      << resumed.err;
  const std::optional<RunRecord> run = store.run(randomRun);
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(runStatusName(run->status), runStatusName(RunStatus::Finished));
  const std::vector<TrialRow> after = store.trials(randomRun);
  ASSERT_EQ(after.size(), static_cast<std::size_t>(kBatch + 4));
  for (std::size_t i = 0; i < before.size(); ++i) EXPECT_EQ(after[i].config, before[i].config);
}

// SIGTERM twice (a scheduler's stop, then its kill): the same, with SIGTERM's status.
TEST(CompareSecondSignal, ASecondSigtermAbandonsTheStepWithItsOwnStatus) {
  Race race;
  stopTwice(race, SIGTERM, 143);
}

}  // namespace
}  // namespace opevo::test
