// What a new user's walk of CPU tuning in loop and joint mode found: a joint run's settings were
// not stored (its resume went back to the defaults), nothing said whether a run was loop or joint,
// the joint settings were listed nowhere, a run whose every trial failed exited 0 without a word
// of why, a finished run's resume did not say how to get more trials, and `show` cut messages
// mid-phrase and said the reference was timed after trials it was timed before.

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "run_process.h"
#include "store/store.h"

namespace opevo::test {
namespace {

namespace fs = std::filesystem;

struct Dir {
  fs::path path;
  Dir() {
    char pattern[] = "/tmp/opevo-joint-walk-XXXXXX";
    path = mkdtemp(pattern);
    setenv("XDG_CACHE_HOME", (path / "cache").c_str(), 1);
  }
  ~Dir() { fs::remove_all(path); }
  std::string file(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
    return (path / name).string();
  }
  std::string db() const { return (path / "runs.db").string(); }
};

void sql(const std::string& db, const std::string& statement) {
  sqlite3* handle = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &handle), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(handle, statement.c_str(), nullptr, nullptr, nullptr), SQLITE_OK)
      << sqlite3_errmsg(handle);
  sqlite3_close(handle);
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(CliJointWalk, AJointRunKeepsItsSettingsAndSaysItsMode) {
  Dir dir;
  const std::string op = dir.file("conv.json", R"({"name": "conv16", "kind": "conv2d", "shape":
      {"batch": 1, "in_channels": 16, "height": 12, "width": 12, "out_channels": 32,
       "kernel_h": 3, "kernel_w": 3, "stride": 1, "pad": 1}})");
  const std::string db = dir.db();
  const auto first =
      runProcess(OPEVO_CLI, {"tune", "--op", op, "--backend", "cpu", "--mode", "joint", "--trials",
                             "4", "--set", "joint.share=0.9", "--db", db, "--min-time-ms", "2",
                             "--side-by-side", "0", "--json"});
  ASSERT_EQ(first.status, 0) << first.err;
  // As a run killed after 4 of its 10 trials is stored.
  sql(db,
      "UPDATE runs SET status = 'interrupted', end_reason = 'stopped', budget_json = "
      "'{\"trials\":10}'");
  const auto resumed = runProcess(OPEVO_CLI, {"tune", "--resume", "1", "--db", db, "--min-time-ms",
                                              "2", "--side-by-side", "0", "--json"});
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  // 90% of 10 with the stored share; the default 30% (its settings were stored as {}) made the
  // resume leave the joint stage at once, after the 4 stored trials.
  EXPECT_EQ(nlohmann::json::parse(resumed.out)["stage_boundary_trial"], 9) << resumed.out;

  const auto shown = runProcess(OPEVO_CLI, {"show", "1", "--db", db});
  ASSERT_EQ(shown.status, 0) << shown.err;
  EXPECT_TRUE(has(shown.out, ", mode joint, seed 1, finished (trials)")) << shown.out;
  EXPECT_TRUE(has(shown.out, "\"joint.share\":0.9")) << shown.out;
  const auto json = runProcess(OPEVO_CLI, {"show", "1", "--db", db, "--json"});
  ASSERT_EQ(json.status, 0) << json.err;
  EXPECT_EQ(nlohmann::json::parse(json.out)["run"]["mode"], "joint");
  const auto runs = runProcess(OPEVO_CLI, {"runs", "--db", db});
  ASSERT_EQ(runs.status, 0) << runs.err;
  EXPECT_TRUE(has(runs.out, " mode ")) << runs.out;
  EXPECT_TRUE(has(runs.out, " joint ")) << runs.out;
}

// A Conv2D file overriding unroll_c (a parameter of the joint template only) was refused under
// --mode joint with the loop template's parameters: the overrides were checked before the mode.
TEST(CliJointWalk, AFilesOverridesAreCheckedAgainstTheModeGiven) {
  Dir dir;
  const std::string op = dir.file("conv.json", R"({"name": "conv16", "kind": "conv2d", "shape":
      {"batch": 1, "in_channels": 16, "height": 12, "width": 12, "out_channels": 32,
       "kernel_h": 3, "kernel_w": 3, "stride": 1, "pad": 1},
      "space": {"unroll_c": "choice:1,2"}})");
  const auto r = runProcess(
      OPEVO_CLI, {"tune", "--op", op, "--backend", "cpu", "--mode", "joint", "--trials", "1",
                  "--min-time-ms", "2", "--side-by-side", "0", "--db", dir.db(), "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["mode"], "joint");
}

TEST(CliJointWalk, ARunWhoseEveryTrialFailedSaysWhyAndExitsOne) {
  Dir dir;
  const std::string db = dir.db();
  // No worker answers within a millisecond.
  const auto r =
      runProcess(OPEVO_CLI, {"tune", "--op", "MM1", "--backend", "cpu", "--trials", "3",
                             "--timeout", "0.001", "--min-time-ms", "0", "--db", db, "--json"});
  EXPECT_EQ(r.status, 1) << r.err;
  const auto out = nlohmann::json::parse(r.out);
  EXPECT_EQ(out["failed_trials"]["timeout"], 3) << r.out;
  EXPECT_TRUE(has(r.err, "all 3 trials failed: 3 timed out (--timeout 0.001 s)")) << r.err;
  // With how long the library, timed after the run, takes a run of the operator: what a limit
  // must leave room for.
  const std::string library = out["reference_library"];
  const std::string error = out["error"];
  EXPECT_TRUE(has(error, "s); " + library + " takes ")) << error;
  EXPECT_TRUE(has(r.err, error)) << r.err;
  // Its time a run, from the speed the run reports, and ten times that.
  std::smatch said;
  ASSERT_TRUE(std::regex_search(error, said,
                                std::regex(" takes ([0-9.]+) (ms|s) a run of it here, and a kernel "
                                           "of a tenth of its speed ([0-9.]+) (ms|s)$")))
      << error;
  const auto seconds = [&](int at) {
    return std::stod(said[at].str()) * (said[at + 1].str() == "ms" ? 1e-3 : 1.0);
  };
  const double flops = 2.0 * 512 * 1024 * 1024;  // MM1
  EXPECT_NEAR(seconds(1), flops / (out["reference_speed"].get<double>() * 1e9), 0.01 * seconds(1));
  EXPECT_NEAR(seconds(3), 10 * seconds(1), 0.01 * seconds(3));

  // Finished: its resume says how to get more trials.
  const auto again = runProcess(OPEVO_CLI, {"tune", "--resume", "1", "--db", db});
  EXPECT_EQ(again.status, 2) << again.err;
  EXPECT_TRUE(has(again.err, "already finished (trials;")) << again.err;
  EXPECT_TRUE(has(again.err, "opevo tune --resume 1 --trials 103 --db " + db)) << again.err;
}

TEST(CliJointWalk, TheJointSettingsAreListedAndNamedForTheirMode) {
  const auto text = runProcess(OPEVO_CLI, {"tuners"});
  ASSERT_EQ(text.status, 0) << text.err;
  for (const char* s : {"joint.share = 0.3", "joint.layout_trials = 2", "joint.cross = 1"})
    EXPECT_TRUE(has(text.out, s)) << s;
  const auto json = runProcess(OPEVO_CLI, {"tuners", "--json"});
  ASSERT_EQ(json.status, 0) << json.err;
  for (const auto& t : nlohmann::json::parse(json.out)) {
    std::set<std::string> names;
    for (const auto& s : t.at("joint_mode_settings")) names.insert(s.at("name"));
    EXPECT_TRUE(names.count("joint.share")) << t.at("name");
  }
  Dir dir;
  const auto loop = runProcess(OPEVO_CLI, {"tune", "--op", "MM1", "--backend", "cpu", "--trials",
                                           "3", "--set", "joint.share=0.5", "--db", dir.db()});
  EXPECT_EQ(loop.status, 2) << loop.err;
  EXPECT_TRUE(has(loop.err,
                  "'joint.share' applies only when layouts are tuned with the loops "
                  "(--mode joint)"))
      << loop.err;
  EXPECT_FALSE(fs::exists(dir.db())) << "refused before the database was made";
}

TEST(CliJointWalk, ShowMarksACutMessageAndWhenTheReferenceWasTimed) {
  Dir dir;
  const std::string db = dir.db();
  const std::string message =
      "the kernel ran past its time, so the trial is given up, and the worker exits to end it "
      "before the next trial starts on a fresh worker with the next configuration of the batch";
  {
    Store store(db);
    RunRecord r;
    r.operatorName = "MM1";
    r.operatorJson = R"({"name":"MM1","kind":"matmul","shape":{"n":8,"k":8,"m":8}})";
    r.algorithm = "opevo-m";
    r.backend = "cpu";
    r.speedUnit = "GFLOP/s";
    r.settingsJson = "{}";
    r.budgetJson = R"({"trials":30})";
    r.started = Store::nowUtc();
    r.referenceLibrary = "OpenBLAS sgemm";
    r.referenceSpeed = 100.1;
    const std::int64_t id = store.createRun(r);
    TrialRow t;
    t.runId = id;
    t.seq = t.order = 1;
    t.config = "x=1";
    t.status = TrialStatus::Timeout;
    t.message = message;
    store.appendTrial(t);
    store.setRunStatus(id, RunStatus::Interrupted, EndReason::Stopped);
  }
  const auto shown = runProcess(OPEVO_CLI, {"show", "1", "--db", db});
  ASSERT_EQ(shown.status, 0) << shown.err;
  EXPECT_TRUE(has(shown.out, ", mode loop, ")) << shown.out;
  // Cut after a whole word, and marked.
  const std::size_t from = shown.out.find("  # "), to = shown.out.find("\u2026\n");
  ASSERT_NE(from, std::string::npos) << shown.out;
  ASSERT_NE(to, std::string::npos) << shown.out;
  const std::string kept = shown.out.substr(from + 4, to - from - 4);
  EXPECT_GT(kept.size(), 60u) << kept;
  EXPECT_EQ(message.rfind(kept, 0), 0u) << kept;
  EXPECT_EQ(message[kept.size()], ' ') << kept;
  EXPECT_FALSE(has(shown.out, "timed after the trials")) << shown.out;
  EXPECT_TRUE(has(shown.out, "timed when the run began")) << shown.out;
  const auto json = runProcess(OPEVO_CLI, {"show", "1", "--db", db, "--json"});
  EXPECT_EQ(nlohmann::json::parse(json.out)["trials"][0]["message"], message);
}

}  // namespace
}  // namespace opevo::test
