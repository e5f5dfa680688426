// T4 export and import of stored runs, on real SQLite files: a run survives export and import
// trial for trial, the shipped measurements round-trip, and a bad file stores nothing.
#include "io/t4_export.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "common/error.h"
#include "file_size_limit.h"
#include "io/gzip_file.h"
#include "io/run_import.h"
#include "temp_dir.h"

namespace opevo {
namespace {

namespace fs = std::filesystem;

using test::TempDir;

std::string dataset(const std::string& relative) {
  return std::string(OPEVO_DATASETS_DIR) + "/" + relative;
}

TrialRow trial(int seq, const std::string& config, const std::string& status,
               std::vector<double> times, double speed, const std::string& message = "") {
  TrialRow t;
  t.seq = seq;
  t.config = config;
  t.status = *trialStatusNames().parse(status);
  t.message = message;
  t.timesMs = std::move(times);
  if (!t.timesMs.empty()) {
    std::vector<double> sorted = t.timesMs;
    std::sort(sorted.begin(), sorted.end());
    const std::size_t mid = sorted.size() / 2;
    t.medianMs = sorted.size() % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  }
  t.speed = speed;
  t.compileMs = 100.25 + seq;
  t.finished = "2024-05-01T10:00:0" + std::to_string(seq % 10) + ".000Z";
  return t;
}

// A tuning run as the engine stores it: factorizations, discrete values, choices and booleans,
// successes and every kind of failure that T4 can name.
std::int64_t storeSampleRun(Store& store) {
  RunRecord r;
  r.operatorName = "MM1";
  r.operatorJson = "{}";
  r.algorithm = "opevo";
  r.settingsJson = "{}";
  r.backend = "cuda";
  r.device = "NVIDIA H100 80GB HBM3";
  r.budgetJson = R"({"trials":6})";
  r.speedUnit = "TFLOPS";
  r.status = RunStatus::Finished;
  r.referenceLibrary = "cuBLAS sgemm (libcublas.so.13)";
  r.referenceSpeed = 26.5;
  std::vector<TrialRow> trials = {
      trial(1, "tile_n=8,2,4,8; unroll=512; vectorize=true; layout=row", "ok", {0.5, 0.25, 0.375},
            41.0 / 3),
      trial(2, "tile_n=64,1,1,1; unroll=0; vectorize=false; layout=col", "ok", {1.0, 1.5},
            2.718281828459045),
      trial(3, "tile_n=4,4,4,4; unroll=1500; vectorize=true; layout=row", "compile_error", {}, 0,
            "nvrtc: error: too many registers"),
      trial(4, "tile_n=2,2,2,64; unroll=0; vectorize=true; layout=col", "runtime_fault", {}, 0,
            "CUDA_ERROR_ILLEGAL_ADDRESS"),
      trial(5, "tile_n=1,1,1,512; unroll=512; vectorize=false; layout=row", "timeout", {}, 0,
            "killed after 10 s"),
      trial(6, "tile_n=16,16,1,2; unroll=0; vectorize=false; layout=row", "wrong_result", {}, 0,
            "max error 0.5 at 12"),
      trial(7, "tile_n=32,1,16,1; unroll=1500; vectorize=false; layout=col", "rejected", {}, 0,
            "needs 300 KB of shared memory"),
  };
  // The first trial's measurement as the worker's client timed it; the others were stored
  // before schema 5 had the columns.
  trials[0].verifyMs = 2.5;
  trials[0].measureMs = 10;
  return store.createRunWithTrials(r, trials);
}

// Every trial of the import has the configuration, status, times and speed of the original.
void expectSameTrials(const std::vector<TrialRow>& original, const std::vector<TrialRow>& back,
                      bool exactSpeed) {
  ASSERT_EQ(back.size(), original.size());
  for (std::size_t i = 0; i < original.size(); ++i) {
    const TrialRow& a = original[i];
    const TrialRow& b = back[i];
    SCOPED_TRACE(a.config);
    EXPECT_EQ(b.seq, a.seq);
    EXPECT_EQ(b.config, a.config);
    EXPECT_EQ(b.status, a.status);
    EXPECT_EQ(b.timesMs, a.timesMs);
    EXPECT_EQ(b.medianMs, a.medianMs);
    EXPECT_EQ(b.compileMs, a.compileMs);
    if (exactSpeed)
      EXPECT_EQ(b.speed, a.speed);
    else
      EXPECT_DOUBLE_EQ(b.speed, a.speed);  // 1/(1/x) may differ from x in the last bit
    if (!a.message.empty()) {
      EXPECT_EQ(b.message, a.message);
    }
  }
}

TEST(T4Export, RunRoundTripsThroughAGzipFile) {
  TempDir dir;
  Store store(dir.file("opevo.db"));
  const std::int64_t id = storeSampleRun(store);
  const std::string file = dir.file("run.json.gz");
  EXPECT_EQ(exportRunT4(store, id, file), 7u);
  for (const std::string& name : test::namesIn(dir.path))
    EXPECT_EQ(name.find(".partial"), std::string::npos) << "a temporary was left: " << name;
  std::ifstream raw(file, std::ios::binary);
  EXPECT_EQ(raw.get(), 0x1f);  // gzip magic: the .gz name was honoured
  EXPECT_EQ(raw.get(), 0x8b);

  const auto doc = nlohmann::json::parse(readMaybeGzipped(file));
  EXPECT_EQ(doc["schema_version"], "1.0.0");
  EXPECT_EQ(doc["metadata"]["device_name"], "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(doc["metadata"]["timeunit"], "milliseconds");
  ASSERT_EQ(doc["results"].size(), 7u);
  for (const auto& r : doc["results"])
    for (const char* field : {"timestamp", "configuration", "times", "invalidity", "correctness",
                              "measurements", "objectives"})
      EXPECT_TRUE(r.contains(field)) << field;
  const auto& first = doc["results"][0];
  EXPECT_EQ(first["timestamp"], "2024-05-01T10:00:01.000Z");
  EXPECT_EQ(first["configuration"]["tile_n"], "8,2,4,8");
  EXPECT_EQ(first["configuration"]["unroll"], 512);
  EXPECT_EQ(first["configuration"]["vectorize"], true);
  EXPECT_EQ(first["configuration"]["layout"], "row");
  EXPECT_EQ(first["times"]["compilation"], 101.25);
  EXPECT_EQ(first["times"]["runtimes"].size(), 3u);
  // Validation is the verification's time; framework what the measurement took beyond it and
  // the timed runs (10 - 1.125 - 2.5 ms); a trial without a measurement time has 0 for both.
  EXPECT_EQ(first["times"]["validation"], 2.5);
  EXPECT_EQ(first["times"]["framework"], 6.375);
  EXPECT_EQ(doc["results"][1]["times"]["validation"], 0);
  EXPECT_EQ(doc["results"][1]["times"]["framework"], 0);
  EXPECT_EQ(first["invalidity"], "correct");
  EXPECT_EQ(first["correctness"], 1);
  EXPECT_EQ(first["measurements"][0]["name"], "time");
  EXPECT_EQ(first["measurements"][0]["value"], 0.375);  // mean of the runtimes
  EXPECT_EQ(first["measurements"][1]["name"], "TFLOPS");
  std::vector<std::string> invalidities;
  for (const auto& r : doc["results"]) invalidities.push_back(r["invalidity"]);
  EXPECT_EQ(invalidities, (std::vector<std::string>{"correct", "correct", "compile", "runtime",
                                                    "timeout", "correctness", "constraints"}));
  EXPECT_EQ(doc["results"][2]["correctness"], 0);
  EXPECT_EQ(doc["results"][2]["measurements"][0]["value"], "nvrtc: error: too many registers");

  const ImportedRun imported = importRun(store, file);
  EXPECT_EQ(imported.format, "t4");
  EXPECT_EQ(imported.trials, 7u);
  const RunRecord run = *store.run(imported.runId);
  EXPECT_EQ(run.backend, "replay-import");
  EXPECT_EQ(run.algorithm, "import");
  EXPECT_EQ(run.status, RunStatus::Finished);
  EXPECT_FALSE(run.ended.empty());
  EXPECT_EQ(run.device, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(run.speedUnit, "TFLOPS");
  // T4 names no kernel; our export says it in metadata.kernel_name, which import reads back.
  EXPECT_EQ(run.operatorName, "MM1");
  EXPECT_EQ(run.label, "MM1, tuned by opevo");
  EXPECT_EQ(measuredBy(run), "opevo (imported)");
  EXPECT_EQ(measuredBy(*store.run(id)), "opevo");
  EXPECT_EQ(doc["metadata"]["reference_library"], "cuBLAS sgemm (libcublas.so.13)");
  EXPECT_EQ(run.referenceLibrary, "cuBLAS sgemm (libcublas.so.13)");
  ASSERT_TRUE(run.referenceSpeed.has_value());
  EXPECT_DOUBLE_EQ(*run.referenceSpeed, 26.5);
  expectSameTrials(store.trials(id), store.trials(imported.runId), true);
}

TEST(T4Export, LaunchErrorsBecomeRuntimeFailures) {
  // T4 has no name for a kernel that compiled but would not launch: "runtime" is the nearest,
  // and it reads back as runtime_fault with the message kept.
  TempDir dir;
  Store store(dir.file("opevo.db"));
  RunRecord r;
  r.speedUnit = "TFLOPS";
  const std::int64_t id = store.createRunWithTrials(
      r, {trial(1, "a=1", "ok", {2.0}, 1.5), trial(2, "a=2", "launch_error", {}, 0, "too big")});
  exportRunT4(store, id, dir.file("run.json"));
  const std::vector<TrialRow> back = store.trials(importRun(store, dir.file("run.json")).runId);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].status, TrialStatus::RuntimeFault);
  EXPECT_EQ(back[1].message, "too big");
}

// The shipped measurements, imported, exported and imported again, trial for trial.
void roundTripDataset(const std::string& relative, std::size_t expected, bool exactSpeed) {
  TempDir dir;
  Store store(dir.file("opevo.db"));
  const ImportedRun first = importRun(store, dataset(relative));
  EXPECT_EQ(first.trials, expected);
  exportRunT4(store, first.runId, dir.file("export.json"));
  const ImportedRun second = importRun(store, dir.file("export.json"));
  EXPECT_EQ(second.device, first.device);
  EXPECT_EQ(second.speedUnit, first.speedUnit);
  expectSameTrials(store.trials(first.runId), store.trials(second.runId), exactSpeed);
  EXPECT_EQ(store.runs().size(), 2u);
}

TEST(T4Export, KernelTunerCacheRoundTrips) {
  // GFLOP/s travels as a measurement, so speed comes back bit for bit; the 161 failures keep
  // their status and Kernel Tuner's reason.
  roundTripDataset("convolution_milo/A100.json.gz", 4362, true);
}

TEST(T4Export, T4FileRoundTrips) {
  // This T4 file has no throughput: speed is 1/time, written back as time = 1/speed.
  roundTripDataset("convolution_milo/A100_T4.json.gz", 4362, false);
}

TEST(T4Export, ImportNamesKernelAndDevice) {
  TempDir dir;
  Store store(dir.file("opevo.db"));
  const ImportedRun imported = importRun(store, dataset("convolution_milo/A100.json.gz"));
  const RunRecord run = *store.run(imported.runId);
  EXPECT_EQ(run.operatorName, "convolution_kernel");
  EXPECT_EQ(run.device, "NVIDIA A100-PCIE-40GB");
  EXPECT_EQ(run.speedUnit, "GFLOP/s");
  const auto space = nlohmann::json::parse(run.operatorJson)["space"];
  EXPECT_EQ(space["block_size_y"], "discrete:1,2,4,8,16");
  const std::vector<TrialRow> trials = store.trials(imported.runId);
  // The cache's entries come in the reader's order (its keys sorted as text), so look the
  // file's first entry up rather than expect it first.
  const std::string firstEntry =
      "block_size_x=16; block_size_y=1; tile_size_x=1; tile_size_y=1; read_only=0; "
      "use_padding=0; use_shmem=0; use_cmem=1; filter_height=15; filter_width=15";
  const auto found = std::find_if(trials.begin(), trials.end(),
                                  [&](const TrialRow& t) { return t.config == firstEntry; });
  ASSERT_NE(found, trials.end());
  EXPECT_EQ(found->status, TrialStatus::Ok);
  EXPECT_EQ(found->timesMs.size(), 32u);
  EXPECT_DOUBLE_EQ(found->speed, 1948.1569950129526);
  EXPECT_DOUBLE_EQ(found->compileMs, 918.5990339610726);
  EXPECT_EQ(std::count_if(trials.begin(), trials.end(),
                          [](const TrialRow& t) { return t.status == TrialStatus::RuntimeFault; }),
            155);
}

TEST(T4Export, BadT4FilesStoreNothing) {
  TempDir dir;
  Store store(dir.file("opevo.db"));
  const std::string good =
      R"({"timestamp": "t", "configuration": {"a": 1}, "times": {"runtimes": [1.0]},
          "invalidity": "correct", "correctness": 1})";
  struct Case {
    std::string results;
    std::string mentions;
  };
  const Case cases[] = {
      {"[" + good + R"(, {"configuration": {"a": 2}, "invalidity": "correct", "correctness": 1}])",
       "results[1] lacks the required field 'times'"},
      {R"([{"times": {}, "invalidity": "correct", "correctness": 1}])",
       "results[0] lacks the required field 'configuration'"},
      {"[" + good + R"(, {"configuration": {"a": 2}, "times": {}, "correctness": 1}])",
       "results[1] lacks the required field 'invalidity'"},
      {R"([{"configuration": {"a": 2}, "times": {}, "invalidity": "correct"}])",
       "results[0] lacks the required field 'correctness'"},
      {"[]", "T4 file has no results"},
      {"[" + good + R"(, {"configuration": {"a": 2}, "times": {}, "invalidity": "broken",
        "correctness": 0}])",
       "results[1].invalidity is 'broken'"},
  };
  for (const Case& c : cases) {
    const std::string file = dir.file("bad.json");
    std::ofstream(file) << R"({"schema_version": "1.0.0", "results": )" << c.results << "}";
    try {
      importRun(store, file);
      ADD_FAILURE() << c.results;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(c.mentions), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(file), std::string::npos) << e.what();
    }
  }
  std::ofstream(dir.file("cut.json")) << R"({"schema_version": "1.0.0", "results": [)" << good;
  EXPECT_THROW(importRun(store, dir.file("cut.json")), InputError);
  EXPECT_TRUE(store.runs().empty());
}

TEST(T4Export, StoringARunIsAllOrNothing) {
  // Two trials with the same seq break the primary key halfway through: the run must vanish
  // with its first trial rather than stay half-stored.
  TempDir dir;
  Store store(dir.file("opevo.db"));
  RunRecord r;
  EXPECT_THROW(store.createRunWithTrials(
                   r, {trial(1, "a=1", "ok", {1.0}, 1), trial(1, "a=2", "ok", {1.0}, 1)}),
               InputError);
  EXPECT_TRUE(store.runs().empty());
  EXPECT_EQ(store.createRunWithTrials(r, {trial(1, "a=1", "ok", {1.0}, 1)}), 1);
  EXPECT_EQ(store.trials(1).size(), 1u);
}

TEST(T4Export, ExportErrors) {
  TempDir dir;
  Store store(dir.file("opevo.db"));
  try {
    exportRunT4(store, 42, dir.file("x.json"));
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "no run 42 in " + dir.file("opevo.db"));
  }
  RunRecord r;
  const std::int64_t empty = store.createRun(r);
  EXPECT_THROW(exportRunT4(store, empty, dir.file("x.json")), InputError);
  const std::int64_t id = storeSampleRun(store);
  try {
    exportRunT4(store, id, dir.file("no/such/folder/x.json.gz"));
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "cannot write '" + dir.file("no/such/folder/x.json.gz") +
                                         "': No such file or directory");
  }
  EXPECT_FALSE(fs::exists(dir.file("x.json")));
}

}  // namespace
}  // namespace opevo
