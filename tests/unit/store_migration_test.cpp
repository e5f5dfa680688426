#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "backends/stored_run.h"
#include "engine/engine.h"
#include "engine/store_recorder.h"
#include "sqlite_user_version.h"
#include "store/store.h"
#include "temp_dir.h"

namespace opevo {
namespace {

namespace fs = std::filesystem;

// tests/data/opevo-vN.db copied into dir, as the file a user of that release would open.
std::string copyOfTestDatabase(const test::TempDir& dir, int version) {
  const std::string path = dir.file("opevo.db");
  fs::copy_file(
      fs::path(OPEVO_SOURCE_DIR) / "tests" / "data" / ("opevo-v" + std::to_string(version) + ".db"),
      path);
  return path;
}

// tests/data/opevo-v1.db was written by the release before schema 2 (commit 643fa1a): `opevo tune`
// replay runs (run 1 finished, run 2 killed with kill -9 after 2750 of 4000 trials), a window race
// of opevo and random x 2 repeats on the A100 convolution (runs 3-6) and a window race on the CPU
// with the OpenBLAS reference (run 7), its bookkeeping in operator_json as v1 kept it.
struct MigratedCopy {
  fs::path dir;
  std::string path;
  fs::path cwd = fs::current_path();
  MigratedCopy() {
    char pattern[] = "/tmp/opevo-migrate-XXXXXX";
    dir = mkdtemp(pattern);
    path = (dir / "opevo.db").string();
    fs::copy_file(fs::path(OPEVO_SOURCE_DIR) / "tests" / "data" / "opevo-v1.db", path);
    // The replay runs name their dataset relative to the source tree, where they were made.
    fs::current_path(OPEVO_SOURCE_DIR);
  }
  ~MigratedCopy() {
    fs::current_path(cwd);
    fs::remove_all(dir);
  }
};

using test::userVersion;

TEST(StoreMigration, AVersion1DatabaseOpensWithItsRacesAsColumns) {
  MigratedCopy copy;
  ASSERT_EQ(userVersion(copy.path), 1);
  Store store(copy.path);
  EXPECT_EQ(userVersion(copy.path), Store::kSchemaVersion);
  const auto runs = store.runs();
  ASSERT_EQ(runs.size(), 7u);

  EXPECT_EQ(runs[0].status, RunStatus::Finished);
  EXPECT_EQ(runs[0].endReason, EndReason::None);  // v1 did not record why a run ended
  EXPECT_EQ(runs[0].raceId, 0);
  EXPECT_EQ(runs[1].status, RunStatus::Running);  // killed: still resumable
  EXPECT_EQ(store.trials(runs[1].id).size(), 2750u);

  // The window's race: one race id, algorithms in the order the race first ran them, repeats.
  const std::int64_t race = runs[2].raceId;
  EXPECT_NE(race, 0);
  for (int i = 2; i < 6; ++i) {
    EXPECT_EQ(runs[i].raceId, race);
    EXPECT_EQ(runs[i].raceAlgorithm, runs[i].algorithm == "opevo" ? 0 : 1);
    EXPECT_EQ(runs[i].raceRepeat, (i - 2) / 2);
    EXPECT_EQ(runs[i].label, "replay of A100.json.gz (NVIDIA A100-PCIE-40GB, real measurements)");
    EXPECT_EQ(runs[i].operatorJson,
              R"({"replay":"resources/datasets/convolution_milo/A100.json.gz"})");
  }
  EXPECT_EQ(store.raceRuns(race).size(), 4u);
  // v1 ran a race's runs one after another: orders follow on from run to run.
  EXPECT_EQ(store.trials(runs[3].id).front().order, 21);
  EXPECT_EQ(store.trials(runs[5].id).back().order, 80);
  EXPECT_EQ(store.lastOrder(runs[2]), 80);

  // The CPU race's reference line is a column now, and its operator is an operator again.
  EXPECT_NE(runs[6].raceId, race);
  EXPECT_EQ(runs[6].referenceLibrary, "OpenBLAS sgemm");
  ASSERT_TRUE(runs[6].referenceSpeed.has_value());
  // Through every step to schema 6, which moved it to the CPU's GFLOP/s (v1 kept 0.0883 TFLOPS
  // in operator_json, and its first trial at 0.0339).
  EXPECT_EQ(runs[6].speedUnit, "GFLOP/s");
  EXPECT_NEAR(*runs[6].referenceSpeed, 88.29700598802395, 1e-9);
  EXPECT_NEAR(store.trials(runs[6].id).front().speed, 33.8616044090631, 1e-9);
  for (const char* key : {"race", "repeat", "label", "reference"})
    EXPECT_EQ(runs[6].operatorJson.find(std::string("\"") + key + "\""), std::string::npos) << key;
  EXPECT_EQ(store.trials(runs[6].id).front().status, TrialStatus::Ok);
}

TEST(StoreMigration, AKilledVersion1RunResumesToItsBudget) {
  MigratedCopy copy;
  Store store(copy.path);
  ResumedRun r = resumeStoredRun(store, 2);
  EXPECT_EQ(r.restored.size(), 2750u);
  EXPECT_EQ(r.nextOrder, 2751);
  EngineOptions options;
  options.firstOrder = r.nextOrder;
  Engine engine(*r.setup.space, *r.setup.measurer, options);
  StoreRecorder recorder(store, engine, {});
  engine.addObserver(recorder);
  addResumedRun(engine, r);
  engine.run();
  EXPECT_TRUE(engine.failure().empty()) << engine.failure();

  const auto run = store.run(2);
  EXPECT_EQ(run->status, RunStatus::Finished);
  EXPECT_EQ(run->endReason, EndReason::Trials);
  const auto trials = store.trials(2);
  ASSERT_EQ(trials.size(), 4000u);
  std::set<std::string> configs;
  for (const TrialRow& t : trials)
    EXPECT_TRUE(configs.insert(t.config).second) << "measured twice: " << t.config;
  EXPECT_EQ(trials[2750].seq, 2751);
  EXPECT_EQ(trials[2750].order, 2751);
  EXPECT_EQ(trials.back().order, 4000);

  // Opened again, nothing migrates twice.
  Store again(copy.path);
  EXPECT_EQ(again.runs().size(), 7u);
}

// tests/data/opevo-v2.db was written by the release before schema 3 (commit 87b150e): a replay
// run of 30 trials and a CPU run of 3 trials on MM1, both finished.
TEST(StoreMigration, AVersion2DatabaseGainsTheNetworkTablesAndKeepsItsRuns) {
  const test::TempDir dir;
  const std::string path = copyOfTestDatabase(dir, 2);
  ASSERT_EQ(userVersion(path), 2);
  {
    Store store(path);
    EXPECT_EQ(userVersion(path), Store::kSchemaVersion);
    const auto runs = store.runs();
    ASSERT_EQ(runs.size(), 2u);
    EXPECT_EQ(runs[0].backend, "replay");
    EXPECT_EQ(store.trials(runs[0].id).size(), 30u);
    EXPECT_EQ(store.trials(runs[1].id).size(), 3u);
    EXPECT_TRUE(store.networks().empty());
    NetworkRecord n;
    n.name = "tiny";
    n.source = "tiny.json";
    n.networkJson = "{}";
    n.paramsJson = "{}";
    n.backend = "cpu";
    n.planJson = "{}";
    const std::int64_t id = store.createNetwork(n);
    store.setNetworkTaskRun(id, 0, runs[1].id);
    store.appendNetworkUnit(id, {1, 0, 3});
  }
  Store again(path);
  ASSERT_EQ(again.networks().size(), 1u);
  EXPECT_EQ(again.network(1)->taskRuns, std::vector<std::int64_t>{2});
  EXPECT_EQ(again.networkUnits(1).front().trials, 3);
}

// tests/data/opevo-v3.db was written by the release before schema 4 (commit 0562c8a): one replay
// run of 20 trials on Kernel Tuner's GEMM cache of the RTX 2080 Ti, finished.
TEST(StoreMigration, AVersion3DatabaseGainsTheKernelSearchTablesAndKeepsItsRun) {
  const test::TempDir dir;
  const std::string path = copyOfTestDatabase(dir, 3);
  ASSERT_EQ(userVersion(path), 3);
  {
    Store store(path);
    EXPECT_EQ(userVersion(path), Store::kSchemaVersion);
    const auto runs = store.runs();
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(store.trials(runs[0].id).size(), 20u);
    EXPECT_TRUE(store.kasSearches().empty());
    KasSearchRecord s;
    s.network = "resnet18";
    s.settingsJson = "{}";
    const std::int64_t id = store.createKasSearch(s);
    KasCandidateRow c;
    c.searchId = id;
    c.seq = 1;
    c.hash = "00ff";
    c.kernelJson = "{}";
    store.putKasCandidate(c);
  }
  Store again(path);
  ASSERT_EQ(again.kasSearches().size(), 1u);
  EXPECT_EQ(again.kasCandidates(1).front().hash, "00ff");
}

// tests/data/opevo-v4.db was written by the release before schema 5 (commit 2de224c): a replay
// run of 20 trials on Kernel Tuner's GEMM cache of the RTX 2080 Ti, and the H100's C2 run with
// opevo-m, seed 2 (300 trials), restored from its T4 file.
TEST(StoreMigration, AVersion4DatabaseGainsEachTrialsVerificationAndMeasurementTime) {
  const test::TempDir dir;
  const std::string path = copyOfTestDatabase(dir, 4);
  ASSERT_EQ(userVersion(path), 4);
  std::int64_t gpuRun = 0;
  {
    Store store(path);
    EXPECT_EQ(userVersion(path), Store::kSchemaVersion);
    const auto runs = store.runs();
    ASSERT_EQ(runs.size(), 2u);
    for (const RunRecord& r : runs)
      if (r.backend == "cuda") gpuRun = r.id;
    ASSERT_NE(gpuRun, 0);
    const auto trials = store.trials(gpuRun);
    ASSERT_EQ(trials.size(), 300u);
    // Kept as they were, with nothing measured for the new columns.
    EXPECT_EQ(trials.front().status, TrialStatus::Ok);
    EXPECT_FALSE(trials.front().timesMs.empty());
    EXPECT_EQ(trials.front().verifyMs, 0);
    EXPECT_EQ(trials.front().measureMs, 0);
    TrialRow t = trials.back();
    t.seq = 301;
    t.order = 301;
    t.verifyMs = 1.5;
    t.measureMs = 40.25;
    store.appendTrial(t);
  }
  Store again(path);
  const TrialRow last = again.trials(gpuRun).back();
  EXPECT_EQ(last.seq, 301);
  EXPECT_EQ(last.verifyMs, 1.5);
  EXPECT_EQ(last.measureMs, 40.25);
}

// tests/data/opevo-v5.db was written by the release before schema 6 (commit b999dd4): a replay run
// of autotvm, 20 trials on Kernel Tuner's GEMM cache of the RTX 2080 Ti (GFLOP/s), and a CPU run of
// MM1 with the default algorithm (4 trials in TFLOPS, OpenBLAS's reference 0.151 TFLOPS).
TEST(StoreMigration, AVersion5DatabaseGainsEachTrialsTunerTimeAndCpuRunsInGflops) {
  const test::TempDir dir;
  const std::string path = copyOfTestDatabase(dir, 5);
  ASSERT_EQ(userVersion(path), 5);
  {
    // A target budget too, as `tune --target 0.5` stored it then (in TFLOPS).
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db,
                           "UPDATE runs SET budget_json = '{\"trials\":4,\"target\":0.5}' "
                           "WHERE backend = 'cpu'",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
  }
  std::int64_t cpuRun = 0;
  {
    Store store(path);
    EXPECT_EQ(userVersion(path), Store::kSchemaVersion);
    const auto runs = store.runs();
    ASSERT_EQ(runs.size(), 2u);
    for (const RunRecord& r : runs) {
      if (r.backend == "cpu") {
        cpuRun = r.id;
        // The CPU's unit now, the whole run moved to it.
        EXPECT_EQ(r.speedUnit, "GFLOP/s");
        ASSERT_TRUE(r.referenceSpeed);
        EXPECT_NEAR(*r.referenceSpeed, 151.372936413437, 1e-9);
        EXPECT_EQ(nlohmann::json::parse(r.budgetJson)["target"].get<double>(), 500);
      } else {
        EXPECT_EQ(r.speedUnit, "GFLOP/s");  // a replay keeps its file's unit
        EXPECT_EQ(store.trials(r.id).size(), 20u);
      }
    }
    ASSERT_NE(cpuRun, 0);
    const auto trials = store.trials(cpuRun);
    ASSERT_EQ(trials.size(), 4u);
    EXPECT_NEAR(trials[2].speed, 6.88762262435026, 1e-9);
    EXPECT_GT(trials.front().measureMs, 0);  // kept as it was
    EXPECT_EQ(trials.front().tunerMs, 0);    // not measured then
    TrialRow t = trials.back();
    t.seq = 5;
    t.order = 5;
    t.tunerMs = 12.5;
    store.appendTrial(t);
  }
  Store again(path);
  EXPECT_EQ(again.trials(cpuRun).back().tunerMs, 12.5);
}

// tests/data/opevo-v6.db was written by the release before schema 7 (commit 4f70620): a CPU run of
// MM1 with the default algorithm (3 trials, seed 1, OpenBLAS's reference 38.4 GFLOP/s on a busy
// machine) and a replay run of random, 5 trials on Kernel Tuner's GEMM cache of the RTX 2080 Ti.
TEST(StoreMigration, AVersion6DatabaseGainsEachRunsSideBySideTiming) {
  const test::TempDir dir;
  const std::string path = copyOfTestDatabase(dir, 6);
  ASSERT_EQ(userVersion(path), 6);
  std::int64_t cpuRun = 0;
  {
    Store store(path);
    EXPECT_EQ(userVersion(path), Store::kSchemaVersion);
    const auto runs = store.runs();
    ASSERT_EQ(runs.size(), 2u);
    for (const RunRecord& r : runs) {
      EXPECT_TRUE(r.sideBySideJson.empty()) << "none was kept then";
      if (r.backend == "cpu") cpuRun = r.id;
    }
    ASSERT_NE(cpuRun, 0);
    EXPECT_EQ(store.trials(cpuRun).size(), 3u);
    ASSERT_TRUE(store.run(cpuRun)->referenceSpeed);
    EXPECT_NEAR(*store.run(cpuRun)->referenceSpeed, 38.3581317134498, 1e-9);
    store.setRunSideBySide(cpuRun, R"({"config":"x","ratio":0.5})");
  }
  Store again(path);
  EXPECT_EQ(again.run(cpuRun)->sideBySideJson, R"({"config":"x","ratio":0.5})");
}

// tests/data/opevo-v7.db was written by the release before schema 8 (commit e529fe1): replay runs
// on Kernel Tuner's GEMM cache of the RTX 2080 Ti, random (5 trials) then opevo (4 trials).
TEST(StoreMigration, AVersion7DatabaseKeepsItsRunsAndRemembersDeletedOnes) {
  const test::TempDir dir;
  const std::string path = copyOfTestDatabase(dir, 7);
  ASSERT_EQ(userVersion(path), 7);
  Store store(path);
  EXPECT_EQ(userVersion(path), Store::kSchemaVersion);
  const auto runs = store.runs();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(store.trials(1).size(), 5u);
  EXPECT_EQ(store.trials(2).size(), 4u);
  store.deleteRuns({2});
  RunRecord r = runs.front();
  EXPECT_EQ(store.createRun(r), 3) << "the deleted run's id was given again";
  EXPECT_NE(store.missingRunText(2).find("was deleted"), std::string::npos);
}

// tests/data/opevo-v8.db was written by the release before schema 9 (commit c0ca748): network run
// 1 (tests/data/net_dense_pair.json, 8 trials, task runs 1 and 2), then run 3, a replay run on
// Kernel Tuner's GEMM cache of the RTX 2080 Ti (random, 3 trials).
TEST(StoreMigration, AVersion8DatabaseKeepsItsNetworkRunAndRemembersADeletedOne) {
  const test::TempDir dir;
  const std::string path = copyOfTestDatabase(dir, 8);
  ASSERT_EQ(userVersion(path), 8);
  Store store(path);
  EXPECT_EQ(userVersion(path), Store::kSchemaVersion);
  ASSERT_EQ(store.networks().size(), 1u);
  const NetworkRecord network = *store.network(1);
  EXPECT_EQ(network.name, "dense_pair");
  EXPECT_EQ(network.taskRuns, (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(store.trials(1).size() + store.trials(2).size(), 8u);
  EXPECT_EQ(store.trials(3).size(), 3u);
  const std::vector<NetworkAndTrials> deleted = store.deleteNetworks({1});
  ASSERT_EQ(deleted.size(), 1u);
  EXPECT_EQ(deleted.front().trials, 8);
  EXPECT_EQ(store.runs().size(), 1u);
  NetworkRecord again = network;
  again.started.clear();
  EXPECT_EQ(store.createNetwork(again), 2) << "the deleted network run's id was given again";
  EXPECT_NE(store.missingNetworkText(1).find("was deleted"), std::string::npos);
}

// tests/data/opevo-v11.db was written by the release before schema 12 (commit 8059418): a window
// race (opevo-studio --start) on Kernel Tuner's GEMM cache of the RTX 2080 Ti, opevo and random,
// one repeat of 3 trials each, both finished. Its race ran round-robin, as every race did then.
TEST(StoreMigration, AVersion11DatabasesRaceReadsRoundRobinAndNewRacesKeepTheirSchedule) {
  const test::TempDir dir;
  const std::string path = copyOfTestDatabase(dir, 11);
  ASSERT_EQ(userVersion(path), 11);
  Store store(path);
  EXPECT_EQ(userVersion(path), Store::kSchemaVersion);
  const std::vector<RunRecord> runs = store.runs();
  ASSERT_EQ(runs.size(), 2u);
  for (const RunRecord& r : runs) {
    EXPECT_EQ(r.raceId, 1);
    EXPECT_EQ(r.raceSchedule, Schedule::RoundRobin);
    EXPECT_EQ(r.raceScheduleSeed, 1u);
    EXPECT_EQ(store.trials(r.id).size(), 3u);
  }
  // A new race keeps its schedule and seed, which its runs read back wherever they are read.
  const std::int64_t race = store.createRace(Schedule::Shuffle, 42);
  RunRecord r = runs.front();
  r.raceId = race;
  const std::int64_t id = store.createRun(r);
  for (const RunRecord& read :
       {*store.run(id), store.raceRuns(race).front(), store.runs().back()}) {
    EXPECT_EQ(read.raceSchedule, Schedule::Shuffle);
    EXPECT_EQ(read.raceScheduleSeed, 42u);
  }
  // A run of its own has no race: round-robin, as a lone run needs no turns.
  r.raceId = 0;
  EXPECT_EQ(store.run(store.createRun(r))->raceSchedule, Schedule::RoundRobin);
}

}  // namespace
}  // namespace opevo
