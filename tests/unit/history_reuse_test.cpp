// What a new run takes from earlier ones (--history, the warm start): failures the environment
// caused are measured again, a damaged configuration text costs its trial only, the warm start
// learns from a bounded number of configurations, and a reused trial carries one note. Real
// SQLite files.

#include <gtest/gtest.h>

#include <csignal>

#include "common/rng.h"
#include "common/utf8_text.h"
#include "engine/device_time.h"
#include "engine/trial_failures.h"
#include "io/t4_export.h"
#include "ops/presets.h"
#include "store/history.h"
#include "store/store.h"
#include "temp_dir.h"
#include "worker/worker_client.h"

namespace opevo {
namespace {

TrialRow trial(int seq, const std::string& config, TrialStatus status, double speed = 0,
               const std::string& message = {}) {
  TrialRow t;
  t.seq = t.order = seq;
  t.config = config;
  t.status = status;
  t.speed = speed;
  t.message = message;
  if (status == TrialStatus::Ok) t.timesMs = {1.0}, t.medianMs = 1.0;
  return t;
}

RunRecord cpuRun() {
  RunRecord r;
  r.operatorName = "MM1";
  r.operatorJson = R"({"op":"MM1"})";
  r.algorithm = "random";
  r.settingsJson = "{}";
  r.backend = "cpu";
  r.device = "AMD EPYC, 2 threads";
  r.label = "cpu: AMD EPYC, 2 threads";
  r.budgetJson = R"({"trials":8})";
  r.speedUnit = "GFLOP/s";
  return r;
}

// Distinct valid configurations of MM1's space, as the space writes them.
std::vector<std::string> configsOf(const SearchSpace& space, std::size_t n) {
  Rng rng(7);
  std::vector<std::string> out;
  while (out.size() < n) {
    const std::string text = space.format(*space.randomValid(rng));
    if (std::find(out.begin(), out.end(), text) == out.end()) out.push_back(text);
  }
  return out;
}

TEST(HistoryReuse, TellsTheEnvironmentsFailuresFromTheConfigurations) {
  const std::string shortTimeout = workerTimeoutMessage(0.2);
  EXPECT_EQ(shortTimeout, "no answer within 0.2 s; the worker was killed");
  // Under a shorter limit than this run's: measured again; under the same or a longer: kept.
  EXPECT_TRUE(environmentalFailure(TrialStatus::Timeout, shortTimeout, 10.0));
  EXPECT_FALSE(environmentalFailure(TrialStatus::Timeout, shortTimeout, 0.2));
  EXPECT_FALSE(environmentalFailure(TrialStatus::Timeout, shortTimeout, 0.1));
  EXPECT_TRUE(
      environmentalFailure(TrialStatus::Timeout, "from history: run 1; " + shortTimeout, 10.0));
  EXPECT_TRUE(environmentalFailure(
      TrialStatus::Timeout,
      "still running after 250 ms, the limit the fastest kernel so far sets (--slow-cutoff)",
      10.0));
  EXPECT_TRUE(environmentalFailure(TrialStatus::Timeout, "no limit named", 10.0));
  // A replay's timeouts are its dataset's answers.
  EXPECT_FALSE(environmentalFailure(TrialStatus::Timeout, shortTimeout, std::nullopt));
  // Killed from outside, or lost with its agents: measured again; a kernel's own crash: kept.
  EXPECT_EQ(workerSignalMessage(SIGKILL).rfind("the worker died of signal 9 (", 0), 0u);
  EXPECT_TRUE(environmentalFailure(TrialStatus::RuntimeFault, workerSignalMessage(SIGKILL), 10.0));
  EXPECT_TRUE(environmentalFailure(TrialStatus::RuntimeFault, workerSignalMessage(SIGTERM), 10.0));
  EXPECT_FALSE(environmentalFailure(TrialStatus::RuntimeFault, workerSignalMessage(SIGSEGV), 10.0));
  EXPECT_FALSE(environmentalFailure(TrialStatus::RuntimeFault, workerSignalMessage(SIGBUS), 10.0));
  EXPECT_FALSE(
      environmentalFailure(TrialStatus::RuntimeFault, "the worker exited with status 1", 10.0));
  EXPECT_TRUE(environmentalFailure(TrialStatus::RuntimeFault,
                                   "delivered 3 times without a result: every agent that took it "
                                   "stopped answering (the kernel may crash or hang its agent), "
                                   "so it is not measured again",
                                   10.0));
  // A build stopped by the wall clock waited for a busy machine's cores (or hung): measured
  // again, as are builds stored under the former wall-clock limit; one that used the CPU-time
  // limit crawls on its configuration: kept.
  EXPECT_TRUE(environmentalFailure(TrialStatus::CompileError,
                                   compilerStarvedMessage("c++", 100.2, 3.4, 20), 10.0));
  EXPECT_TRUE(environmentalFailure(TrialStatus::CompileError,
                                   "c++ was stopped after running for 20 s, the compile time "
                                   "limit (this configuration makes the compiler crawl)",
                                   10.0));
  EXPECT_FALSE(
      environmentalFailure(TrialStatus::CompileError, compilerCrawlMessage("c++", 20), 10.0));
  for (TrialStatus s : {TrialStatus::Ok, TrialStatus::CompileError, TrialStatus::WrongResult,
                        TrialStatus::Rejected, TrialStatus::LaunchError})
    EXPECT_FALSE(environmentalFailure(s, shortTimeout, 10.0)) << statusName(s);
}

TEST(HistoryReuse, LeavesTheEnvironmentsFailuresOutOfTheHistory) {
  const test::TempDir dir;
  Store store(dir.file("runs.db"));
  const std::int64_t id = store.createRunWithTrials(
      cpuRun(), {trial(1, "a=1", TrialStatus::Ok, 5),
                 trial(2, "a=2", TrialStatus::Timeout, 0, workerTimeoutMessage(0.2)),
                 trial(3, "a=3", TrialStatus::RuntimeFault, 0, workerSignalMessage(SIGKILL)),
                 trial(4, "a=4", TrialStatus::CompileError, 0, "error: no"),
                 trial(5, "a=5", TrialStatus::Timeout, 0, workerTimeoutMessage(20)),
                 trial(6, "a=6", TrialStatus::RuntimeFault, 0, workerSignalMessage(SIGSEGV))});
  HistoryOptions options;
  options.timeLimitSeconds = 10;
  const History h = loadHistory(store, *store.run(id), 0, options);
  for (const char* kept : {"a=1", "a=4", "a=5", "a=6"}) EXPECT_EQ(h.byConfig.count(kept), 1u);
  for (const char* again : {"a=2", "a=3"}) EXPECT_EQ(h.byConfig.count(again), 0u) << again;
  EXPECT_EQ(h.environmental, 2u);
  ASSERT_EQ(h.inOrder.size(), 4u);  // the warm start does not learn them either
  // An earlier success stands where a later run lost the configuration to its environment.
  store.createRunWithTrials(cpuRun(),
                            {trial(1, "a=1", TrialStatus::Timeout, 0, workerTimeoutMessage(0.5))});
  const History again = loadHistory(store, *store.run(id), 0, options);
  ASSERT_EQ(again.byConfig.count("a=1"), 1u);
  EXPECT_EQ(again.byConfig.at("a=1").first.status, TrialStatus::Ok);
}

// A run's trials answer another's only in the same space; their curves compare on one chart
// wherever they tuned the same problem on the same device (loops beside ALT's joint layouts,
// Winograd's template beside the direct one), never over other space overrides or devices.
TEST(HistoryReuse, OneProblemInTwoSpacesIsOneProblemButNotOneMeasurement) {
  RunRecord loops;
  loops.backend = "cpu";
  loops.device = "cpu: AMD EPYC, 2 threads";
  loops.operatorJson = R"({"kind": "matmul", "name": "MM1", "shape": {"m": 1024}})";
  RunRecord joint = loops;
  joint.operatorJson =
      R"({"kind": "matmul", "mode": "joint", "name": "MM1", "shape": {"m": 1024}})";
  RunRecord winograd = loops;
  winograd.operatorJson =
      R"({"kind": "matmul", "name": "MM1", "shape": {"m": 1024}, "target": "winograd"})";
  EXPECT_FALSE(sameMeasurement(loops, joint));
  EXPECT_TRUE(sameProblem(loops, joint));
  EXPECT_TRUE(sameProblem(joint, winograd));
  RunRecord narrowed = loops;
  narrowed.operatorJson =
      R"({"kind": "matmul", "name": "MM1", "shape": {"m": 1024}, "space": {"tile_k": [8]}})";
  EXPECT_FALSE(sameProblem(loops, narrowed));
  RunRecord otherShape = joint;
  otherShape.operatorJson =
      R"({"kind": "matmul", "mode": "joint", "name": "MM1", "shape": {"m": 512}})";
  EXPECT_FALSE(sameProblem(loops, otherShape));
  RunRecord otherDevice = joint;
  otherDevice.device = "cpu: Intel Xeon, 8 threads";
  EXPECT_FALSE(sameProblem(loops, otherDevice));
  RunRecord cold = joint;
  loops.label = "cpu: AMD EPYC, 2 threads";
  cold.label = "cpu: AMD EPYC, 2 threads (weights cold)";
  EXPECT_FALSE(sameProblem(loops, cold));  // timed otherwise
}

// Counts what it is asked to measure: what history did not answer.
class CountingMeasurer final : public Measurer {
 public:
  std::string label() const override { return "counting"; }
  bool isReplay() const override { return false; }
  std::string speedUnit() const override { return "TFLOPS"; }
  std::vector<Measurement> measure(const std::vector<Config>& configs) override {
    asked += configs.size();
    std::vector<Measurement> out(configs.size());
    for (Measurement& m : out) m.status = TrialStatus::Ok, m.speed = 1.0;
    return out;
  }
  std::size_t asked = 0;
};

// A GPU convolution's trials stored before its space had split_k (2026-12-04) are found under the
// text the space writes now, split_k=1 (how their kernels were built), and not measured again;
// where both texts have a trial, the later run's is the answer.
TEST(HistoryReuse, ATrialStoredBeforeAParameterJoinedTheSpaceIsStillFound) {
  const SearchSpace space = defaultSpace(preset("resnet18_conv5_b1"), SpaceTarget::Gpu);
  const std::string old =
      "tile_f=32,1,8,2; tile_y=1,1,7,1; tile_x=1,1,7,1; tile_rc=4,128; tile_ry=1,3; tile_rx=3,1; "
      "auto_unroll_max_step=512; unroll_explicit=1";
  const std::string twice =
      "tile_f=16,1,8,4; tile_y=1,1,7,1; tile_x=1,1,7,1; tile_rc=64,8; tile_ry=1,3; tile_rx=1,3; "
      "auto_unroll_max_step=512; unroll_explicit=1";
  auto answer = [](double speed, std::int64_t run) {
    Measurement m;
    m.status = TrialStatus::Ok;
    m.speed = speed;
    return std::pair{m, run};
  };
  History h;
  h.byConfig[old] = answer(1.3, 55);
  h.byConfig[twice] = answer(2.0, 60);
  h.byConfig[twice + "; split_k=1"] = answer(1.5, 58);
  h.byConfig["tile_q=1"] = answer(9.0, 3);  // another space's: left alone
  CountingMeasurer inner;
  HistoryMeasurer measurer(inner, space, std::move(h));
  const std::vector<Measurement> got =
      measurer.measure({space.parse(old), space.parse(twice), space.parse(old + "; split_k=2")});
  ASSERT_EQ(got.size(), 3u);
  EXPECT_TRUE(got[0].reused);
  EXPECT_DOUBLE_EQ(got[0].speed, 1.3);
  EXPECT_TRUE(got[1].reused);
  EXPECT_DOUBLE_EQ(got[1].speed, 2.0);  // run 60's, not run 58's
  EXPECT_FALSE(got[2].reused);          // split_k 2 was never measured
  EXPECT_EQ(inner.asked, 1u);
}

TEST(HistoryReuse, ReusedTrialsCarryOneNote) {
  EXPECT_EQ(reusedMessage("", 4), "from history: run 4");
  EXPECT_EQ(reusedMessage("error: no", 4), "from history: run 4; error: no");
  // Reused from a run that reused it: the run that measured it.
  EXPECT_EQ(reusedMessage("from history: run 1", 4), "from history: run 1");
  EXPECT_EQ(reusedMessage("from history: run 97; from history: run 96; from history: run 1; "
                          "error: no",
                          98),
            "from history: run 1; error: no");
}

// Read back, a reused trial is what the live run saw: reused, costing the device nothing, though
// it keeps the build time of the run that measured it (a resume's device clock, and the
// device_seconds of an exported trials.csv, once charged it that build again).
TEST(HistoryReuse, AStoredReusedTrialIsReadBackAsReusedAndCostsNoDeviceTime) {
  TrialRow reused = trial(1, "tile=4", TrialStatus::Ok, 2.0, reusedMessage("", 4));
  reused.compileMs = 500;
  EXPECT_TRUE(measurementOf(reused).reused);
  EXPECT_EQ(deviceMs(measurementOf(reused)), 0.0);
  TrialRow own = trial(2, "tile=8", TrialStatus::Ok, 2.0, "error: once from history: run 4");
  own.compileMs = 500;
  own.measureMs = 20;
  EXPECT_FALSE(measurementOf(own).reused);
  EXPECT_EQ(deviceMs(measurementOf(own)), 520.0);
}

TEST(HistoryReuse, WarmStartLearnsFromTheLatestOfABoundedNumberOfConfigurations) {
  const SearchSpace space = defaultSpace(preset("MM1"));
  const std::vector<std::string> c = configsOf(space, 4);
  const test::TempDir dir;
  Store store(dir.file("runs.db"));
  const std::int64_t first = store.createRunWithTrials(
      cpuRun(), {trial(1, c[0], TrialStatus::Ok, 1), trial(2, c[1], TrialStatus::Ok, 2)});
  store.createRunWithTrials(cpuRun(),
                            {trial(1, c[2], TrialStatus::Ok, 3), trial(2, c[0], TrialStatus::Ok, 4),
                             trial(3, c[3], TrialStatus::CompileError)});
  const History h = loadHistory(store, *store.run(first), 0);
  ASSERT_EQ(h.inOrder.size(), 5u);
  // The three most recent distinct configurations, each with its latest measurement, oldest
  // first: c[1] (run 1) is left out, c[0] counts once, at run 2's speed.
  const WarmStart warm = warmStartFrom(h, space, "runs.db", 3);
  ASSERT_EQ(warm.observations.size(), 3u);
  EXPECT_EQ(space.format(warm.observations[0].config), c[2]);
  EXPECT_EQ(space.format(warm.observations[1].config), c[0]);
  EXPECT_EQ(warm.observations[1].fitness, 4);
  EXPECT_EQ(space.format(warm.observations[2].config), c[3]);
  EXPECT_EQ(warm.observations[2].fitness, 0);
  EXPECT_TRUE(warm.unreadable.empty());
  EXPECT_GE(kWarmStartLimit, 1000u);
  // A history kept for the warm start alone reads only the newest runs it needs.
  HistoryOptions latest;
  latest.latestConfigs = 2;
  EXPECT_EQ(loadHistory(store, *store.run(first), 0, latest).inOrder.size(), 3u);
  latest.latestConfigs = 4;
  EXPECT_EQ(loadHistory(store, *store.run(first), 0, latest).inOrder.size(), 5u);
}

TEST(HistoryReuse, ADamagedConfigurationCostsItsTrialWithOneLine) {
  const SearchSpace space = defaultSpace(preset("MM1"));
  const std::vector<std::string> c = configsOf(space, 3);
  std::string damaged = c[1];
  damaged[damaged.find('=') + 1] = '\xff';
  std::string alsoDamaged = c[2];
  alsoDamaged[alsoDamaged.find('=') + 1] = '\xff';
  const test::TempDir dir;
  Store store(dir.file("runs.db"));
  const std::int64_t id = store.createRunWithTrials(
      cpuRun(), {trial(1, c[0], TrialStatus::Ok, 1), trial(2, damaged, TrialStatus::Ok, 2),
                 trial(3, alsoDamaged, TrialStatus::Ok, 3)});
  const WarmStart warm = warmStartFrom(loadHistory(store, *store.run(id), 0), space, "runs.db");
  ASSERT_EQ(warm.observations.size(), 1u);
  ASSERT_EQ(warm.unreadable.size(), 1u);
  const std::string& line = warm.unreadable[0];
  EXPECT_EQ(line.rfind("skipped 2 unreadable trials of run 1 in runs.db (column config of trials "
                       "2, 3; trial 2: ",
                       0),
            0u)
      << line;
  EXPECT_NE(line.find("\\xff"), std::string::npos) << line;
  EXPECT_TRUE(isUtf8(line));
}

TEST(HistoryReuse, InvalidUtf8IsShownEscaped) {
  EXPECT_TRUE(isUtf8("tile_n=2,2,32,4 \u2026"));
  EXPECT_FALSE(isUtf8("tile_n=\xff,2"));
  EXPECT_EQ(escapeInvalidUtf8("tile_n=\xff,2"), "tile_n=\\xff,2");
  EXPECT_EQ(escapeInvalidUtf8("a \u2026 b"), "a \u2026 b");
  EXPECT_EQ(escapeInvalidUtf8("\xc0\xaf"), "\\xc0\\xaf");           // overlong '/'
  EXPECT_EQ(escapeInvalidUtf8("x\xe2\x80"), "x\\xe2\\x80");         // cut short
  EXPECT_EQ(escapeInvalidUtf8("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
}

TEST(HistoryReuse, AT4ExportOfADamagedRunSaysWhatItEscaped) {
  RunRecord run = cpuRun();
  run.id = 3;
  const std::vector<TrialRow> trials = {trial(1, "a=1", TrialStatus::Ok, 1),
                                        trial(2, "a=\xff", TrialStatus::Ok, 2)};
  std::vector<std::string> notes;
  std::string text;
  EXPECT_NO_THROW(text = runToT4(run, trials, &notes).dump());
  EXPECT_NE(text.find(R"("a":"\\xff")"), std::string::npos) << text;
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].rfind("run 3 trial 2: its config is not valid UTF-8", 0), 0u) << notes[0];
}

TEST(HistoryReuse, AMissingWorkerIsSaidWithWhereItWasLookedFor) {
  EXPECT_FALSE(WorkerClient::missingWorker("/bin/sh"));
  const auto missing = WorkerClient::missingWorker("/nonexistent/opevo-worker");
  ASSERT_TRUE(missing);
  EXPECT_NE(missing->find("OPEVO_WORKER"), std::string::npos) << *missing;
  const auto notOnPath = WorkerClient::missingWorker("opevo-worker-that-is-nowhere");
  ASSERT_TRUE(notOnPath);
  EXPECT_NE(notOnPath->find("then on PATH"), std::string::npos) << *notOnPath;
}

}  // namespace
}  // namespace opevo
