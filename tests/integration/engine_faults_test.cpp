#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "backends/backend_factory.h"
#include "backends/stored_run.h"
#include "engine/engine.h"
#include "engine/store_recorder.h"
#include "store/store.h"

namespace opevo {
namespace {

namespace fs = std::filesystem;

// Faults met by a real CPU run: kernels compiled by the system compiler on two threads, verified
// and timed in opevo-worker, each trial committed to a real SQLite file.
struct CpuRun {
  fs::path dir;
  std::string db;
  std::string op;
  BackendOptions options;
  explicit CpuRun(int n) {
    char pattern[] = "/tmp/opevo-faults-XXXXXX";
    dir = mkdtemp(pattern);
    db = (dir / "opevo.db").string();
    op = (dir / "mm.json").string();
    std::ofstream(op) << R"({"name": "mm)" << n << R"(", "kind": "matmul", "shape": {"n": )" << n
                      << R"(, "m": )" << n << R"(, "k": )" << n << "}}";
    options.cpu.workerPath = OPEVO_WORKER;
    options.cpu.cacheDir = (dir / "kernels").string();  // every kernel really compiled
    options.cpu.timing.minTotalMs = 1;
  }
  ~CpuRun() { fs::remove_all(dir); }
};

RunContext contextOf(const MeasurementSetup& setup) {
  return {setup.operatorName,       setup.operatorJson,          setup.backend,
          setup.measurer->device(), setup.measurer->speedUnit(), setup.measurer->label()};
}

RunPlan randomRun(int trials) {
  RunPlan plan;
  plan.algorithm = "random";
  plan.budget.trials = trials;
  return plan;
}

void expectNoConfigTwice(const std::vector<TrialRow>& trials) {
  std::set<std::string> seen;
  for (const TrialRow& t : trials)
    EXPECT_TRUE(seen.insert(t.config).second) << "measured twice: " << t.config;
}

// Resumes a stored run as the CLI and the window do, and checks it reaches its budget without
// measuring any configuration twice.
void resumeToTheEnd(Store& store, std::int64_t runId, const BackendOptions& backend, int budget) {
  ResumedRun r = resumeStoredRun(store, runId, backend);
  EngineOptions options;
  options.firstOrder = r.nextOrder;
  Engine engine(*r.setup.space, *r.setup.measurer, options);
  StoreRecorder recorder(store, engine, {});
  engine.addObserver(recorder);
  addResumedRun(engine, r);
  engine.run();
  EXPECT_TRUE(engine.failure().empty()) << engine.failure();
  EXPECT_EQ(store.run(runId)->status, RunStatus::Finished);
  const auto trials = store.trials(runId);
  EXPECT_EQ(trials.size(), std::size_t(budget));
  expectNoConfigTwice(trials);
}

// The database fills up (a real SQLite file capped with max_page_count) while kernels are being
// compiled and timed: the run stops with a message naming the full disk, every committed trial
// stays, the compile threads and the worker are let go, and the run resumes to its budget.
TEST(EngineFaults, AFullDatabaseMidRunStopsCleanlyAndTheRunResumes) {
  CpuRun cpu(32);
  const int budget = 40;
  std::int64_t runId = 0;
  std::size_t committed = 0;
  {
    Store store(cpu.db);
    MeasurementSetup setup = makeMeasurement("cpu", cpu.op, cpu.options);
    Engine engine(*setup.space, *setup.measurer);
    StoreRecorder recorder(store, engine, contextOf(setup));
    engine.addObserver(recorder);
    engine.addRun(randomRun(budget));
    recorder.createRuns();
    runId = engine.runs()[0].storeId;
    // After the third commit the file may not grow: the next trial that needs a page fails.
    struct Fill : EngineObserver {
      Store& store;
      explicit Fill(Store& s) : store(s) {}
      void trialMeasured(const TrialEvent& e, const EngineProgress&) override {
        if (e.record.trial == 3) store.limitPages(0);
      }
    } fill(store);
    engine.addObserver(fill);
    const auto t0 = std::chrono::steady_clock::now();
    engine.run();
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(120));
    EXPECT_NE(engine.failure().find("the disk is full"), std::string::npos) << engine.failure();
    EXPECT_NE(engine.failure().find(cpu.db), std::string::npos) << engine.failure();
    EXPECT_EQ(engine.runs()[0].end, EndReason::Failed);
    committed = store.trials(runId).size();
    EXPECT_GE(committed, 3u);
    EXPECT_LT(committed, std::size_t(budget));
  }
  Store store(cpu.db);
  const auto stored = store.run(runId);
  ASSERT_TRUE(stored.has_value());
  EXPECT_NE(stored->status,
            RunStatus::Finished);  // running (its end could not be written) or failed
  EXPECT_EQ(store.trials(runId).size(), committed);

  resumeToTheEnd(store, runId, cpu.options, budget);
}

// Stop pressed while the pipeline compiles: the run ends promptly as stopped (resumable), with
// what was measured committed.
TEST(EngineFaults, StopWhileCompilingEndsPromptly) {
  CpuRun cpu(64);
  Store store(cpu.db);
  MeasurementSetup setup = makeMeasurement("cpu", cpu.op, cpu.options);
  Engine engine(*setup.space, *setup.measurer);
  StoreRecorder recorder(store, engine, contextOf(setup));
  engine.addObserver(recorder);
  engine.addRun(randomRun(200));
  recorder.createRuns();
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the first builds are running
    engine.stop();
  });
  const auto t0 = std::chrono::steady_clock::now();
  engine.run();
  const auto took = std::chrono::steady_clock::now() - t0;
  stopper.join();
  EXPECT_LT(took, std::chrono::seconds(30));
  EXPECT_EQ(engine.runs()[0].end, EndReason::Stopped);
  const auto run = store.run(engine.runs()[0].storeId);
  EXPECT_EQ(run->status, RunStatus::Interrupted);
  EXPECT_EQ(run->endReason, EndReason::Stopped);
  EXPECT_LT(store.trials(run->id).size(), 200u);
}

// The worker killed from outside while the pipeline is busy: the trial in hand fails with the
// reason, a new worker takes over, and the run goes on to its budget.
TEST(EngineFaults, AWorkerKilledMidRunCostsOneTrial) {
  CpuRun cpu(32);
  Store store(cpu.db);
  MeasurementSetup setup = makeMeasurement("cpu", cpu.op, cpu.options);
  Engine engine(*setup.space, *setup.measurer);
  StoreRecorder recorder(store, engine, contextOf(setup));
  engine.addObserver(recorder);
  engine.addRun(randomRun(12));
  recorder.createRuns();
  // Kills this process's opevo-worker children after the third trial.
  struct Killer : EngineObserver {
    int killed = 0;
    void trialMeasured(const TrialEvent& e, const EngineProgress&) override {
      if (e.record.trial != 3) return;
      for (const auto& entry : fs::directory_iterator("/proc")) {
        std::ifstream stat(entry.path() / "stat");
        std::string pid, comm, state;
        long ppid = 0;
        if (!(stat >> pid >> comm >> state >> ppid)) continue;
        if (ppid == getpid() && comm == "(opevo-worker)" && ::kill(std::stoi(pid), SIGKILL) == 0)
          ++killed;
      }
    }
  } killer;
  engine.addObserver(killer);
  engine.run();
  EXPECT_EQ(killer.killed, 1);
  EXPECT_TRUE(engine.failure().empty()) << engine.failure();
  const auto trials = store.trials(engine.runs()[0].storeId);
  ASSERT_EQ(trials.size(), 12u);
  int ok = 0;
  for (const TrialRow& t : trials) ok += t.status == TrialStatus::Ok ? 1 : 0;
  EXPECT_GE(ok, 10);  // at most the trial in hand is lost to the dead worker
  EXPECT_EQ(trials.back().status, TrialStatus::Ok);
}

// A compiler that is missing, or that fails on everything (a broken toolchain), is found before
// the first trial: the run stops with a message naming the compiler and quoting it, no
// configuration is recorded as a compile error, and the run resumes to its budget once the
// compiler works.
void expectCompilerStopsThenResumes(const std::string& compiler, const std::string& quoted) {
  CpuRun cpu(24);
  setenv("OPEVO_CXX", compiler.c_str(), 1);
  Store store(cpu.db);
  std::int64_t runId = 0;
  {
    MeasurementSetup setup = makeMeasurement("cpu", cpu.op, cpu.options);
    Engine engine(*setup.space, *setup.measurer);
    StoreRecorder recorder(store, engine, contextOf(setup));
    engine.addObserver(recorder);
    engine.addRun(randomRun(4));
    recorder.createRuns();
    engine.run();
    unsetenv("OPEVO_CXX");
    runId = engine.runs()[0].storeId;
    EXPECT_NE(engine.failure().find("cannot build kernels"), std::string::npos)
        << engine.failure();
    EXPECT_NE(engine.failure().find(compiler), std::string::npos) << engine.failure();
    EXPECT_NE(engine.failure().find(quoted), std::string::npos) << engine.failure();
  }
  EXPECT_TRUE(store.trials(runId).empty());
  EXPECT_NE(store.run(runId)->status, RunStatus::Finished);
  resumeToTheEnd(store, runId, cpu.options, 4);
}

TEST(EngineFaults, AMissingCompilerStopsTheRunBeforeItsFirstTrial) {
  expectCompilerStopsThenResumes("/nonexistent/bin/c++", "No such file");
}

TEST(EngineFaults, ACompilerThatFailsOnEverythingStopsTheRunBeforeItsFirstTrial) {
  char pattern[] = "/tmp/opevo-broken-cc-XXXXXX";
  const fs::path dir = mkdtemp(pattern);
  const fs::path compiler = dir / "broken-c++";
  std::ofstream(compiler) << "#!/bin/sh\necho 'cc1plus: fatal error: broken toolchain' >&2\nexit 1\n";
  fs::permissions(compiler, fs::perms::owner_all);
  expectCompilerStopsThenResumes(compiler.string(), "broken toolchain");
  fs::remove_all(dir);
}

// A compiler that hangs on one kernel (the real one for every other): that build is stopped at the
// compile time limit and becomes a failed trial that says so; the run goes on to its budget
// instead of waiting on it.
TEST(EngineFaults, ACompilerThatHangsCostsOneTrialAtTheTimeLimit) {
  CpuRun cpu(32);
  const fs::path compiler = cpu.dir / "hangs-once-c++";
  const fs::path marker = cpu.dir / "hung";  // mkdir is atomic: exactly one build hangs
  {
    std::ofstream f(compiler);
    f << "#!/bin/sh\n"
      << "case \"$*\" in *opevo_toolchain_probe*) exec c++ \"$@\";; esac\n"
      << "if mkdir '" << marker.string() << "' 2>/dev/null; then sleep 120; fi\n"
      << "exec c++ \"$@\"\n";
  }
  fs::permissions(compiler, fs::perms::owner_all);
  setenv("OPEVO_CXX", compiler.c_str(), 1);
  cpu.options.cpu.compileTimeoutSeconds = 5;  // the real builds take about half a second
  Store store(cpu.db);
  MeasurementSetup setup = makeMeasurement("cpu", cpu.op, cpu.options);
  Engine engine(*setup.space, *setup.measurer);
  StoreRecorder recorder(store, engine, contextOf(setup));
  engine.addObserver(recorder);
  engine.addRun(randomRun(6));
  recorder.createRuns();
  const auto t0 = std::chrono::steady_clock::now();
  engine.run();
  const auto took = std::chrono::steady_clock::now() - t0;
  unsetenv("OPEVO_CXX");
  EXPECT_LT(took, std::chrono::seconds(60));
  EXPECT_TRUE(engine.failure().empty()) << engine.failure();
  const auto trials = store.trials(engine.runs()[0].storeId);
  ASSERT_EQ(trials.size(), 6u);
  int hung = 0, ok = 0;
  for (const TrialRow& t : trials) {
    ok += t.status == TrialStatus::Ok ? 1 : 0;
    if (t.status == TrialStatus::CompileError) {
      ++hung;
      EXPECT_NE(t.message.find("compile time limit"), std::string::npos) << t.message;
    }
  }
  EXPECT_EQ(hung, 1);
  EXPECT_EQ(ok, 5);
  EXPECT_EQ(store.run(engine.runs()[0].storeId)->status, RunStatus::Finished);
}

// Another program takes the database's write lock mid-run and keeps it longer than the store
// waits: the run stops with a message saying the database is locked, keeps what it committed,
// and resumes once the lock is let go.
TEST(EngineFaults, ADatabaseLockedByAnotherProgramStopsCleanlyAndTheRunResumes) {
  CpuRun cpu(32);
  const int budget = 12;
  std::int64_t runId = 0;
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(cpu.db.c_str(), &other), SQLITE_OK);
  {
    Store store(cpu.db);
    MeasurementSetup setup = makeMeasurement("cpu", cpu.op, cpu.options);
    Engine engine(*setup.space, *setup.measurer);
    StoreRecorder recorder(store, engine, contextOf(setup));
    engine.addObserver(recorder);
    engine.addRun(randomRun(budget));
    recorder.createRuns();
    runId = engine.runs()[0].storeId;
    struct Lock : EngineObserver {
      sqlite3* db;
      explicit Lock(sqlite3* d) : db(d) {}
      void trialMeasured(const TrialEvent& e, const EngineProgress&) override {
        if (e.record.trial == 3) {
          EXPECT_EQ(sqlite3_exec(db, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
        }
      }
    } lock(other);
    engine.addObserver(lock);
    engine.run();
    EXPECT_NE(engine.failure().find("locked by another program"), std::string::npos)
        << engine.failure();
    EXPECT_EQ(engine.runs()[0].end, EndReason::Failed);
    EXPECT_EQ(sqlite3_exec(other, "ROLLBACK", nullptr, nullptr, nullptr), SQLITE_OK);
    EXPECT_EQ(store.trials(runId).size(), 3u);
  }
  sqlite3_close(other);
  Store store(cpu.db);
  resumeToTheEnd(store, runId, cpu.options, budget);
}

}  // namespace
}  // namespace opevo
