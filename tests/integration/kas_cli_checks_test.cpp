// opevo kas as a new user met it: options refused before anything is stored, figures that say
// which time is which, a baseline not trained yet, diverged and slower kernels in the report.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "run_process.h"
#include "store/store.h"

namespace opevo::test {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path path;
  TempDir() {
    char pattern[] = "/tmp/opevo-kas-cli-checks-XXXXXX";
    path = mkdtemp(pattern);
    setenv("XDG_CACHE_HOME", (path / "cache").c_str(), 1);
  }
  ~TempDir() { fs::remove_all(path); }
};

bool trainerBuilt() {
  return fs::exists(fs::path(OPEVO_CLI).parent_path() / "opevo-kas-train") &&
         fs::exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz");
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A sampled kernel file that groups (G > 1), and its G.
std::pair<std::string, std::int64_t> groupedKernel(const TempDir& dir) {
  const std::string out = (dir.path / "kernels").string();
  const ProcessResult r = runProcess(
      OPEVO_CLI, {"kas", "sample", "--count", "8", "--seed", "1", "--out", out, "--json"});
  EXPECT_EQ(r.status, 0) << r.err;
  const auto sampled = nlohmann::json::parse(r.out);
  for (const auto& k : sampled.at("kernels")) {
    const std::int64_t g = k.at("solution").at("groups");
    if (g > 1) return {out + "/kernel-" + k.at("hash").get<std::string>() + ".json", g};
  }
  ADD_FAILURE() << "no sampled kernel groups";
  return {};
}

TEST(KasCliChecks, ASearchRefusesEveryBadOptionBeforeItStoresOrTrainsAnything) {
  TempDir dir;
  const std::string db = (dir.path / "opevo.db").string();
  // A trainer that is not there: reaching the training would fail with another message.
  setenv("OPEVO_KAS_TRAIN", (dir.path / "no-trainer").c_str(), 1);
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--groups", "3"},
       "--groups 3 does not divide the channels of resnet18's replaced convolutions (1, 2, 4, 8, "
       "16, 32, 64 do)"},
      {{"--groups", "0"}, "--groups"},
      {{"--groups", "-4"}, "--groups"},
      {{"--algo", "nosuch"}, "unknown algorithm 'nosuch'"},
      {{"--threads", "0"}, "--threads"},
      {{"--threads", "-1"}, "--threads"},
      {{"--min-speedup", "-1"}, "--min-speedup"},
      {{"--data", "/nonexistent"}, "/nonexistent/train-images-idx3-ubyte.gz: not found"},
      {{"--batch", "100000"}, "--batch"},
      // Timed as `opevo tune` times: a minimum time no trial can finish within its limit.
      {{"--min-time-ms", "20000"},
       "--min-time-ms 20000 is not under the trial timeout of 20 s: no trial could time the runs "
       "asked"},
      {{"--timeout", "2", "--min-time-ms", "2000"}, "--min-time-ms 2000 is not under the trial"},
      {{"--slow-cutoff", "-1"}, "--slow-cutoff"},
  };
  for (const auto& [options, words] : cases) {
    std::vector<std::string> args = {"kas", "search", "--candidates", "1", "--db", db};
    args.insert(args.end(), options.begin(), options.end());
    const ProcessResult r = runProcess(OPEVO_CLI, args);
    EXPECT_EQ(r.status, 2) << options[0] << " " << options[1] << ": " << r.err;
    EXPECT_TRUE(has(r.err, words)) << r.err;
    EXPECT_FALSE(fs::exists(db)) << options[0] << " " << options[1] << " created the database";
  }
  // kas sample refuses --groups 3 with the same words.
  const ProcessResult sample = runProcess(OPEVO_CLI, {"kas", "sample", "--groups", "3"});
  EXPECT_TRUE(has(sample.err, cases[0].second)) << sample.err;
  unsetenv("OPEVO_KAS_TRAIN");
}

TEST(KasCliChecks, ResumingNoSearchIsRefusedWhateverTheId) {
  TempDir dir;
  const std::string db = (dir.path / "opevo.db").string();
  { Store store(db); }
  for (const char* id : {"0", "-1", "99"}) {
    const ProcessResult r = runProcess(OPEVO_CLI, {"kas", "search", "--resume", id, "--db", db});
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_TRUE(has(r.err, std::string("no kernel search ") + id + " in ")) << r.err;
  }
  EXPECT_TRUE(Store(db).kasSearches().empty());
}

TEST(KasCliChecks, ASampleWithNothingThatFitsFailsAsTheSearchDoes) {
  const ProcessResult r = runProcess(
      OPEVO_CLI, {"kas", "sample", "--flops", "0.001", "--params", "0.001", "--count", "3"});
  EXPECT_NE(r.status, 0);
  EXPECT_TRUE(has(r.err, "no kernel fits resnet18 and the backbone within the budget")) << r.err;
}

TEST(KasCliChecks, AKernelThatDoesNotFitSaysWhyInShares) {
  TempDir dir;
  const std::string conv = (dir.path / "conv3x3.json").string();
  std::ofstream(conv) << R"({"format": "opevo-kas-kernel", "version": 1, "nodes": [
      {"op": "input"}, {"op": "unfold", "input": 0, "dim": 1},
      {"op": "unfold", "input": 1, "dim": 3}, {"op": "fc", "input": 2}],
      "substitutions": {"x1": "C"}})";
  const ProcessResult r = runProcess(OPEVO_CLI, {"kas", "show", conv});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "already take 100% of the convolutions' FLOPs")) << r.err;
  EXPECT_TRUE(has(r.err, "over the budget of 50% and 50%")) << r.err;
  EXPECT_FALSE(has(r.err, "1.000000")) << r.err;

  const auto [file, g] = groupedKernel(dir);
  auto j = nlohmann::json::parse(std::ifstream(file));
  j["groups"] = 3;
  const std::string three = (dir.path / "g3.json").string();
  std::ofstream(three) << j.dump();
  const ProcessResult g3 = runProcess(OPEVO_CLI, {"kas", "show", three});
  EXPECT_EQ(g3.status, 2);
  EXPECT_TRUE(has(g3.err, "C/G is not a whole number")) << g3.err;
  EXPECT_TRUE(has(g3.err, "whatever the budget")) << g3.err;
  EXPECT_FALSE(has(g3.err, "within the budget")) << g3.err;

  const ProcessResult folder = runProcess(OPEVO_CLI, {"kas", "show", dir.path.string()});
  EXPECT_TRUE(has(folder.err, "is a directory")) << folder.err;
}

TEST(KasCliChecks, TrainRefusesWhatTheTrainerWouldBeforeStartingIt) {
  TempDir dir;
  setenv("OPEVO_KAS_TRAIN", (dir.path / "no-trainer").c_str(), 1);
  for (const std::vector<std::string>& options : {std::vector<std::string>{"--batch", "100000"},
                                                  {"--reference-curve", "90,95"},
                                                  {"--threads", "0"},
                                                  {"--threads", "-3"},
                                                  {"--data", "/nonexistent"}}) {
    std::vector<std::string> args = {"kas", "train", "--baseline"};
    args.insert(args.end(), options.begin(), options.end());
    const ProcessResult r = runProcess(OPEVO_CLI, args);
    EXPECT_EQ(r.status, 2) << options[0] << ": " << r.err;
    EXPECT_TRUE(has(r.err, options[0])) << r.err;
    EXPECT_FALSE(has(r.err, "no-trainer")) << r.err;
  }
  unsetenv("OPEVO_KAS_TRAIN");
}

// A stored search as a report reads it: built in a real database, the way kas search stores one.
class KasReportTest : public ::testing::Test {
 protected:
  TempDir m_dir;
  std::string m_db = (m_dir.path / "opevo.db").string();
  std::int64_t m_id = 0;

  void SetUp() override {
    Store store(m_db);
    KasSearchRecord r;
    r.network = "resnet18";
    r.settingsJson = R"({"candidates": 2})";
    r.status = RunStatus::Interrupted;
    m_id = store.createKasSearch(r);
  }
  ProcessResult report(bool json = false) {
    std::vector<std::string> args = {"kas", "report", std::to_string(m_id), "--db", m_db};
    if (json) args.push_back("--json");
    return runProcess(OPEVO_CLI, args);
  }
  KasCandidateRow trained(int seq, double kernelMs, double accuracy, bool diverged) {
    KasCandidateRow c;
    c.searchId = m_id;
    c.seq = seq;
    c.hash = "00000000000000a" + std::to_string(seq);
    c.stage = KasStage::Trained;
    c.kernelMs = kernelMs;
    c.convMs = 0.88;
    c.accuracy = accuracy;
    c.tuningJson = nlohmann::json::array({{{"layer", "layer1.0.conv1"},
                                           {"count", 4},
                                           {"ms", kernelMs / 4},
                                           {"best_trial_ms", kernelMs / 4 * 0.9},
                                           {"schedule", "tile_h=8"}}})
                       .dump();
    c.trainingJson = nlohmann::json{{"diverged", diverged}}.dump();
    return c;
  }
};

TEST_F(KasReportTest, ABaselineNotTrainedYetIsNoZeroPercent) {
  const ProcessResult list = runProcess(OPEVO_CLI, {"kas", "searches", "--db", m_db});
  EXPECT_EQ(list.status, 0) << list.err;
  EXPECT_FALSE(has(list.out, "0.00%")) << list.out;
  const ProcessResult r = report();
  EXPECT_TRUE(has(r.out, "accuracy not trained yet")) << r.out;
  EXPECT_TRUE(nlohmann::json::parse(report(true).out).at("baseline_accuracy").is_null());
}

TEST_F(KasReportTest, SlowerDivergedAndMoreAccurateKernelsAreSaidAsTheyAre) {
  {
    Store store(m_db);
    store.setKasSearchBaseline(m_id, R"({"accuracy": 0.17})");
    store.putKasCandidate(trained(1, 2.0, 0.3367, false));  // 0.44x: slower, 16 points above
    store.putKasCandidate(trained(2, 0.4, 0.10, true));     // diverged
  }
  const ProcessResult r = report();
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "at least as accurate as the baseline minus 1 point: #1")) << r.out;
  EXPECT_TRUE(has(r.out, "0.44x the convolutions' speed (slower)")) << r.out;
  EXPECT_FALSE(has(r.out, "within 1 point")) << r.out;
  EXPECT_FALSE(has(r.out, "10.00%")) << r.out;  // the diverged kernel's chance accuracy
  EXPECT_TRUE(has(r.out, "diverged")) << r.out;
  EXPECT_TRUE(has(r.out, "left off the front: #2 (training diverged")) << r.out;

  // Kernel ms is the sum of count x the chosen schedule's median over the layers listed.
  const auto j = nlohmann::json::parse(report(true).out);
  for (const auto& c : j.at("candidates")) {
    double sum = 0;
    for (const auto& l : c.at("layers")) {
      sum += l.at("count").get<double>() * l.at("ms").get<double>();
      EXPECT_LT(l.at("best_trial_ms").get<double>(), l.at("ms").get<double>());
    }
    EXPECT_NEAR(sum, c.at("kernel_ms").get<double>(), 1e-12);
  }
  EXPECT_TRUE(j.at("candidates").at(1).at("diverged").get<bool>());
  EXPECT_TRUE(has(r.out, "kernel ms per layer")) << r.out;
}

TEST(KasCliChecks, TuningProgressCountsTheStartScheduleAndNamesBothFigures) {
  TempDir dir;
  const auto [file, g] = groupedKernel(dir);
  const ProcessResult r = runProcess(OPEVO_CLI, {"kas", "tune", file, "--trials", "2"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto start = r.out.find("start schedule");
  ASSERT_NE(start, std::string::npos) << r.out;
  const double startMs =
      std::strtod(r.out.c_str() + r.out.find_first_of("0123456789", start + 14), nullptr);
  const auto first = r.err.find("trial 1: best trial ");
  ASSERT_NE(first, std::string::npos) << r.err;
  const double firstBest = std::strtod(r.err.c_str() + first + 20, nullptr);
  EXPECT_LE(firstBest, startMs) << r.err << r.out;
  EXPECT_TRUE(has(r.out, "best trial (")) << r.out;
  EXPECT_TRUE(has(r.out, "chosen schedule, median of its timings")) << r.out;
}

// kas tune takes `opevo tune`'s measuring options, and says how its trials were timed: with a
// cut-off of a thousandth of the fastest schedule (the start one, timed first), every trial is over
// it and timed by one run alone (the note KAS used to drop: a best read from one run, unsaid).
TEST(KasCliChecks, TuneTakesTheMeasuringOptionsAndCountsItsTrialsNotes) {
  TempDir dir;
  const auto [file, g] = groupedKernel(dir);
  const ProcessResult r =
      runProcess(OPEVO_CLI, {"kas", "tune", file, "--trials", "2", "--slow-cutoff", "0.001",
                             "--timeout", "5", "--min-time-ms", "20", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("trials"), 2);
  // A schedule given up on a loaded machine (the give-up limit is 1 s here) would add "1 timed
  // out": the count of those over the cut-off is what is certain.
  const std::string notes = j.at("notes");
  EXPECT_EQ(notes.rfind("of 2 trials: ", 0), 0u) << notes;
  EXPECT_TRUE(has(notes, " timed by one run alone (over the slow cut-off)")) << notes;
  EXPECT_GT(j.at("best_ms").get<double>(), 0.0);
  // The text says it under the figures.
  const ProcessResult text =
      runProcess(OPEVO_CLI, {"kas", "tune", file, "--trials", "1", "--slow-cutoff", "0.001"});
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_TRUE(has(text.out, "x\n  of 1 trial: 1 timed by one run alone (over the slow cut-off)"))
      << text.out;
}

TEST(KasCliChecks, TrainTakesTheFilesGroupCountAndPrintsEachEpoch) {
  if (!trainerBuilt()) GTEST_SKIP() << "opevo-kas-train or Fashion-MNIST missing";
  TempDir dir;
  const auto [file, g] = groupedKernel(dir);
  const ProcessResult r =
      runProcess(OPEVO_CLI, {"kas", "train", file, "--epochs", "1", "--train-images", "200",
                             "--test-images", "100", "--threads", "1"});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string at = "at G=" + std::to_string(g) + " (the file's, as sampled)";
  EXPECT_TRUE(has(r.out, at)) << r.out;
  EXPECT_TRUE(has(r.err, "epoch 1/1")) << r.err;
}

// A candidate killed while tuning: its header is printed again when the resume tunes it anew, and
// the time spent before the kill still counts.
TEST(KasCliChecks, AResumedCandidateGetsItsHeaderAndKeepsItsTuningTime) {
  if (!trainerBuilt()) GTEST_SKIP() << "opevo-kas-train or Fashion-MNIST missing";
  TempDir dir;
  const std::string db = (dir.path / "opevo.db").string();
  const std::vector<std::string> search = {
      "kas",
      "search",
      "--network",
      std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_conv_chain.json",
      "--candidates",
      "1",
      "--trials",
      "1",
      "--epochs",
      "1",
      "--train-images",
      "200",
      "--test-images",
      "100",
      "--threads",
      "1",
      "--seed",
      "3",
      "--db",
      db};
  const ProcessResult first = runProcess(OPEVO_CLI, search);
  ASSERT_EQ(first.status, 0) << first.err;
  std::string hash;
  {
    // As a kill -9 during its tuning leaves it: sampled, with the tuning time stored so far.
    Store store(db);
    KasCandidateRow c = store.kasCandidates(1).at(0);
    hash = c.hash;
    c.stage = KasStage::Sampled;
    c.kernelMs.reset();
    c.convMs.reset();
    c.accuracy.reset();
    c.tuneSeconds = 7;
    c.trainSeconds = 0;
    c.tuningJson.clear();
    c.trainingJson.clear();
    store.putKasCandidate(c);
    store.setKasSearchStatus(1, RunStatus::Interrupted);
  }
  const ProcessResult resumed =
      runProcess(OPEVO_CLI, {"kas", "search", "--resume", "1", "--db", db});
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_TRUE(has(resumed.err, "[1/1] " + hash + ": G=")) << resumed.err;
  EXPECT_TRUE(has(resumed.err, "(resumed: its tuning starts again)")) << resumed.err;
  EXPECT_GT(Store(db).kasCandidates(1).at(0).tuneSeconds, 7.0);
}

}  // namespace
}  // namespace opevo::test
