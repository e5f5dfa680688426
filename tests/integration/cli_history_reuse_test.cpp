// `opevo tune`'s use of earlier runs, as users met it: failures the environment caused were
// reused as the configuration's, one damaged byte in a stored configuration stopped every tune of
// the operator (and printed raw to the terminal, and broke export-t4), reused trials' notes grew
// with every run, and a missing worker left a failed run per attempt. Real binaries and SQLite
// files; the earlier runs are the CLI's own, copied with the Store where a test needs a failure
// that cannot be caused on purpose (a timeout under 0.2 s, a worker killed with kill -9).

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "engine/trial_failures.h"
#include "run_process.h"
#include "store/store.h"

namespace opevo::test {
namespace {

namespace fs = std::filesystem;

struct Folder {
  fs::path path;
  Folder() {
    char pattern[] = "/tmp/opevo-reuse-XXXXXX";
    path = mkdtemp(pattern);
  }
  ~Folder() { fs::remove_all(path); }
  std::string db() const { return (path / "runs.db").string(); }
};

const std::string kReplay =
    std::string("replay:") + OPEVO_DATASETS_DIR + "/convolution_milo/A100.json.gz";

ProcessResult opevo(const std::vector<std::string>& args) {
  return runProcess(OPEVO_CLI, args);
}

// Stores a copy of run `from` (same operator, backend, device and label) whose trials `change`
// rewrote, and deletes run `from` when asked: what a database holds after such trials.
std::int64_t storeCopy(const std::string& db, std::int64_t from,
                       const std::function<void(std::vector<TrialRow>&)>& change,
                       bool deleteOriginal) {
  Store store(db);
  const RunRecord run = *store.run(from);
  std::vector<TrialRow> trials = store.trials(from);
  change(trials);
  const std::int64_t id = store.createRunWithTrials(run, trials);
  if (deleteOriginal) store.deleteRuns({from});
  return id;
}

TEST(CliHistoryReuse, FailuresTheEnvironmentCausedAreMeasuredAgain) {
  const Folder f;
  const std::vector<std::string> tune = {"tune",   "--op",           "MM1", "--backend",
                                         "cpu",    "--trials",       "2",   "--min-time-ms",
                                         "10",     "--side-by-side", "0",   "--no-warm-start",
                                         "--json", "--db",           f.db()};
  const ProcessResult first = opevo(tune);
  ASSERT_EQ(first.status, 0) << first.err;
  // The same two configurations (same seed), stored as a 0.2 s timeout (the run's limit is 10 s)
  // and a worker killed with kill -9: neither says anything about its configuration.
  storeCopy(
      f.db(), 1,
      [](std::vector<TrialRow>& t) {
        ASSERT_EQ(t.size(), 2u);
        for (TrialRow& row : t) row.speed = 0, row.timesMs.clear(), row.medianMs = 0;
        t[0].status = TrialStatus::Timeout;
        t[0].message = workerTimeoutMessage(0.2);
        t[1].status = TrialStatus::RuntimeFault;
        t[1].message = workerSignalMessage(SIGKILL);
      },
      true);
  std::vector<std::string> again = tune;
  again.push_back("--history");
  const ProcessResult r = opevo(again);
  ASSERT_EQ(r.status, 0) << r.err;
  const auto out = nlohmann::json::parse(r.out);
  EXPECT_EQ(out["reused_from_history"], 0);
  EXPECT_TRUE(out.contains("best_config")) << r.out;
  // Both set aside, and said so (a user counting the earlier trials sees why none was reused).
  EXPECT_EQ(out["history_set_aside"], 2);
  std::vector<std::string> plain = again;
  plain.erase(std::find(plain.begin(), plain.end(), "--json"));
  const ProcessResult said = opevo(plain);
  ASSERT_EQ(said.status, 0) << said.err;
  EXPECT_NE(said.err.find("history: 2 failed trials of earlier runs set aside"), std::string::npos)
      << said.err;

  // A failure of the configuration's own (it does not compile) is reused, as is a success.
  storeCopy(
      f.db(), out["run"].get<std::int64_t>(),
      [](std::vector<TrialRow>& t) {
        t[1].status = TrialStatus::CompileError;
        t[1].message = "error: too many registers";
        t[1].speed = 0;
      },
      true);
  const ProcessResult third = opevo(again);
  ASSERT_EQ(third.status, 0) << third.err;
  const auto reused = nlohmann::json::parse(third.out);
  EXPECT_EQ(reused["reused_from_history"], 2);
  const auto shown = nlohmann::json::parse(
      opevo({"show", std::to_string(reused["run"].get<int>()), "--json", "--db", f.db()}).out);
  EXPECT_EQ(shown["trials"][1]["status"], "compile_error");
}

// A replay tuned by a relative path stored that path: the same file named absolutely (as the
// window and compare name it) was another operator, so its history was not reused.
TEST(CliHistoryReuse, AReplayByARelativePathAnswersTheSameFilesHistory) {
  const Folder f;
  const fs::path file = fs::path(OPEVO_DATASETS_DIR) / "convolution_milo" / "A100.json.gz";
  const std::string relative = fs::relative(file, fs::current_path()).string();
  ASSERT_FALSE(fs::path(relative).is_absolute());
  const auto tune = [&](const std::string& path) {
    return opevo({"tune", "--backend", "replay:" + path, "--algo", "random", "--seed", "3",
                  "--trials", "5", "--json", "--db", f.db()});
  };
  const ProcessResult first = tune(relative);
  ASSERT_EQ(first.status, 0) << first.err;
  const ProcessResult second = tune(file.string());
  ASSERT_EQ(second.status, 0) << second.err;
  EXPECT_EQ(nlohmann::json::parse(second.out)["reused_from_history"], 5) << second.out;
  EXPECT_EQ(Store(f.db()).run(1)->operatorJson, Store(f.db()).run(2)->operatorJson);
}

TEST(CliHistoryReuse, ADamagedStoredConfigurationCostsOnlyItsTrial) {
  const Folder f;
  const std::vector<std::string> tune = {"tune",     "--backend", kReplay, "--algo", "opevo-m",
                                         "--trials", "6",         "--db",  f.db()};
  ASSERT_EQ(opevo(tune).status, 0);
  // One byte of a stored configuration overwritten, as on a damaged disk.
  storeCopy(
      f.db(), 1,
      [](std::vector<TrialRow>& t) {
        ASSERT_GE(t.size(), 2u);
        t[1].config[t[1].config.find('=') + 1] = '\xff';
      },
      false);
  const ProcessResult r = opevo(tune);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("warning: skipped 1 unreadable trial of run 2 in " + f.db() +
                       " (column config of trial 2: "),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find('\xff'), std::string::npos);
  // No run was left behind "running".
  const ProcessResult runs = opevo({"runs", "--db", f.db()});
  EXPECT_EQ(runs.out.find("running"), std::string::npos) << runs.out;
  EXPECT_NE(runs.out.find("    3  "), std::string::npos) << runs.out;

  // Shown escaped, not as a raw byte; its JSON and a T4 export are written.
  const ProcessResult show = opevo({"show", "2", "--db", f.db()});
  ASSERT_EQ(show.status, 0) << show.err;
  EXPECT_EQ(show.out.find('\xff'), std::string::npos);
  EXPECT_NE(show.out.find("\\xff"), std::string::npos) << show.out;
  const ProcessResult json = opevo({"show", "2", "--json", "--db", f.db()});
  ASSERT_EQ(json.status, 0) << json.err;
  EXPECT_TRUE(nlohmann::json::accept(json.out)) << json.out;
  const std::string t4 = (f.path / "t4.json").string();
  const ProcessResult exported = opevo({"export-t4", "2", "--out", t4, "--db", f.db()});
  ASSERT_EQ(exported.status, 0) << exported.err;
  EXPECT_NE(exported.err.find("warning: run 2 trial 2: its config is not valid UTF-8"),
            std::string::npos)
      << exported.err;
  EXPECT_TRUE(fs::exists(t4));
}

// A damaged byte in a stored JSON column (settings, budget) printed "<discarded>" in show --json
// and runs --json, which no JSON reader takes: the column is given as its escaped text.
TEST(CliHistoryReuse, ADamagedJsonColumnStillGivesValidJson) {
  const Folder f;
  ASSERT_EQ(
      opevo({"tune", "--backend", kReplay, "--algo", "random", "--trials", "2", "--db", f.db()})
          .status,
      0);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(f.db().c_str(), &db), SQLITE_OK);
  ASSERT_EQ(
      sqlite3_exec(db, "UPDATE runs SET settings_json = CAST(X'7B2261223A2261FF227D' AS TEXT)",
                   nullptr, nullptr, nullptr),
      SQLITE_OK);
  sqlite3_close(db);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"show", "1", "--json", "--db", f.db()},
        std::vector<std::string>{"runs", "--json", "--db", f.db()}}) {
    const ProcessResult r = opevo(args);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(nlohmann::json::accept(r.out)) << r.out;
    EXPECT_EQ(r.out.find("discarded"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\\\\xff"), std::string::npos) << r.out;
  }
}

// A stored column that does not read as what it holds: a resume went on with the algorithm's
// default settings where the run's own were damaged, and a damaged configuration was refused as
// if the user had typed it ("configuration item 'garbage' has no '='"), naming no run or database.
TEST(CliHistoryReuse, ADamagedRunIsRefusedByNameNotResumedWithDefaults) {
  const Folder f;
  ASSERT_EQ(
      opevo({"tune", "--backend", kReplay, "--algo", "opevo", "--trials", "2", "--db", f.db()})
          .status,
      0);
  const auto exec = [&](const char* sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(f.db().c_str(), &db), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  };
  exec("UPDATE runs SET settings_json = '[1'");
  const std::vector<std::string> resume = {"tune", "--resume", "1",   "--trials",
                                           "3",    "--db",     f.db()};
  const ProcessResult settings = opevo(resume);
  EXPECT_EQ(settings.status, 2) << settings.err;
  EXPECT_NE(settings.err.find("run 1 of " + f.db() +
                              ": its stored settings are not a JSON object ([1): it cannot go on "
                              "as it was tuned (is the database damaged?)"),
            std::string::npos)
      << settings.err;
  EXPECT_EQ(Store(f.db()).trials(1).size(), 2u);

  exec("UPDATE runs SET settings_json = '{}'; UPDATE trials SET config = 'garbage'");
  const ProcessResult config = opevo(resume);
  EXPECT_EQ(config.status, 2) << config.err;
  EXPECT_NE(config.err.find("run 1 of " + f.db() +
                            ": the stored configuration of its trial 1 "
                            "does not read (configuration item 'garbage' has no '='"),
            std::string::npos)
      << config.err;
  EXPECT_NE(config.err.find("is the database damaged?"), std::string::npos) << config.err;
  EXPECT_EQ(Store(f.db()).trials(1).size(), 2u);

  // A kernel's export (a replay's writes its record alone, the configuration as text).
  const std::string op = (f.path / "mm.json").string();
  std::ofstream(op) << R"({"name": "mm", "kind": "matmul", "shape": {"n": 32, "m": 32, "k": 32}})";
  ASSERT_EQ(opevo({"tune", "--op", op, "--backend", "cpu", "--trials", "2", "--db", f.db(),
                   "--side-by-side", "0"})
                .status,
            0);
  exec("UPDATE trials SET config = 'garbage' WHERE run_id = 2");
  const ProcessResult exported =
      opevo({"export", "2", "--out", (f.path / "kernel").string(), "--db", f.db()});
  EXPECT_EQ(exported.status, 2) << exported.err;
  EXPECT_NE(exported.err.find("run 2: the stored configuration of its trial "), std::string::npos)
      << exported.err;
  EXPECT_FALSE(fs::exists(f.path / "kernel"));
}

TEST(CliHistoryReuse, AReusedTrialNamesTheRunThatMeasuredIt) {
  const Folder f;
  const std::vector<std::string> tune = {"tune",     "--backend", kReplay,  "--algo", "random",
                                         "--trials", "5",         "--json", "--db",   f.db()};
  for (int i = 0; i < 3; ++i) ASSERT_EQ(opevo(tune).status, 0);
  const auto shown = nlohmann::json::parse(opevo({"show", "3", "--json", "--db", f.db()}).out);
  ASSERT_EQ(shown["trials"].size(), 5u);
  for (const auto& t : shown["trials"]) {
    const std::string message = t["message"];
    EXPECT_EQ(message.rfind("from history: run 1", 0), 0u) << message;
    EXPECT_EQ(message.find("from history", 1), std::string::npos) << message;
  }
}

TEST(CliHistoryReuse, AMissingWorkerIsFoundBeforeARunIsStored) {
  const Folder f;
  const ProcessResult named =
      runProcess("env", {"OPEVO_WORKER=/nonexistent/opevo-worker", OPEVO_CLI, "tune", "--op", "MM1",
                         "--backend", "cpu", "--trials", "3", "--db", f.db()});
  EXPECT_EQ(named.status, 1);
  EXPECT_NE(named.err.find("OPEVO_WORKER is set to '/nonexistent/opevo-worker'"), std::string::npos)
      << named.err;
  EXPECT_FALSE(fs::exists(f.db())) << "no run, and no database, is left behind";

  // A CLI copied without its worker, on a PATH without one.
  const fs::path lone = f.path / "opevo";
  fs::copy_file(OPEVO_CLI, lone);
  const ProcessResult alone =
      runProcess("env", {"-u", "OPEVO_WORKER", "PATH=/usr/bin:/bin", lone.string(), "tune", "--op",
                         "MM1", "--backend", "cpu", "--trials", "3", "--db", f.db()});
  EXPECT_EQ(alone.status, 1);
  EXPECT_NE(alone.err.find("looked beside this program (" + (f.path / "opevo-worker").string() +
                           "), then on PATH"),
            std::string::npos)
      << alone.err;
  EXPECT_NE(alone.err.find("OPEVO_WORKER"), std::string::npos);
  EXPECT_FALSE(fs::exists(f.db()));

  // The compiler likewise (it was found missing at the first trial, in a run stored failed).
  const ProcessResult compiler =
      runProcess("env", {"OPEVO_CXX=/nonexistent/bin/c++", OPEVO_CLI, "tune", "--op", "MM1",
                         "--backend", "cpu", "--trials", "3", "--db", f.db()});
  EXPECT_EQ(compiler.status, 1);
  EXPECT_NE(compiler.err.find("the C++ compiler cannot build kernels"), std::string::npos)
      << compiler.err;
  EXPECT_FALSE(fs::exists(f.db()));

  // A finished run given more trials, the worker missing: refused before the run is marked
  // running or its budget changed (the review found it left "running" with the new budget).
  const fs::path mm = f.path / "mm.json";
  std::ofstream(mm)
      << R"({"name": "mm32", "kind": "matmul", "shape": {"n": 32, "m": 32, "k": 32}})";
  ASSERT_EQ(opevo({"tune", "--op", mm.string(), "--backend", "cpu", "--trials", "1",
                   "--min-time-ms", "1", "--side-by-side", "0", "--db", f.db()})
                .status,
            0);
  const ProcessResult resumed =
      runProcess("env", {"OPEVO_WORKER=/nonexistent/opevo-worker", OPEVO_CLI, "tune", "--resume",
                         "1", "--trials", "5", "--db", f.db()});
  EXPECT_EQ(resumed.status, 1) << resumed.err;
  const std::optional<RunRecord> run = Store(f.db()).run(1);
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->status, RunStatus::Finished);
  EXPECT_EQ(run->budgetJson.find("5"), std::string::npos) << run->budgetJson;
}

}  // namespace
}  // namespace opevo::test
