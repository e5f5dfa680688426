// A replay's --seconds is device time by the file (what its trials cost the device that measured
// it, as Kernel Tuner's simulation mode charges its time limit), not this machine's time, for
// `opevo compare` and `opevo tune`, and `opevo show`, `opevo runs` and `tune` say so where a run
// ended on it. The real programs on the RTX 2080 Ti GEMM cache (about 1.5 s a trial by the file).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "engine/device_time.h"
#include "run_process.h"
#include "store/store.h"

namespace opevo::test {
namespace {

namespace fs = std::filesystem;

const std::string kGemm = std::string(OPEVO_DATASETS_DIR) + "/gemm/RTX_2080_Ti.json.gz";

struct TempDir {
  fs::path path;
  TempDir() {
    char pattern[] = "/tmp/opevo-replay-budget-XXXXXX";
    path = mkdtemp(pattern);
  }
  ~TempDir() { fs::remove_all(path); }
};

// Each stored trial's run's device time once it is counted: compile_ms + measure_ms so far.
std::vector<double> deviceSeconds(const std::vector<TrialRow>& trials) {
  std::vector<double> out;
  double ms = 0;
  for (const TrialRow& t : trials) {
    ms += t.compileMs + t.measureMs;
    out.push_back(ms / 1e3);
  }
  return out;
}

// Ended on the trial whose device time reached the budget, not before and not later.
void expectEndedAt(const std::vector<double>& device, double budget) {
  ASSERT_GE(device.size(), 2u);
  EXPECT_GE(device.back(), budget);
  EXPECT_LT(device[device.size() - 2], budget);
}

TEST(CliReplayBudget, CompareSecondsIsEachRunsDeviceTimeByTheFile) {
  TempDir dir;
  const std::string db = (dir.path / "runs.db").string();
  const auto r = runProcess(
      OPEVO_CLI, {"compare", "--space", kGemm, "--algos", "random,opevo", "--repeats", "2",
                  "--seconds", "60", "--out", (dir.path / "out").string(), "--db", db, "--quiet"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\n2 repeats, 60 s (0.02 h) of device time by the file, seed 1 "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\n4 of 4 runs ended on their device time, after "), std::string::npos)
      << r.out;
  Store store(db);
  const std::vector<RunRecord> runs = store.runs();
  ASSERT_EQ(runs.size(), 4u);
  for (const RunRecord& run : runs) {
    EXPECT_EQ(run.endReason, EndReason::Time) << "run " << run.id;
    expectEndedAt(deviceSeconds(store.trials(run.id)), 60);
  }
  std::ifstream in(dir.path / "out" / "summary.json");
  std::stringstream text;
  text << in.rdbuf();
  const auto rows = nlohmann::json::parse(text.str());
  ASSERT_FALSE(rows.empty());
  EXPECT_TRUE(rows[0]["trials_per_run"].is_null()) << rows[0].dump();
  EXPECT_EQ(rows[0]["device_seconds_per_run"], 60.0);

  // With --trials too, whichever ends a run first; said so.
  const auto both = runProcess(
      OPEVO_CLI, {"compare", "--space", kGemm, "--algos", "random", "--repeats", "1", "--trials",
                  "10", "--seconds", "600", "--out", (dir.path / "both").string(), "--quiet"});
  ASSERT_EQ(both.status, 0) << both.err;
  EXPECT_NE(both.out.find("1 repeat, 10 trials or 600 s (0.17 h) of device time by the file, "
                          "whichever ends a run first"),
            std::string::npos)
      << both.out;
  EXPECT_NE(both.out.find("\n0 of 1 runs ended on their device time\n"), std::string::npos)
      << both.out;
}

// tune's --seconds on a replay, its resume to a larger total, and what show and runs say.
TEST(CliReplayBudget, TuneShowAndRunsSayDeviceTimeAndAResumeGoesOnFromIt) {
  TempDir dir;
  const std::string db = (dir.path / "runs.db").string();
  const auto tuned = runProcess(OPEVO_CLI, {"tune", "--backend", "replay:" + kGemm, "--algo",
                                            "random", "--seconds", "30", "--db", db});
  ASSERT_EQ(tuned.status, 0) << tuned.err;
  std::vector<double> device = deviceSeconds(Store(db).trials(1));
  expectEndedAt(device, 30);
  const std::string spent = deviceTimeText(device.back());
  EXPECT_NE(tuned.out.find(" trials (device time)\ndevice time: " + spent + " by the file"),
            std::string::npos)
      << tuned.out;

  const auto shown = runProcess(OPEVO_CLI, {"show", "1", "--db", db});
  ASSERT_EQ(shown.status, 0) << shown.err;
  EXPECT_NE(shown.out.find(", finished (device time)\n"), std::string::npos) << shown.out;
  EXPECT_NE(
      shown.out.find(
          "budget {\"clock\":\"device\",\"seconds\":30.0} (seconds of device time by the file)\n"),
      std::string::npos)
      << shown.out;
  EXPECT_NE(shown.out.find("\ndevice time: " + spent + " by the file"), std::string::npos)
      << shown.out;
  const auto listed = runProcess(OPEVO_CLI, {"runs", "--db", db});
  ASSERT_EQ(listed.status, 0) << listed.err;
  EXPECT_NE(listed.out.find("finished (device time)"), std::string::npos) << listed.out;

  // A new total the run has spent already, by the file, is refused in those words, nothing
  // measured or stored (it once passed against the few tuning seconds, and the run ended at once
  // with its budget lowered to 20).
  const auto spentAlready = runProcess(
      OPEVO_CLI, {"tune", "--resume", "1", "--seconds", "20", "--no-history", "--db", db});
  EXPECT_NE(spentAlready.status, 0);
  EXPECT_NE(spentAlready.err.find("run 1 has spent "), std::string::npos) << spentAlready.err;
  EXPECT_NE(spentAlready.err.find(" s of device time by the file already: --seconds is its new "
                                  "total, give more than that"),
            std::string::npos)
      << spentAlready.err;
  EXPECT_EQ(Store(db).trials(1).size(), device.size());
  EXPECT_EQ(Store(db).run(1)->budgetJson, "{\"clock\":\"device\",\"seconds\":30.0}");

  // A new total: the device clock goes on from the stored trials, to 60 s in all.
  const auto resumed = runProcess(
      OPEVO_CLI, {"tune", "--resume", "1", "--seconds", "60", "--no-history", "--db", db});
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  const std::size_t before = device.size();
  device = deviceSeconds(Store(db).trials(1));
  EXPECT_GT(device.size(), before);
  expectEndedAt(device, 60);
  EXPECT_EQ(Store(db).run(1)->endReason, EndReason::Time);
}

// A replay stored before budgets counted device time (its budget's seconds were tuning time):
// `opevo show` still says what its trials cost the device by the file, as the window charts it,
// and its budget is shown without the device-time note (it said nothing of the device before).
TEST(CliReplayBudget, ShowSaysTheDeviceTimeOfAReplayOnAnOldTuningTimeBudget) {
  TempDir dir;
  const std::string db = (dir.path / "runs.db").string();
  const auto tuned = runProcess(OPEVO_CLI, {"tune", "--backend", "replay:" + kGemm, "--algo",
                                            "random", "--trials", "6", "--db", db});
  ASSERT_EQ(tuned.status, 0) << tuned.err;
  Store(db).setRunBudget(1, "{\"seconds\":100.0,\"trials\":6}");
  const std::string spent = deviceTimeText(deviceSeconds(Store(db).trials(1)).back());
  const auto shown = runProcess(OPEVO_CLI, {"show", "1", "--db", db});
  ASSERT_EQ(shown.status, 0) << shown.err;
  EXPECT_NE(shown.out.find("budget {\"seconds\":100.0,\"trials\":6}\n"), std::string::npos)
      << shown.out;
  EXPECT_NE(shown.out.find("\ndevice time: " + spent + " by the file"), std::string::npos)
      << shown.out;
}

// A run measured on this machine says "time" as before: the CPU's tuning time is its budget.
TEST(CliReplayBudget, ACpuRunsTimeEndReadsTime) {
  TempDir dir;
  const std::string db = (dir.path / "runs.db").string();
  const std::string op = (dir.path / "mm32.json").string();
  std::ofstream(op)
      << R"({"name": "mm32", "kind": "matmul", "shape": {"n": 32, "m": 32, "k": 32}})";
  const auto tuned =
      runProcess(OPEVO_CLI, {"tune", "--backend", "cpu", "--op", op, "--algo", "random",
                             "--seconds", "2", "--side-by-side", "0", "--db", db});
  ASSERT_EQ(tuned.status, 0) << tuned.err;
  EXPECT_NE(tuned.out.find(" trials (time)\n"), std::string::npos) << tuned.out;
  EXPECT_EQ(tuned.out.find("device time"), std::string::npos) << tuned.out;
  const auto shown = runProcess(OPEVO_CLI, {"show", "1", "--db", db});
  EXPECT_NE(shown.out.find(", finished (time)\n"), std::string::npos) << shown.out;
  EXPECT_EQ(shown.out.find("device time"), std::string::npos) << shown.out;
}

}  // namespace
}  // namespace opevo::test
