#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/child_process.h"
#include "file_bytes.h"
#include "probe/backend_probe.h"
#include "run_process.h"
#include "store/store.h"

namespace opevo::test {
namespace {

namespace fs = std::filesystem;

struct Dir {
  fs::path path;
  Dir() {
    char pattern[] = "/tmp/opevo-tune-XXXXXX";
    path = mkdtemp(pattern);
    setenv("XDG_CACHE_HOME", (path / "cache").c_str(), 1);
  }
  ~Dir() { fs::remove_all(path); }
  std::string file(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
    return (path / name).string();
  }
};

TEST(CliTune, CpuKeepsTheFastestVerifiedConfiguration) {
  Dir dir;
  const std::string op = dir.file("mm.json", R"({"name": "mm96", "kind": "matmul",
      "shape": {"n": 96, "m": 128, "k": 64}})");
  const std::string db = (dir.path / "runs.db").string();
  const auto r = runProcess(OPEVO_CLI, {"tune", "--op", op, "--backend", "cpu", "--trials", "12",
                                        "--seed", "2", "--db", db, "--min-time-ms", "5", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto result = nlohmann::json::parse(r.out);
  EXPECT_EQ(result["trials"], 12);
  EXPECT_EQ(result["reference_library"], "OpenBLAS sgemm");
  EXPECT_FALSE(result["replay"].get<bool>());
  // After the run, the best kernel and OpenBLAS timed in turns (5 rounds by default); those
  // timings are not trials (the run keeps its 12 below).
  const auto& side = result.at("side_by_side");
  EXPECT_EQ(side["library"], "OpenBLAS sgemm");
  EXPECT_EQ(side["rounds"], 5);
  EXPECT_GT(side["best_speed"].get<double>(), 0);
  EXPECT_GT(side["reference_speed"].get<double>(), 0);
  EXPECT_NEAR(side["ratio"].get<double>(),
              side["best_speed"].get<double>() / side["reference_speed"].get<double>(), 1e-9);
  // The run's three best configurations took turns; the one reported is among them.
  EXPECT_EQ(side["candidates"], 3);
  EXPECT_GE(side["chosen_rank"].get<int>(), 1);
  EXPECT_LE(side["chosen_rank"].get<int>(), 3);
  EXPECT_FALSE(side["config"].get<std::string>().empty());
  ASSERT_EQ(side["candidate_speeds"].size(), 3u);
  EXPECT_DOUBLE_EQ(side["candidate_speeds"][side["chosen_rank"].get<int>() - 1].get<double>(),
                   side["best_speed"].get<double>());

  const auto shown = runProcess(
      OPEVO_CLI, {"show", std::to_string(result["run"].get<int>()), "--db", db, "--json"});
  ASSERT_EQ(shown.status, 0) << shown.err;
  const auto run = nlohmann::json::parse(shown.out);
  ASSERT_EQ(run["trials"].size(), 12u);
  EXPECT_EQ(run["run"]["status"], "finished");
  int verified = 0;
  for (const auto& t : run["trials"]) verified += t["status"] == "ok";
  EXPECT_GE(verified, 6);  // every "ok" trial passed the check against OpenBLAS first
  // The best reported is the fastest verified trial, and the search measured configurations of
  // different speeds. (Not "faster than the first": at 12 trials on a loaded machine the first
  // kernel, the template's start point, is sometimes the fastest one measured.)
  double fastest = 0;
  double slowest = 0;
  for (const auto& t : run["trials"])
    if (t["status"] == "ok") {
      const double speed = t["speed"];
      fastest = std::max(fastest, speed);
      slowest = slowest == 0 ? speed : std::min(slowest, speed);
    }
  EXPECT_DOUBLE_EQ(result["best_speed"].get<double>(), fastest);
  EXPECT_GT(fastest, slowest);
  // The text says the stored reference too (it was only in --json).
  const auto text =
      runProcess(OPEVO_CLI, {"show", std::to_string(result["run"].get<int>()), "--db", db});
  EXPECT_NE(text.out.find("reference (OpenBLAS sgemm): "), std::string::npos) << text.out;
}

// `opevo tune ARGS` in the background, its stdout and stderr in one log of dir's, for a test that
// signals it once the log shows how far it got.
struct LoggedTune {
  std::string log;
  pid_t pid = 0;
  LoggedTune(const Dir& dir, std::vector<std::string> args) : log((dir.path / "out.txt").string()) {
    ChildStreams streams;
    streams.stdoutFile = log;
    streams.stderrToStdout = true;
    args.insert(args.begin(), {OPEVO_CLI, "tune"});
    pid = startChild(args, streams);
  }
  std::string text() const { return fileBytes(log); }
  // Until the log says `what`, two minutes at most.
  void waitFor(const std::string& what) const {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (text().find(what) == std::string::npos && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
};

// Ctrl-C while the run's best and OpenBLAS are timed side by side after the trials: the round
// in hand ends, the rounds run so far are reported, the run stays finished, and the exit status
// is the shell's for Ctrl-C.
TEST(CliTune, CtrlCEndsTheSideBySideTimingWithTheRoundsItRan) {
  Dir dir;
  const std::string op = dir.file("mm.json", R"({"name": "mm96", "kind": "matmul",
      "shape": {"n": 96, "m": 128, "k": 64}})");
  const std::string db = (dir.path / "runs.db").string();
  const LoggedTune tune(dir, {"--op", op, "--backend", "cpu", "--trials", "2", "--db", db,
                              "--min-time-ms", "5", "--side-by-side", "400"});
  const pid_t pid = tune.pid;
  const auto text = [&] { return tune.text(); };
  tune.waitFor("side by side, 400 rounds");
  std::this_thread::sleep_for(std::chrono::seconds(3));  // a few rounds of about 0.7 s
  kill(pid, SIGINT);
  EXPECT_EQ(waitChild(pid), 130) << text();
  const std::string out = text();
  EXPECT_NE(out.find("ending the side-by-side timing after the round in hand"), std::string::npos)
      << out;
  EXPECT_NE(out.find("(stopped after "), std::string::npos) << out;
  EXPECT_NE(out.find(" of 400): best "), std::string::npos) << out;
  EXPECT_NE(out.find("interrupted: run 1 is stored finished"), std::string::npos) << out;
  const auto runs = runProcess(OPEVO_CLI, {"runs", "--db", db});
  EXPECT_NE(runs.out.find("finished"), std::string::npos) << runs.out;
}

// An interrupted run's resume hint repeats how it was timed: the store does not keep the
// measuring options, and a resume with the defaults once timed the rest differently (and ran the
// side-by-side timing a run had turned off).
TEST(CliTune, TheResumeHintKeepsHowTheRunWasTimed) {
  Dir dir;
  const std::string db = (dir.path / "runs.db").string();
  const LoggedTune tune(dir, {"--op", "MM1", "--backend", "cpu", "--trials", "100000", "--db", db,
                              "--min-time-ms", "5", "--timeout", "7", "--side-by-side", "0"});
  const pid_t pid = tune.pid;
  const auto text = [&] { return tune.text(); };
  tune.waitFor("trial 2/");
  kill(pid, SIGINT);
  EXPECT_EQ(waitChild(pid), 130) << text();  // 128 + SIGINT
  EXPECT_NE(text().find("resume with opevo tune --resume 1 --db " + db +
                        " --timeout 7 --min-time-ms 5 --side-by-side 0"),
            std::string::npos)
      << text();
}

// A joint run says which layouts it ended in and whether they are the start blocking's, where
// every fresh run begins (its first trial).
TEST(CliTune, JointModeReportsItsLayoutsAndWhetherTheyLeftTheStart) {
  Dir dir;
  const std::string op = dir.file("conv.json", R"({"name": "conv16", "kind": "conv2d", "shape":
      {"batch": 1, "in_channels": 16, "height": 12, "width": 12, "out_channels": 32,
       "kernel_h": 3, "kernel_w": 3, "stride": 1, "pad": 1}})");
  const std::string db = (dir.path / "runs.db").string();
  const auto r =
      runProcess(OPEVO_CLI, {"tune", "--op", op, "--backend", "cpu", "--mode", "joint", "--trials",
                             "10", "--seed", "1", "--db", db, "--min-time-ms", "2", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto result = nlohmann::json::parse(r.out);
  EXPECT_EQ(result["mode"], "joint");
  EXPECT_EQ(result["stage_boundary_trial"], 3);  // 30% of 10
  EXPECT_GE(result["layouts_tried"].get<int>(), 1);
  EXPECT_EQ(result["reference_library"].get<std::string>().rfind("oneDNN", 0), 0u)
      << result["reference_library"];
  for (const char* operand : {"input", "weight", "output"})
    EXPECT_FALSE(result["best_layouts"][operand].get<std::string>().empty()) << operand;
  const auto shown = runProcess(
      OPEVO_CLI, {"show", std::to_string(result["run"].get<int>()), "--db", db, "--json"});
  ASSERT_EQ(shown.status, 0) << shown.err;
  const auto trials = nlohmann::json::parse(shown.out)["trials"];
  ASSERT_FALSE(trials.empty());
  auto layoutPart = [](const std::string& config) {
    std::string out;
    std::size_t at = 0;
    while (at < config.size()) {
      std::size_t end = config.find("; ", at);
      if (end == std::string::npos) end = config.size();
      if (config.compare(at, 7, "layout.") == 0) out += config.substr(at, end - at) + ";";
      at = end + 2;
    }
    return out;
  };
  const std::string start = layoutPart(trials[0]["config"]);
  ASSERT_FALSE(start.empty());
  EXPECT_EQ(result["best_layout_is_start"].get<bool>(), layoutPart(result["best_config"]) == start)
      << result["best_config"] << " / " << start;
}

TEST(CliTune, ReplayBackendIsLabelled) {
  Dir dir;
  const auto r = runProcess(
      OPEVO_CLI,
      {"tune", "--backend",
       std::string("replay:") + OPEVO_DATASETS_DIR + "/convolution_milo/A100.json.gz", "--algo",
       "opevo", "--trials", "40", "--db", (dir.path / "r.db").string(), "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto result = nlohmann::json::parse(r.out);
  EXPECT_TRUE(result["replay"].get<bool>());
  EXPECT_FALSE(result.contains("side_by_side"));  // a replay has nothing to time again
  EXPECT_NE(result["device"].get<std::string>().find("replay"), std::string::npos);
  EXPECT_EQ(result["trials"], 40);
}

TEST(CliTune, BadInputExitsTwoWithAClearMessage) {
  Dir dir;
  const std::string db = (dir.path / "bad.db").string();
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--op", dir.file("zero.json", R"({"kind": "matmul", "shape": {"n": 0, "m": 4, "k": 4}})"),
        "--backend", "cpu", "--trials", "3"},
       "n must be a positive integer"},
      {{"--op", dir.file("typo.json", R"({"kind": "matmul", "shape": {"n": 4, "m": 4, "kk": 4}})"),
        "--backend", "cpu", "--trials", "3"},
       "unknown shape field 'kk'"},
      {{"--op",
        dir.file("empty.json", R"({"kind": "conv2d", "shape": {"in_channels": 3, "height": 4,
        "width": 4, "out_channels": 8, "kernel_h": 9, "kernel_w": 9}})"),
        "--backend", "cpu", "--trials", "3"},
       "output would be empty"},
      {{"--op", "MM1", "--backend", "tpu", "--trials", "3"}, "unknown backend 'tpu'"},
      {{"--op", "MM1", "--backend", "cpu"}, "budget"},
      {{"--op", "MM1", "--backend", "cpu", "--trials", "3", "--algo", "bayes"},
       "unknown algorithm"},
      // Every case before it was refused before opening the database: there is none to resume.
      {{"--resume", "99"}, "bad.db' does not exist"},
      // Sizes past what a kernel indexes or a machine allocates, refused before any trial.
      {{"--op", dir.file("wide.json", R"({"kind": "matmul", "shape": {"n": 4294967297, "m": 4,
        "k": 4}})"),
        "--backend", "cpu", "--trials", "3"},
       "n 4294967297 is larger than 2147483647"},
      {{"--op", dir.file("huge.json", R"({"kind": "matmul", "shape": {"n": 1000003, "m": 1000003,
        "k": 1000003}})"),
        "--backend", "cpu", "--trials", "3"},
       "A holds 1e+12 elements"},
      {{"--op", dir.file("wrap.json", R"({"kind": "matmul", "shape": {"n": 18446744073709551615,
        "m": 4, "k": 4}})"),
        "--backend", "cpu", "--trials", "3"},
       "shape field 'n' is too large"},
      {{"--op", dir.path.string(), "--backend", "cpu", "--trials", "3"},
       "is a folder, not an operator file"},
      // Options out of range, and --resume with what would change the run.
      {{"--op", "MM1", "--backend", "cpu", "--trials", "0"}, "--trials"},
      {{"--op", "MM1", "--backend", "cpu", "--trials", "3", "--target", "nan"}, "--target"},
      {{"--op", "MM1", "--backend", "cpu", "--trials", "3", "--timeout", "0"}, "--timeout"},
      {{"--op", "MM1", "--backend", "cpu", "--trials", "3", "--min-time-ms", "-5"},
       "--min-time-ms"},
      {{"--op", "MM1", "--backend", "cpu", "--trials", "3", "--seed", "-1"}, "--seed"},
      // Hexadecimal is not read as the decimal nobody typed.
      {{"--op", "MM1", "--backend", "cpu", "--seconds", "0x10"}, "--seconds"},
      {{"--op", "MM1", "--backend", "cpu", "--trials", "0x10"},
       "--trials: must be a whole number from 1 to 1000000000, got 0x10"},
      {{"--op", "MM1", "--backend", "cpu", "--trials", "3", "--compile-threads", "0x2"},
       "--compile-threads: must be a whole number from 1 to 256, got 0x2"},
      {{"--op", "MM1", "--backend", "cpu", "--trials", "3", "--algo", "opevo", "--set",
        "opevo.lambda=0x4"},
       "lambda=0x4 is not a number"},
      {{"--op", "MM1", "--backend", "cpu", "--trials", "3", "--algo", "opevo", "--set",
        "autotvm.batch=4"},
       "belongs to autotvm, but the algorithm is opevo"},
      {{"--resume", "1", "--seed", "12"}, "--seed"},
      {{"--backend", std::string("replay:") + OPEVO_DATASETS_DIR + "/convolution_milo/A100.json.gz",
        "--op", "MM1", "--trials", "3"},
       "drop --op MM1"},
  };
  for (const auto& [args, mentions] : cases) {
    std::vector<std::string> all = {"tune", "--db", db};
    all.insert(all.end(), args.begin(), args.end());
    const auto r = runProcess(OPEVO_CLI, all);
    EXPECT_EQ(r.status, 2) << args[1] << ": " << r.err;
    EXPECT_NE(r.err.find(mentions), std::string::npos) << r.err;
  }
  // A refused command writes nothing: an unknown algorithm or a bad setting once left an empty
  // database (and its folders) behind.
  EXPECT_FALSE(std::filesystem::exists(db)) << db;
}

// `--set` takes a setting as `opevo tuners` lists it (opevo.q) as well as bare (q).
TEST(CliTune, ASettingMayNameItsAlgorithm) {
  Dir dir;
  const auto r = runProcess(
      OPEVO_CLI, {"tune", "--backend",
                  std::string("replay:") + OPEVO_DATASETS_DIR + "/convolution_milo/A100.json.gz",
                  "--algo", "opevo", "--set", "opevo.q=0.7", "--trials", "10", "--db",
                  (dir.path / "s.db").string(), "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["trials"], 10);
}

// Commands that read the store refuse a database that is not there rather than create it (and
// its folders) empty.
TEST(CliTune, ReadingAMissingDatabaseNamesIt) {
  Dir dir;
  const std::string db = (dir.path / "no" / "such.db").string();
  for (const std::vector<std::string>& args : {std::vector<std::string>{"runs", "--db", db},
                                               {"show", "1", "--db", db},
                                               {"net", "runs", "--db", db},
                                               {"tune", "--resume", "1", "--db", db}}) {
    const auto r = runProcess(OPEVO_CLI, args);
    EXPECT_EQ(r.status, 2) << args[0] << ": " << r.err;
    // Its folder is missing too, which is named first (--db's own check).
    EXPECT_NE(r.err.find("--db: names a file in '" + (dir.path / "no").string() +
                         "', which is not a folder here"),
              std::string::npos)
        << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(dir.path / "no"));
  // In a folder that is there, the file itself is named.
  const std::string missing = (dir.path / "such.db").string();
  const auto none = runProcess(OPEVO_CLI, {"runs", "--db", missing});
  EXPECT_EQ(none.status, 2);
  EXPECT_NE(none.err.find("database '" + missing + "' does not exist"), std::string::npos)
      << none.err;
  EXPECT_FALSE(std::filesystem::exists(missing));
  // An empty file is not turned into a database by a command that only reads.
  const std::string empty = (dir.path / "empty.db").string();
  std::ofstream{empty};
  const auto r = runProcess(OPEVO_CLI, {"runs", "--db", empty});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("database '" + empty + "' is an empty file"), std::string::npos) << r.err;
  EXPECT_EQ(std::filesystem::file_size(empty), 0u);
}

// The user's data folder cannot be created (a path under /proc: not even root can): the run is
// refused before anything is measured, naming the folder.
TEST(CliTune, AnUnwritableDataFolderIsNamedBeforeAnyTrial) {
  const auto r = runProcess(
      "env", {"XDG_DATA_HOME=/proc/opevo-unwritable", OPEVO_CLI, "tune", "--backend",
              std::string("replay:") + OPEVO_DATASETS_DIR + "/convolution_milo/A100.json.gz",
              "--trials", "3"});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("/proc/opevo-unwritable/opevo-studio"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("trial 1"), std::string::npos) << r.out;
}

// On a machine without the backend's device, asking for it is a usage error (exit status 2) that
// says what is missing and names what is available; with one, the gpu-labelled tests cover
// tuning on it.
void expectRefusedWithoutDevice(const std::string& backend, const std::string& missing) {
  for (const auto& b : probeBackends())
    if (b.name == backend && b.available)
      GTEST_SKIP() << "this machine has a " << backend << " device";
  Dir dir;
  const auto r = runProcess(OPEVO_CLI, {"tune", "--db", (dir.path / "c.db").string(), "--op", "MM1",
                                        "--backend", backend, "--trials", "3"});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find("backend '" + backend + "' is not available"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(missing), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("available: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cpu"), std::string::npos) << r.err;
}

TEST(CliTune, CudaWithoutADriverExitsTwoListingAvailableBackends) {
  expectRefusedWithoutDevice("cuda", "NVIDIA");
}

TEST(CliTune, HipWithoutADeviceExitsTwoListingAvailableBackends) {
  // "no HIP runtime (tried ...)" without libamdhip64, "no HIP device: ..." with it.
  expectRefusedWithoutDevice("hip", "HIP");
}

TEST(CliDevices, ListsHipWithItsReason) {
  const auto r = runProcess(OPEVO_CLI, {"devices", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  bool listed = false;
  for (const auto& b : j["backends"]) {
    if (b["backend"] != "hip") continue;
    listed = true;
    if (!b["available"].get<bool>())
      EXPECT_FALSE(b["reason"].get<std::string>().empty()) << b.dump();
    else
      EXPECT_FALSE(b["devices"].empty()) << b.dump();
  }
  EXPECT_TRUE(listed) << r.out;
}

// opevo runs lists each run's status with why it ended (as the window does), its best with its
// unit, "-" where no trial worked (a 0 read as a measured speed), columns as wide as their
// entries; --json the same as an array.
TEST(CliRuns, ListsWhyEachRunEndedAndNoBestWithoutAWorkingTrial) {
  Dir dir;
  const std::string db = (dir.path / "runs.db").string();
  {
    Store store(db);
    RunRecord r;
    r.operatorName = "mm_a";
    r.algorithm = "opevo-m";
    r.backend = "replay-import";
    r.speedUnit = "1/ms";
    r.settingsJson = r.budgetJson = "{}";
    r.started = Store::nowUtc();
    const std::int64_t done = store.createRun(r);
    TrialRow t;
    t.runId = done;
    t.seq = t.order = 1;
    t.config = "x=1";
    t.speed = 12.5;
    t.medianMs = 1;
    store.appendTrial(t);
    store.setRunStatus(done, RunStatus::Finished, EndReason::Trials);
    const std::int64_t stopped = store.createRun(r);
    store.setRunStatus(stopped, RunStatus::Interrupted, EndReason::Stopped);
  }
  const auto r = runProcess(OPEVO_CLI, {"runs", "--db", db});
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<std::string> lines;
  for (std::size_t at = 0, next; at < r.out.size(); at = next + 1) {
    next = r.out.find('\n', at);
    if (next == std::string::npos) next = r.out.size();
    lines.push_back(r.out.substr(at, next - at));
  }
  ASSERT_GE(lines.size(), 3u) << r.out;
  EXPECT_NE(lines[1].find("finished (trials)"), std::string::npos) << r.out;
  EXPECT_NE(lines[1].find(" 12.5 1/ms "), std::string::npos) << r.out;
  EXPECT_NE(lines[2].find("interrupted (stopped)"), std::string::npos) << r.out;
  EXPECT_NE(lines[2].find("       0  -  "), std::string::npos) << r.out;
  // Each column starts where its header does.
  EXPECT_EQ(lines[0].find("backend"), lines[1].find("replay-import")) << r.out;
  EXPECT_EQ(lines[0].find("status"), lines[1].find("finished")) << r.out;
  EXPECT_EQ(lines[0].find("started"), lines[2].find(Store::nowUtc().substr(0, 4))) << r.out;
  const auto j = runProcess(OPEVO_CLI, {"runs", "--json", "--db", db});
  ASSERT_EQ(j.status, 0) << j.err;
  const nlohmann::json all = nlohmann::json::parse(j.out);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0]["best_speed"], 12.5);
  EXPECT_EQ(all[0]["speed_unit"], "1/ms");
  EXPECT_EQ(all[0]["trials"], 1);
  EXPECT_TRUE(all[1]["best_speed"].is_null());
  EXPECT_EQ(all[1]["end_reason"], "stopped");
}

// An empty --db (an unset shell variable) fell back to OPEVO_DB or the user's database, and one in
// a mistyped folder made the folder and started a new history there.
TEST(CliRuns, AnEmptyDbOrOneInAMissingFolderIsRefused) {
  Dir dir;
  const auto empty = runProcess(OPEVO_CLI, {"runs", "--db", ""});
  EXPECT_EQ(empty.status, 2);
  EXPECT_NE(empty.err.find("--db: is empty"), std::string::npos) << empty.err;
  const std::string missing = (dir.path / "typo" / "runs.db").string();
  const auto tune = runProcess(
      OPEVO_CLI, {"tune", "--op", "MM1", "--backend", "cpu", "--trials", "1", "--db", missing});
  EXPECT_EQ(tune.status, 2);
  EXPECT_NE(tune.err.find("which is not a folder here"), std::string::npos) << tune.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path / "typo"));
}

// Options that cannot work together, or a preset in the wrong case, are named before anything
// is stored: --min-time-ms at or over the trial timeout killed every trial ("no configuration
// succeeded", status 0), and --history with --no-history took one of them.
TEST(CliTune, ClashingOptionsAndAMisspelledPresetAreNamed) {
  Dir dir;
  const std::string db = (dir.path / "runs.db").string();
  const auto slow =
      runProcess(OPEVO_CLI, {"tune", "--op", "MM1", "--backend", "cpu", "--trials", "1",
                             "--min-time-ms", "20000", "--timeout", "2", "--db", db});
  EXPECT_EQ(slow.status, 2);
  EXPECT_NE(slow.err.find("--min-time-ms 20000 is not under the trial timeout of 2 s"),
            std::string::npos)
      << slow.err;
  const auto both = runProcess(
      OPEVO_CLI, {"tune", "--op", "MM1", "--history", "--no-history", "--trials", "1", "--db", db});
  EXPECT_EQ(both.status, 2);
  EXPECT_NE(both.err.find("excludes"), std::string::npos) << both.err;
  const auto lower = runProcess(OPEVO_CLI, {"tune", "--op", "mm1", "--trials", "1", "--db", db});
  EXPECT_EQ(lower.status, 2);
  EXPECT_NE(lower.err.find("did you mean MM1?"), std::string::npos) << lower.err;
  EXPECT_FALSE(std::filesystem::exists(db)) << "nothing stored";
}

// A word that is no subcommand is named with the subcommands there are ("A subcommand is required"
// answered `opevo cluster agents`).
TEST(CliUsage, AWordThatIsNoSubcommandIsNamedWithTheOnesThereAre) {
  const auto r = runProcess(OPEVO_CLI, {"cluster", "agents"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("opevo cluster: 'agents' is no subcommand (serve, status;"),
            std::string::npos)
      << r.err;
  const auto none = runProcess(OPEVO_CLI, {"net"});
  EXPECT_EQ(none.status, 2);
  EXPECT_NE(none.err.find("opevo net: a subcommand is required (list, show,"), std::string::npos)
      << none.err;
  // Arguments a command takes none of: named as typed (CLI11 lists them last first).
  const auto extra = runProcess(OPEVO_CLI, {"space", "MM1", "--db", "x.db"});
  EXPECT_EQ(extra.status, 2);
  EXPECT_EQ(extra.err, "opevo space: did not expect --db x.db (see opevo space --help)\n");
}

// A replay run the window paced (its pace stored in its operator) goes on at that pace when the
// command line resumes it: its trials' tuning time grows by the pace, as its first ones did, not
// by the microseconds of an unpaced replay.
TEST(CliTune, AResumedReplayKeepsTheWindowsPace) {
  Dir dir;
  const std::string db = (dir.path / "runs.db").string();
  const std::string dataset = std::string(OPEVO_DATASETS_DIR) + "/gemm/RTX_2080_Ti.json.gz";
  const auto first = runProcess(OPEVO_CLI, {"tune", "--backend", "replay:" + dataset, "--algo",
                                            "random", "--trials", "10", "--db", db});
  ASSERT_EQ(first.status, 0) << first.err;
  {
    sqlite3* handle = nullptr;
    ASSERT_EQ(sqlite3_open(db.c_str(), &handle), SQLITE_OK);
    // As the window stores a race at 20 ms a trial, killed after 10 of its 20.
    ASSERT_EQ(sqlite3_exec(handle,
                           "UPDATE runs SET operator_json = json_set(operator_json, '$.pace_ms', "
                           "20), status = 'interrupted', end_reason = 'stopped', budget_json = "
                           "'{\"trials\":20}'",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(handle);
  }
  const auto resumed = runProcess(OPEVO_CLI, {"tune", "--resume", "1", "--db", db});
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  const std::vector<TrialRow> trials = Store(db).trials(1);
  ASSERT_EQ(trials.size(), 20u);
  EXPECT_GE(trials[19].seconds - trials[9].seconds, 10 * 0.020 * 0.99)
      << trials[9].seconds << " -> " << trials[19].seconds;
}

TEST(CliRuns, ACorruptDatabaseIsRefusedAndUntouched) {
  Dir dir;
  const std::string db = dir.file("notes.db", "my notes, not a database");
  const auto r = runProcess(OPEVO_CLI, {"runs", "--db", db});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("not an SQLite file"), std::string::npos) << r.err;
  EXPECT_EQ(fileBytes(db), "my notes, not a database");
}

}  // namespace
}  // namespace opevo::test
