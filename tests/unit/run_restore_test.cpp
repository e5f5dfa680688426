// A tuning run exported as T4 and restored (io/run_restore.h) is the run it was, on real SQLite
// files: its record and every trial; files exported before the metadata carried the seed and the
// operator restore with them given; a file that is not ours, or does not fit, stores nothing.
#include "io/run_restore.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "common/error.h"
#include "common/rng.h"
#include "io/gzip_file.h"
#include "io/t4_export.h"
#include "ops/operator_json.h"
#include "store/run_operator.h"
#include "temp_dir.h"

namespace opevo {
namespace {

namespace fs = std::filesystem;

using test::TempDir;

RestoreOptions withSeed(std::uint64_t seed) {
  RestoreOptions options;
  options.seed = seed;
  return options;
}

std::string mm1Json() {
  return operatorDefinitionToJson(withSpaceTarget(loadOperator("MM1"), SpaceTarget::Gpu)).dump();
}

// A cold GPU run of MM1 as the engine stores it: four successes and one of each failure, with
// starts, finishes and tuning times.
std::int64_t storeMm1Run(Store& store) {
  const OperatorDefinition def = operatorDefinitionFromJson(nlohmann::json::parse(mm1Json()), "");
  RunRecord r;
  r.operatorName = "MM1";
  r.operatorJson = mm1Json();
  r.algorithm = "opevo-m";
  r.settingsJson = R"({"q":0.5})";
  r.seed = 7;
  r.backend = "cuda";
  r.device = "NVIDIA H200, sm_90, 132 SMs, driver 13.0";
  r.budgetJson = R"({"trials":300})";
  r.status = RunStatus::Interrupted;
  r.endReason = EndReason::Stopped;
  r.started = "2026-11-27T13:00:00.000Z";
  r.ended = "2026-11-27T13:05:00.000Z";
  r.speedUnit = "TFLOPS";
  r.label = "CUDA on NVIDIA H200";
  r.referenceLibrary = "cuBLAS sgemm (libcublas.so.13)";
  r.referenceSpeed = 26.5;
  Rng rng(3);
  const std::vector<std::string> statuses = {
      "ok", "ok", "launch_error", "ok", "compile_error", "timeout", "runtime_fault", "ok"};
  std::vector<TrialRow> trials;
  for (std::size_t i = 0; i < statuses.size(); ++i) {
    TrialRow t;
    t.seq = static_cast<int>(i) + 1;
    t.order = t.seq;
    t.config = def.space.format(*def.space.randomValid(rng));
    t.status = *trialStatusNames().parse(statuses[i]);
    if (t.status == TrialStatus::Ok) {
      t.timesMs = {0.25 + 0.01 * static_cast<double>(i), 0.5, 0.375};
      t.medianMs = 0.375;
      t.speed = 10.0 + static_cast<double>(i) / 3;
      // A success can carry a message too (T4 has no place for it; metadata.trials has).
      if (i == 3) t.message = "timed by its checked run alone: over the cut-off of 0 ms";
    } else {
      t.message = "failure " + statuses[i];
    }
    t.compileMs = 150.5 + static_cast<double>(i);
    // Checked and measured, as the worker and its client report it (the timeout's kernel was
    // never checked).
    t.verifyMs = t.status == TrialStatus::Timeout ? 0 : 0.125 * static_cast<double>(i + 1);
    t.measureMs = 30.0 + static_cast<double>(i);
    t.tunerMs = 0.375 * static_cast<double>(i);
    t.seconds = 1.25 * static_cast<double>(i + 1);
    t.started = "2026-11-27T13:00:0" + std::to_string(i) + ".100Z";
    t.finished = "2026-11-27T13:00:0" + std::to_string(i) + ".900Z";
    trials.push_back(t);
  }
  return store.createRunWithTrials(r, trials);
}

void expectSameRun(const RunRecord& a, const RunRecord& b) {
  EXPECT_EQ(b.operatorName, a.operatorName);
  EXPECT_EQ(runOperatorKey(b.operatorJson), runOperatorKey(a.operatorJson));
  EXPECT_EQ(b.algorithm, a.algorithm);
  EXPECT_EQ(nlohmann::json::parse(b.settingsJson), nlohmann::json::parse(a.settingsJson));
  EXPECT_EQ(b.seed, a.seed);
  EXPECT_EQ(b.backend, a.backend);
  EXPECT_EQ(b.device, a.device);
  EXPECT_EQ(nlohmann::json::parse(b.budgetJson), nlohmann::json::parse(a.budgetJson));
  EXPECT_EQ(b.speedUnit, a.speedUnit);
  EXPECT_EQ(b.referenceLibrary, a.referenceLibrary);
  EXPECT_EQ(b.referenceSpeed, a.referenceSpeed);
}

TEST(RunRestore, AnExportedRunComesBackAsItWas) {
  TempDir dir;
  Store store(dir.file("opevo.db"));
  const std::int64_t id = storeMm1Run(store);
  store.setRunSideBySide(id, R"({"chosen_rank":2,"config":"x","ratio":0.91})");
  exportRunT4(store, id, dir.file("MM1_opevo-m_seed7.json.gz"));

  // Into a database that lost the run (a fresh checkout's campaign).
  Store fresh(dir.file("fresh.db"));
  const RestoredRun r = restoreRun(fresh, dir.file("MM1_opevo-m_seed7.json.gz"));
  EXPECT_EQ(r.trials, 8u);
  const RunRecord a = *store.run(id);
  const RunRecord b = *fresh.run(r.runId);
  expectSameRun(a, b);
  EXPECT_EQ(b.label, a.label);
  EXPECT_EQ(b.status, RunStatus::Interrupted);
  EXPECT_EQ(b.endReason, EndReason::Stopped);
  EXPECT_EQ(b.started, a.started);
  EXPECT_EQ(b.ended, a.ended);
  EXPECT_EQ(nlohmann::json::parse(b.sideBySideJson), nlohmann::json::parse(a.sideBySideJson));
  const std::vector<TrialRow> before = store.trials(id), after = fresh.trials(r.runId);
  ASSERT_EQ(after.size(), before.size());
  for (std::size_t i = 0; i < before.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(after[i].seq, before[i].seq);
    EXPECT_EQ(after[i].config, before[i].config);
    EXPECT_EQ(after[i].status, before[i].status);  // launch_error too, which T4 calls "runtime"
    EXPECT_EQ(after[i].message, before[i].message);
    EXPECT_EQ(after[i].timesMs, before[i].timesMs);
    EXPECT_EQ(after[i].medianMs, before[i].medianMs);
    EXPECT_EQ(after[i].speed, before[i].speed);
    EXPECT_EQ(after[i].compileMs, before[i].compileMs);
    EXPECT_EQ(after[i].verifyMs, before[i].verifyMs);
    EXPECT_EQ(after[i].measureMs, before[i].measureMs);
    EXPECT_EQ(after[i].tunerMs, before[i].tunerMs);
    EXPECT_EQ(after[i].seconds, before[i].seconds);
    EXPECT_EQ(after[i].started, before[i].started);
    EXPECT_EQ(after[i].finished, before[i].finished);
  }
  // The seed given again agrees (and the run, stored already, is refused as such); another one is
  // refused.
  EXPECT_NO_THROW(readRestoreFile(dir.file("MM1_opevo-m_seed7.json.gz"), withSeed(7)));
  EXPECT_THROW(restoreRun(fresh, dir.file("MM1_opevo-m_seed7.json.gz"), withSeed(8)), InputError);
}

// A file exported before the export wrote them (the leases of 2026-11-26 and 27): no seed,
// operator, settings, status or per-trial extras.
std::string olderExport(const TempDir& dir, Store& store, std::int64_t id) {
  nlohmann::ordered_json doc = runToT4(*store.run(id), store.trials(id));
  for (const char* key : {"seed", "operator", "settings", "budget", "status", "end_reason",
                          "started", "ended", "label", "trials"})
    doc["metadata"].erase(key);
  const std::string file = dir.file("older.json");
  writeGzipped(file, doc.dump());
  return file;
}

// A CPU run exported when CPU kernels were timed in TFLOPS restores in GFLOP/s, as the store's
// migration moved the CPU runs it held: its trials, reference and target alike.
TEST(RunRestore, ACpuRunExportedInTflopsRestoresInGflops) {
  TempDir dir;
  Store store(dir.file("opevo.db"));
  const std::int64_t gpu = storeMm1Run(store);
  RunRecord cpu = *store.run(gpu);
  cpu.backend = "cpu";
  cpu.budgetJson = R"({"trials":300,"target":0.25})";
  const std::int64_t id = store.createRunWithTrials(cpu, store.trials(gpu));
  exportRunT4(store, id, dir.file("cpu.json.gz"));

  Store fresh(dir.file("fresh.db"));
  const RestoredRun r = restoreRun(fresh, dir.file("cpu.json.gz"));
  const RunRecord back = *fresh.run(r.runId);
  EXPECT_EQ(back.speedUnit, "GFLOP/s");
  ASSERT_TRUE(back.referenceSpeed);
  EXPECT_DOUBLE_EQ(*back.referenceSpeed, 26500);
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(back.budgetJson)["target"].get<double>(), 250);
  const std::vector<TrialRow> before = store.trials(id), after = fresh.trials(r.runId);
  ASSERT_EQ(after.size(), before.size());
  for (std::size_t i = 0; i < before.size(); ++i)
    EXPECT_DOUBLE_EQ(after[i].speed, before[i].speed * 1000);
}

TEST(RunRestore, OlderFilesRestoreWithTheSeedAndOperatorGiven) {
  TempDir dir;
  Store store(dir.file("opevo.db"));
  const std::int64_t id = storeMm1Run(store);
  const std::string file = olderExport(dir, store, id);

  Store fresh(dir.file("fresh.db"));
  EXPECT_THROW(restoreRun(fresh, file), InputError);               // no seed
  EXPECT_THROW(restoreRun(fresh, file, withSeed(7)), InputError);  // no operator
  std::string askedFor;
  const RestoreOptions options{[&](const std::string& backend) {
                                 askedFor = backend;
                                 return mm1Json();
                               },
                               7,
                               {}};
  const RestoredRun r = restoreRun(fresh, file, options);
  EXPECT_EQ(askedFor, "cuda");
  const RunRecord b = *fresh.run(r.runId);
  EXPECT_EQ(b.seed, 7u);
  EXPECT_EQ(runOperatorKey(b.operatorJson), runOperatorKey(mm1Json()));
  EXPECT_EQ(b.status, RunStatus::Finished);
  EXPECT_EQ(b.endReason, EndReason::Trials);
  EXPECT_EQ(nlohmann::json::parse(b.budgetJson), (nlohmann::json{{"trials", 8}}));
  // The run's times are its first and last trials'.
  EXPECT_EQ(b.started, "2026-11-27T13:00:00.900Z");
  EXPECT_EQ(b.ended, "2026-11-27T13:00:07.900Z");
  const std::vector<TrialRow> before = store.trials(id), after = fresh.trials(r.runId);
  ASSERT_EQ(after.size(), before.size());
  EXPECT_EQ(after[2].status, TrialStatus::RuntimeFault);  // T4 has one name for both
  EXPECT_EQ(after[2].message, "failure launch_error");
  for (std::size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ(after[i].config, before[i].config);
    EXPECT_EQ(after[i].speed, before[i].speed);
    EXPECT_EQ(after[i].seconds, 0);
    EXPECT_TRUE(after[i].started.empty());
  }
}

TEST(RunRestore, WhatDoesNotFitStoresNothing) {
  TempDir dir;
  Store store(dir.file("opevo.db"));
  const std::int64_t id = storeMm1Run(store);
  const std::string older = olderExport(dir, store, id);
  Store fresh(dir.file("fresh.db"));
  // MM1's configurations in C2's space: named, and nothing stored.
  const RestoreOptions c2{[](const std::string& backend) {
                            (void)backend;
                            return operatorDefinitionToJson(loadOperator("C2")).dump();
                          },
                          7,
                          {}};
  try {
    restoreRun(fresh, older, c2);
    ADD_FAILURE() << "MM1's trials restored as C2's";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("results[0]: its configuration does not fit"),
              std::string::npos)
        << e.what();
  }
  // A T4 file another tool wrote has no tuning run to restore.
  const std::string foreign = std::string(OPEVO_DATASETS_DIR) + "/convolution_milo/A100_T4.json.gz";
  try {
    restoreRun(fresh, foreign, withSeed(1));
    ADD_FAILURE() << "a foreign file restored";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not a run exported by OpEvo Studio"), std::string::npos)
        << e.what();
  }
  // A result whose speed is missing.
  nlohmann::ordered_json doc = runToT4(*store.run(id), store.trials(id));
  doc["results"][0]["measurements"].erase(1);
  writeGzipped(dir.file("nospeed.json"), doc.dump());
  EXPECT_THROW(restoreRun(fresh, dir.file("nospeed.json")), InputError);
  EXPECT_TRUE(fresh.runs().empty());
}

}  // namespace
}  // namespace opevo
