// What `opevo compare --out` leaves in its folder, and what --db stores: a rerun never replaces
// an earlier race's results unasked, a killed race leaves a file that says it is partial, and a
// stored race is the window's kind of race.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "common/child_process.h"
#include "run_process.h"
#include "store/store.h"

namespace opevo::test {
namespace {

namespace fs = std::filesystem;

const std::string kGemm = std::string(OPEVO_DATASETS_DIR) + "/gemm/RTX_2080_Ti.json.gz";

struct TempDir {
  fs::path path;
  TempDir() {
    char pattern[] = "/tmp/opevo-compare-results-XXXXXX";
    path = mkdtemp(pattern);
  }
  ~TempDir() { fs::remove_all(path); }
};

std::string fileText(const fs::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::size_t lines(const fs::path& path) {
  const std::string text = fileText(path);
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

ProcessResult compare(const fs::path& out, const std::string& trials,
                      std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"compare",      "--space",   kGemm,        "--algos",
                                "opevo,random", "--repeats", "2",          "--trials",
                                trials,         "--out",     out.string(), "--quiet"};
  args.insert(args.end(), extra.begin(), extra.end());
  return runProcess(OPEVO_CLI, args);
}

// A rerun into the same folder replaced a 1185-row trials.csv with an 11-row one, silently.
TEST(CliCompareResults, ARerunIntoTheSameFolderIsRefusedUnlessForced) {
  TempDir dir;
  const fs::path out = dir.path / "race";
  ASSERT_EQ(compare(out, "30").status, 0);
  ASSERT_EQ(lines(out / "trials.csv"), 1u + 2 * 2 * 30);
  const std::string summary = fileText(out / "summary.json");

  const ProcessResult again = compare(out, "5");
  EXPECT_NE(again.status, 0);
  for (const char* word : {"trials.csv", "summary.json", "--force", "already holds"})
    EXPECT_NE(again.err.find(word), std::string::npos) << word << " in: " << again.err;
  EXPECT_EQ(lines(out / "trials.csv"), 1u + 2 * 2 * 30) << "the earlier results were touched";
  EXPECT_EQ(fileText(out / "summary.json"), summary);

  // A forced command that is refused (a misspelt algorithm) leaves them too: --force removed them
  // before the names were checked.
  const ProcessResult misspelt =
      runProcess(OPEVO_CLI, {"compare", "--space", kGemm, "--algos", "randomm", "--trials", "5",
                             "--out", out.string(), "--force", "--quiet"});
  EXPECT_NE(misspelt.status, 0);
  EXPECT_EQ(fileText(out / "summary.json"), summary) << misspelt.err;

  const ProcessResult forced = compare(out, "5", {"--force"});
  ASSERT_EQ(forced.status, 0) << forced.err;
  EXPECT_EQ(lines(out / "trials.csv"), 1u + 2 * 2 * 5);
  EXPECT_FALSE(fs::exists(out / "trials.csv.partial"));
}

// kill -9 mid-race left a trials.csv and no summary.json, nothing saying the file was partial.
TEST(CliCompareResults, AKilledRaceLeavesOnlyAPartialTrialsFile) {
  TempDir dir;
  const fs::path out = dir.path / "race";
  const pid_t pid =
      startChild({OPEVO_CLI, "compare", "--space", kGemm, "--algos", "opevo,random", "--repeats",
                  "10", "--trials", "17956", "--out", out.string(), "--quiet"},
                 ChildStreams{});
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (lines(out / "trials.csv.partial") < 200 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  kill(pid, SIGKILL);
  waitChild(pid);
  EXPECT_GE(lines(out / "trials.csv.partial"), 200u);
  EXPECT_FALSE(fs::exists(out / "trials.csv"));
  EXPECT_FALSE(fs::exists(out / "summary.json"));
  // And the next race into it names the partial file it would replace.
  const ProcessResult again = compare(out, "5");
  EXPECT_NE(again.status, 0);
  EXPECT_NE(again.err.find("trials.csv.partial"), std::string::npos) << again.err;
}

// A --db that is not a database is refused before anything is written into --out: it left a
// trials.csv.partial there, and the next run into the folder was refused for "an earlier race's
// results" though no race had run.
TEST(CliCompareResults, ABadDatabaseLeavesNothingInTheResultsFolder) {
  TempDir dir;
  const fs::path out = dir.path / "race";
  const fs::path text = dir.path / "notes.db";
  std::ofstream(text) << "not a database\n";
  const ProcessResult refused = compare(out, "5", {"--db", text.string()});
  EXPECT_EQ(refused.status, 2);
  EXPECT_NE(refused.err.find("is not an SQLite file"), std::string::npos) << refused.err;
  EXPECT_FALSE(fs::exists(out / "trials.csv.partial"));
  const ProcessResult again = compare(out, "5", {"--db", (dir.path / "good.db").string()});
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(lines(out / "trials.csv"), 1u + 2 * 2 * 5);
}

// CLI races never appeared in History: --db stores each run as the window stores a replay race's,
// with its schedule, which a resume of the race goes on under.
TEST(CliCompareResults, DbStoresTheRaceAsTheWindowDoes) {
  TempDir dir;
  const std::string db = (dir.path / "runs.db").string();
  const ProcessResult r =
      compare(dir.path / "race", "20", {"--db", db, "--seed", "7", "--schedule", "shuffle"});
  ASSERT_EQ(r.status, 0) << r.err;
  Store store(db);
  const std::vector<RunRecord> runs = store.runs();
  ASSERT_EQ(runs.size(), 4u);
  std::set<std::pair<int, int>> places;
  std::map<long long, std::string> byOrder;  // the race's order -> its trial, from the store
  for (const RunRecord& run : runs) {
    EXPECT_NE(run.raceId, 0);
    EXPECT_EQ(run.raceId, runs.front().raceId);
    EXPECT_EQ(run.algorithm, run.raceAlgorithm == 0 ? "opevo" : "random");
    EXPECT_EQ(run.seed, 7u + static_cast<unsigned>(run.raceRepeat));
    EXPECT_EQ(run.raceSchedule, Schedule::Shuffle);
    EXPECT_EQ(run.raceScheduleSeed, 7u);
    EXPECT_EQ(run.backend, "replay");
    EXPECT_EQ(run.status, RunStatus::Finished);
    EXPECT_NE(run.budgetJson.find("20"), std::string::npos) << run.budgetJson;
    if (run.algorithm == "opevo") {  // every setting, as the window stores them
      EXPECT_NE(run.settingsJson.find("\"q\""), std::string::npos) << run.settingsJson;
      // An integer setting is stored as one (`show` printed "lambda":8.0).
      const nlohmann::json settings = nlohmann::json::parse(run.settingsJson);
      EXPECT_TRUE(settings["lambda"].is_number_integer()) << run.settingsJson;
      EXPECT_TRUE(settings["q"].is_number_float()) << run.settingsJson;
    }
    // The file by a path that holds from any folder, as the window's runs name it.
    EXPECT_NE(run.operatorJson.find(kGemm), std::string::npos) << run.operatorJson;
    places.insert({run.raceAlgorithm, run.raceRepeat});
    const std::vector<TrialRow> trials = store.trials(run.id);
    EXPECT_EQ(trials.size(), 20u);
    for (const TrialRow& t : trials) byOrder[t.order] = t.config;
  }
  EXPECT_EQ(places.size(), 4u);
  // The same trials in the same order as trials.csv's.
  ASSERT_EQ(byOrder.size(), 80u);
  EXPECT_EQ(byOrder.begin()->first, 1);
  EXPECT_EQ(byOrder.rbegin()->first, 80);
  // `opevo runs --json` says it with the race.
  const ProcessResult listed = runProcess(OPEVO_CLI, {"runs", "--json", "--db", db});
  ASSERT_EQ(listed.status, 0) << listed.err;
  const auto json = nlohmann::json::parse(listed.out);
  ASSERT_TRUE(json.is_array() && !json.empty()) << listed.out;
  EXPECT_EQ(json.front()["race"]["schedule"], "shuffle") << listed.out;
  EXPECT_EQ(json.front()["race"]["schedule_seed"], 7) << listed.out;
}

}  // namespace
}  // namespace opevo::test
