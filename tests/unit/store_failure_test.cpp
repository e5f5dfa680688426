// Why a stored run failed (runs.failure, schema 10): `opevo runs`, `opevo show` and History said
// "failed" and no more.

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>

#include "engine/engine.h"
#include "engine/store_recorder.h"
#include "io/replay_dataset.h"
#include "replay/replay_measurer.h"
#include "sqlite_user_version.h"
#include "store/store.h"
#include "temp_dir.h"

namespace opevo {
namespace {

namespace fs = std::filesystem;

std::shared_ptr<const ReplayDataset> gemm() {
  static const auto dataset = std::make_shared<const ReplayDataset>(
      loadReplayDataset(std::string(OPEVO_DATASETS_DIR) + "/gemm/RTX_2080_Ti.json.gz"));
  return dataset;
}

// A replay whose device goes away after `working` configurations, as a GPU that falls off the
// bus: the engine's failure, not a trial's.
class LosesItsDevice final : public Measurer {
 public:
  explicit LosesItsDevice(int working) : m_replay(gemm()), m_left(working) {}
  std::string label() const override { return m_replay.label(); }
  bool isReplay() const override { return true; }
  std::string speedUnit() const override { return m_replay.speedUnit(); }
  std::vector<Measurement> measure(const std::vector<Config>& configs) override {
    m_left -= static_cast<int>(configs.size());
    if (m_left < 0) throw std::runtime_error("the device was lost (CUDA_ERROR_ILLEGAL_ADDRESS)");
    return m_replay.measure(configs);
  }

 private:
  ReplayMeasurer m_replay;
  int m_left;
};

RunPlan randomRun(int trials) {
  RunPlan plan;
  plan.algorithm = "random";
  plan.budget.trials = trials;
  plan.batch = 1;
  return plan;
}

using test::userVersion;

// A run whose measurer fails keeps the error that ended it; the run beside it in the race,
// stopped for it, says which failure stopped it; and one going on again (a resume) has none.
TEST(StoreFailure, AFailedRunKeepsItsErrorAndAResumeClearsIt) {
  const test::TempDir dir;
  const std::string path = dir.file("opevo.db");
  std::int64_t failed = 0, beside = 0;
  {
    Store store(path);
    LosesItsDevice measurer(3);
    Engine engine(gemm()->space, measurer);
    StoreRecorder recorder(store, engine, {"gemm", "{}", "replay", "", "GFLOP/s", ""});
    engine.addObserver(recorder);
    engine.addRun(randomRun(10));
    engine.addRun(randomRun(10));
    recorder.createRuns();
    engine.run();
    for (const RunState& r : engine.runs())
      (r.end == EndReason::Failed ? failed : beside) = r.storeId;
  }
  ASSERT_NE(failed, 0);
  ASSERT_NE(beside, 0);
  Store store(path, Store::Opening::ExistingOnly);
  const RunRecord run = *store.run(failed);
  EXPECT_EQ(run.status, RunStatus::Failed);
  EXPECT_EQ(run.failure, "the device was lost (CUDA_ERROR_ILLEGAL_ADDRESS)");
  const RunRecord other = *store.run(beside);
  EXPECT_EQ(other.status, RunStatus::Interrupted);
  EXPECT_NE(other.failure.find("stopped after run " + std::to_string(failed)), std::string::npos)
      << other.failure;
  EXPECT_NE(other.failure.find("the device was lost"), std::string::npos) << other.failure;
  store.setRunStatus(failed, RunStatus::Running);
  EXPECT_EQ(store.run(failed)->failure, "");
  // Listed with it too.
  store.setRunStatus(failed, RunStatus::Failed, EndReason::Failed, "again");
  for (const RunRecord& r : store.runs())
    EXPECT_EQ(r.failure, r.id == failed ? "again" : other.failure);
}

// tests/data/opevo-v9.db was written by the release before schema 10 (commit c050a9d): two replay
// runs on Kernel Tuner's GEMM cache of the RTX 2080 Ti (random, 3 trials; opevo, 4 trials), both
// finished.
TEST(StoreFailure, AVersion9DatabaseKeepsItsRunsWithNoFailureSaid) {
  const test::TempDir dir;
  const std::string path = dir.file("opevo.db");
  fs::copy_file(fs::path(OPEVO_SOURCE_DIR) / "tests" / "data" / "opevo-v9.db", path);
  ASSERT_EQ(userVersion(path), 9);
  Store store(path);
  EXPECT_EQ(userVersion(path), Store::kSchemaVersion);
  const std::vector<RunRecord> runs = store.runs();
  ASSERT_EQ(runs.size(), 2u);
  for (const RunRecord& r : runs) {
    EXPECT_EQ(r.status, RunStatus::Finished);
    EXPECT_EQ(r.failure, "");
  }
  EXPECT_EQ(store.trials(1).size(), 3u);
  EXPECT_EQ(store.trials(2).size(), 4u);
  store.setRunStatus(2, RunStatus::Failed, EndReason::Failed, "the disk is full");
  EXPECT_EQ(store.run(2)->failure, "the disk is full");
}

// Another program holds the database's write lock past the store's wait, and the run fails on it:
// the run's own end could not be written then, and it read as interrupted by a killed program,
// with no word of why. It is written once the lock is let go, as its program ends.
TEST(StoreFailure, AFailedRunsEndWrittenWhenALockHeldPastTheWaitIsLetGo) {
  const test::TempDir dir;
  const std::string path = dir.file("opevo.db");
  sqlite3* other = nullptr;
  std::int64_t id = 0;
  {
    Store store(path);
    ASSERT_EQ(sqlite3_open(path.c_str(), &other), SQLITE_OK);
    ReplayMeasurer measurer(gemm());
    Engine engine(gemm()->space, measurer);
    auto recorder = std::make_unique<StoreRecorder>(
        store, engine, RunContext{"gemm", "{}", "replay", "", "GFLOP/s", ""});
    engine.addObserver(*recorder);
    engine.addRun(randomRun(10));
    recorder->createRuns();
    id = engine.runs()[0].storeId;
    struct Lock : EngineObserver {
      sqlite3* db;
      explicit Lock(sqlite3* d) : db(d) {}
      void trialMeasured(const TrialEvent& e, const EngineProgress&) override {
        if (e.record.trial == 2) {
          EXPECT_EQ(sqlite3_exec(db, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
        }
      }
    } lock(other);
    engine.addObserver(lock);
    engine.run();
    ASSERT_EQ(engine.runs()[0].end, EndReason::Failed);
    EXPECT_EQ(sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr), SQLITE_OK);
    EXPECT_EQ(store.run(id)->status, RunStatus::Running) << "stored while the lock was held";
    recorder.reset();  // as the command or the window's race ends
    const RunRecord run = *store.run(id);
    EXPECT_EQ(run.status, RunStatus::Failed);
    EXPECT_EQ(run.endReason, EndReason::Failed);
    EXPECT_NE(run.failure.find("locked by another program"), std::string::npos) << run.failure;
    EXPECT_EQ(store.trials(id).size(), 2u);
  }
  sqlite3_close(other);
}

}  // namespace
}  // namespace opevo
