// `opevo net archive` and `opevo net restore` (io/network_archive.h) on real networks tuned on
// this CPU and real SQLite files: a restored network run is the run it was (its record, units,
// and every task run's trials), an interrupted one resumes measuring only what it lacks, and an
// archive that is not right stores nothing and says which file and why.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include "common/error.h"
#include "io/gzip_file.h"
#include "io/network_archive.h"
#include "run_process.h"
#include "store/store.h"

namespace opevo::test {
namespace {

namespace fs = std::filesystem;

const std::string kAllOps = std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_all_ops.json";
const std::string kDensePair = std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_dense_pair.json";

struct Dir {
  fs::path path;
  Dir() {
    char pattern[] = "/tmp/opevo-netarchive-XXXXXX";
    path = mkdtemp(pattern);
  }
  ~Dir() { fs::remove_all(path); }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

// A small network tuned on this CPU to its budget, run end to end without libtorch.
void tune(const std::string& network, int trials, const std::string& db) {
  const auto r =
      runProcess(OPEVO_CLI, {"net", "tune", network, "--trials", std::to_string(trials), "--unit",
                             "2", "--runs", "2", "--no-reference", "--db", db});
  ASSERT_EQ(r.status, 0) << r.err << r.out;
}

void sql(const std::string& db, const std::string& statement) {
  sqlite3* handle = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &handle), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(handle, statement.c_str(), nullptr, nullptr, nullptr), SQLITE_OK)
      << sqlite3_errmsg(handle);
  sqlite3_close(handle);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::size_t storedTrials(const Store& store) {
  std::size_t n = 0;
  for (const RunRecord& r : store.runs()) n += store.trials(r.id).size();
  return n;
}

// The `net runs` list of one network run, its id aside.
nlohmann::json listed(const std::string& db, std::int64_t id) {
  const auto r = runProcess(OPEVO_CLI, {"net", "runs", "--json", "--db", db});
  EXPECT_EQ(r.status, 0) << r.err;
  for (nlohmann::json n : nlohmann::json::parse(r.out))
    if (n["id"] == id) {
      n.erase("id");
      return n;
    }
  ADD_FAILURE() << "network run " << id << " is not listed: " << r.out;
  return {};
}

void expectSameTaskRun(const Store& a, std::int64_t aId, const Store& b, std::int64_t bId,
                       const std::string& what) {
  SCOPED_TRACE(what);
  const RunRecord x = *a.run(aId), y = *b.run(bId);
  EXPECT_EQ(y.operatorName, x.operatorName);
  EXPECT_EQ(y.operatorJson, x.operatorJson);  // byte for byte: a resume compares it so
  EXPECT_EQ(y.algorithm, x.algorithm);
  EXPECT_EQ(y.settingsJson, x.settingsJson);
  EXPECT_EQ(y.seed, x.seed);
  EXPECT_EQ(y.backend, x.backend);
  EXPECT_EQ(y.device, x.device);
  EXPECT_EQ(y.budgetJson, x.budgetJson);
  EXPECT_EQ(y.started, x.started);
  EXPECT_EQ(y.speedUnit, x.speedUnit);
  EXPECT_EQ(y.label, x.label);
  EXPECT_EQ(y.referenceLibrary, x.referenceLibrary);
  EXPECT_EQ(y.referenceSpeed, x.referenceSpeed);
  const std::vector<TrialRow> s = a.trials(aId), t = b.trials(bId);
  ASSERT_EQ(t.size(), s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    SCOPED_TRACE("trial " + std::to_string(i + 1));
    EXPECT_EQ(t[i].seq, s[i].seq);
    EXPECT_EQ(t[i].order, s[i].order);
    EXPECT_EQ(t[i].config, s[i].config);
    EXPECT_EQ(t[i].status, s[i].status);
    EXPECT_EQ(t[i].message, s[i].message);
    EXPECT_EQ(t[i].timesMs, s[i].timesMs);
    EXPECT_DOUBLE_EQ(t[i].medianMs, s[i].medianMs);
    EXPECT_DOUBLE_EQ(t[i].speed, s[i].speed);
    EXPECT_DOUBLE_EQ(t[i].compileMs, s[i].compileMs);
    EXPECT_DOUBLE_EQ(t[i].verifyMs, s[i].verifyMs);
    EXPECT_DOUBLE_EQ(t[i].measureMs, s[i].measureMs);
    EXPECT_DOUBLE_EQ(t[i].seconds, s[i].seconds);
    EXPECT_EQ(t[i].started, s[i].started);
    EXPECT_EQ(t[i].finished, s[i].finished);
  }
}

// A finished network run, some of whose tasks the scheduler never reached (runs without trials),
// archived (gzip) and restored into a fresh database: the record byte for byte, the units, each
// task run and every trial; `net runs` lists it as the original; a resume says it has finished.
TEST(CliNetArchive, ARestoredNetworkRunIsTheRunItWas) {
  Dir dir;
  const std::string db = dir.file("runs.db"), fresh = dir.file("fresh.db");
  const std::string archive = dir.file("all_ops.json.gz");
  tune(kAllOps, 6, db);
  const auto wrote = runProcess(OPEVO_CLI, {"net", "archive", "1", "--out", archive, "--db", db});
  ASSERT_EQ(wrote.status, 0) << wrote.err;
  EXPECT_EQ(wrote.out, "wrote 6 trials of network run 1 (all_ops, 8 tasks) to " + archive + "\n");
  EXPECT_EQ(slurp(archive).substr(0, 2), "\x1f\x8b");  // gzip, as the name says

  const auto restored = runProcess(OPEVO_CLI, {"net", "restore", archive, "--db", fresh});
  ASSERT_EQ(restored.status, 0) << restored.err;
  EXPECT_EQ(restored.out, "1\n");  // the id alone
  EXPECT_NE(restored.err.find("all_ops, 8 tasks, 6 trials, cpu, finished"), std::string::npos)
      << restored.err;
  // Restored twice, it would be two runs of one history: refused, naming the one there.
  const auto twice = runProcess(OPEVO_CLI, {"net", "restore", archive, "--db", fresh});
  EXPECT_EQ(twice.status, 2);
  EXPECT_NE(twice.err.find("network run 1 of " + fresh + " is this archive's run already"),
            std::string::npos)
      << twice.err;
  // A finished run is shown, not resumed ("nothing to resume"), in the database given.
  EXPECT_NE(twice.err.find("finished: opevo net runs 1 --db " + fresh + " shows it"),
            std::string::npos)
      << twice.err;
  EXPECT_EQ(twice.err.find("--resume"), std::string::npos) << twice.err;
  // And into the database it came from, likewise.
  EXPECT_EQ(runProcess(OPEVO_CLI, {"net", "restore", archive, "--db", db}).status, 2);
  EXPECT_EQ(Store(fresh).networks().size(), 1u);

  const Store a(db), b(fresh);
  const NetworkRecord x = *a.network(1), y = *b.network(1);
  EXPECT_EQ(y.name, x.name);
  EXPECT_EQ(y.source, x.source);
  EXPECT_EQ(y.networkJson, x.networkJson);
  EXPECT_EQ(y.paramsJson, x.paramsJson);
  EXPECT_EQ(y.backend, x.backend);
  EXPECT_EQ(y.planJson, x.planJson);
  EXPECT_EQ(y.status, RunStatus::Finished);
  EXPECT_EQ(y.started, x.started);
  EXPECT_EQ(y.ended, x.ended);
  EXPECT_EQ(y.resultJson, x.resultJson);
  const std::vector<NetworkUnitRow> u = a.networkUnits(1), v = b.networkUnits(1);
  ASSERT_EQ(v.size(), u.size());
  for (std::size_t i = 0; i < u.size(); ++i) {
    EXPECT_EQ(v[i].seq, u[i].seq);
    EXPECT_EQ(v[i].task, u[i].task);
    EXPECT_EQ(v[i].trials, u[i].trials);
  }
  ASSERT_EQ(y.taskRuns.size(), 8u);
  int withoutTrials = 0;
  for (std::size_t i = 0; i < x.taskRuns.size(); ++i) {
    expectSameTaskRun(a, x.taskRuns[i], b, y.taskRuns[i], "task " + std::to_string(i));
    EXPECT_EQ(b.run(y.taskRuns[i])->status, a.run(x.taskRuns[i])->status);
    EXPECT_EQ(b.run(y.taskRuns[i])->endReason, a.run(x.taskRuns[i])->endReason);
    EXPECT_EQ(b.run(y.taskRuns[i])->ended, a.run(x.taskRuns[i])->ended);
    withoutTrials += a.trials(x.taskRuns[i]).empty() ? 1 : 0;
  }
  EXPECT_GT(withoutTrials, 0) << "every task was reached: this test no longer covers empty runs";

  const nlohmann::json listing = listed(fresh, 1);
  EXPECT_EQ(listing, listed(db, 1));
  EXPECT_TRUE(listing["end_to_end_ms"].is_number()) << listing;
  const auto resumed = runProcess(OPEVO_CLI, {"net", "tune", "--resume", "1", "--db", fresh});
  EXPECT_EQ(resumed.status, 2);
  EXPECT_NE(resumed.err.find("has finished; nothing to resume"), std::string::npos) << resumed.err;
}

// Network runs whose program was killed (stored as running: as a kill leaves them, made here
// from a finished run with SQL), archived and restored, come back interrupted, with their task
// runs, and `net tune --resume` goes on from them: one killed while it tuned measures only the
// trials its budget still lacks, keeping those it had; one killed after its last trial (in what
// follows the tuning) measures none and concludes again.
TEST(CliNetArchive, AKilledNetworkRunRestoresInterruptedAndResumesWhatItLacks) {
  Dir dir;
  const std::string db = dir.file("runs.db"), fresh = dir.file("fresh.db");
  tune(kAllOps, 6, db);
  const std::string killed =
      "UPDATE runs SET status = 'running', end_reason = '', ended = ''; "
      "UPDATE networks SET status = 'running', ended = '', result_json = ''";
  sql(db, killed);
  ASSERT_EQ(runProcess(OPEVO_CLI,
                       {"net", "archive", "1", "--out", dir.file("concluding.json"), "--db", db})
                .status,
            0);
  sql(db, "UPDATE networks SET plan_json = json_set(plan_json, '$.trials', 12)");
  ASSERT_EQ(
      runProcess(OPEVO_CLI, {"net", "archive", "1", "--out", dir.file("tuning.json"), "--db", db})
          .status,
      0);
  const Store original(db);
  const NetworkRecord before = *original.network(1);

  for (const char* file : {"tuning.json", "concluding.json"}) {
    SCOPED_TRACE(file);
    const auto r = runProcess(OPEVO_CLI, {"net", "restore", dir.file(file), "--db", fresh});
    ASSERT_EQ(r.status, 0) << r.err;
    const std::int64_t id = std::stoll(r.out);
    const int budget = std::string(file) == "tuning.json" ? 12 : 6;
    std::size_t trialsBefore = 0;
    {
      const Store store(fresh);
      const NetworkRecord n = *store.network(id);
      EXPECT_EQ(n.status, RunStatus::Interrupted);
      for (std::size_t i = 0; i < n.taskRuns.size(); ++i) {
        EXPECT_EQ(store.run(n.taskRuns[i])->status, RunStatus::Interrupted);
        expectSameTaskRun(original, before.taskRuns[i], store, n.taskRuns[i],
                          "task " + std::to_string(i));
      }
      trialsBefore = storedTrials(store);
      // As the original lists it, but interrupted (and with its budget when it was archived).
      nlohmann::json listing = listed(fresh, id), was = listed(db, 1);
      // The original was killed: stored running, held by no process, it lists as interrupted.
      EXPECT_EQ(was["status"], "interrupted");
      EXPECT_EQ(listing["status"], "interrupted");
      EXPECT_EQ(listing["trials"], 6);
      EXPECT_EQ(listing["budget"], budget);
      for (const char* changed : {"status", "budget"}) {
        listing.erase(changed);
        was.erase(changed);
      }
      EXPECT_EQ(listing, was);
    }
    const auto resumed =
        runProcess(OPEVO_CLI, {"net", "tune", "--resume", std::to_string(id), "--runs", "2",
                               "--no-reference", "--json", "--db", fresh});
    ASSERT_EQ(resumed.status, 0) << resumed.err << resumed.out;
    EXPECT_EQ(nlohmann::json::parse(resumed.out)["trials"], budget);
    const Store store(fresh);
    const NetworkRecord n = *store.network(id);
    EXPECT_EQ(n.status, RunStatus::Finished);
    EXPECT_EQ(storedTrials(store), trialsBefore + (budget - 6));
    int unitTrials = 0;
    for (const NetworkUnitRow& u : store.networkUnits(id)) unitTrials += u.trials;
    EXPECT_EQ(unitTrials, budget);
    // What was measured before is kept as it was, and nothing is measured twice.
    for (std::size_t i = 0; i < n.taskRuns.size(); ++i) {
      const std::vector<TrialRow> was = original.trials(before.taskRuns[i]);
      const std::vector<TrialRow> now = store.trials(n.taskRuns[i]);
      ASSERT_GE(now.size(), was.size());
      std::set<std::string> configs;
      for (std::size_t k = 0; k < now.size(); ++k) {
        if (k < was.size()) {
          EXPECT_EQ(now[k].config, was[k].config);
        }
        configs.insert(now[k].config);
      }
      EXPECT_EQ(configs.size(), now.size()) << "task " << i << " measured a configuration twice";
    }
  }
  EXPECT_EQ(storedTrials(original), 6u);  // the archived database is only read
}

// A network tuned on a GPU exports as a CPU program: said on the screen and in its README, since
// the times the run stored are the GPU's (the export once wrote the program without a word).
TEST(CliNetArchive, AGpuNetworksExportSaysItRunsOnTheCpu) {
  const Dir dir;
  const std::string db = dir.file("n.db");
  const auto restored = runProcess(
      OPEVO_CLI, {"net", "restore",
                  std::string(OPEVO_SOURCE_DIR) +
                      "/resources/measurements/h200/2026-11-28/net_alexnet_direct.json.gz",
                  "--db", db});
  ASSERT_EQ(restored.status, 0) << restored.err;
  const std::string out = dir.file("program");
  const auto exported = runProcess(OPEVO_CLI, {"net", "export", "1", "--db", db, "--out", out});
  ASSERT_EQ(exported.status, 0) << exported.err;
  EXPECT_NE(exported.out.find("tuned on cuda: this program runs the same configurations on the "
                              "CPU, where they were not measured"),
            std::string::npos)
      << exported.out;
  std::ifstream readme(out + "/README.txt");
  std::string first;
  std::getline(readme, first);
  EXPECT_NE(first.find("8 of 8 tasks tuned on cuda, run here on the CPU"), std::string::npos)
      << first;
}

// A network run stored before dead layers were refused (tests/data/opevo-v8.db's run 1, dense_pair,
// finished, given a relu nobody reads as such a run has): it shows, a resume gives its own reason,
// it exports and its archive restores. A new tune of the network as stored is refused.
TEST(CliNetArchive, AStoredRunWithADeadLayerShowsResumesExportsAndRestores) {
  const Dir dir;
  const std::string db = dir.file("v8.db"), fresh = dir.file("fresh.db");
  fs::copy_file(std::string(OPEVO_SOURCE_DIR) + "/tests/data/opevo-v8.db", db);
  sql(db,
      "UPDATE networks SET network_json = replace(network_json, '{\"name\": \"g\"', "
      "'{\"name\": \"dead\", \"op\": \"relu\", \"input\": \"d1\"}, {\"name\": \"g\"') "
      "WHERE id = 1");
  ASSERT_NE(Store(db).network(1)->networkJson.find("\"dead\""), std::string::npos);

  const auto shown = runProcess(OPEVO_CLI, {"net", "runs", "1", "--db", db});
  ASSERT_EQ(shown.status, 0) << shown.err;
  EXPECT_NE(shown.out.find("dense_pair"), std::string::npos) << shown.out;
  const auto resumed = runProcess(OPEVO_CLI, {"net", "tune", "--resume", "1", "--db", db});
  EXPECT_EQ(resumed.status, 2);
  EXPECT_NE(resumed.err.find("has finished; nothing to resume"), std::string::npos) << resumed.err;
  const std::string out = dir.file("program");
  const auto exported = runProcess(OPEVO_CLI, {"net", "export", "1", "--db", db, "--out", out});
  ASSERT_EQ(exported.status, 0) << exported.err;
  EXPECT_TRUE(fs::exists(out + "/data.bin"));

  const std::string archive = dir.file("dead.json.gz");
  const auto wrote = runProcess(OPEVO_CLI, {"net", "archive", "1", "--out", archive, "--db", db});
  ASSERT_EQ(wrote.status, 0) << wrote.err;
  const auto restored = runProcess(OPEVO_CLI, {"net", "restore", archive, "--db", fresh});
  ASSERT_EQ(restored.status, 0) << restored.err;
  EXPECT_EQ(runProcess(OPEVO_CLI, {"net", "runs", "1", "--db", fresh}).status, 0);

  // The same network as a file given now: refused by name before anything is stored.
  const std::string file = dir.file("dead.json");
  std::ofstream(file) << Store(db).network(1)->networkJson;
  const auto tuned =
      runProcess(OPEVO_CLI, {"net", "tune", file, "--trials", "2", "--db", dir.file("new.db")});
  EXPECT_EQ(tuned.status, 2);
  EXPECT_NE(tuned.err.find("layer 'dead' (relu) is read by no layer"), std::string::npos)
      << tuned.err;
  EXPECT_FALSE(fs::exists(dir.file("new.db")));
}

// `net export` writes its five files all or none: a full disk leaves no file and says why, not
// "wrote". (Here the disk is full before the export: the network's own run, which checks it before
// it is written, cannot write its kernels' source, and says so, not "internal error".)
TEST(CliNetArchive, AFullDiskExportsNoFileAndSaysWhy) {
  const Dir dir;
  const std::string db = dir.file("v8.db");
  fs::copy_file(std::string(OPEVO_SOURCE_DIR) + "/tests/data/opevo-v8.db", db);
  const fs::path out = dir.path / "program";
  fs::create_directory(out);
  {
    const Store open(db);
    const auto full = runProcessOnFullDisk(
        0, OPEVO_CLI, {"net", "export", "1", "--db", db, "--out", out.string()});
    EXPECT_EQ(full.status, 1);
    EXPECT_NE(full.err.find("cannot write "), std::string::npos) << full.err;
    EXPECT_NE(full.err.find(": File too large"), std::string::npos) << full.err;
    EXPECT_EQ(full.err.find("internal error"), std::string::npos) << full.err;
    EXPECT_EQ(full.out.find("wrote"), std::string::npos) << full.out;
    EXPECT_TRUE(fs::is_empty(out)) << "a file or a temporary was left";
  }
  // With room again: all five, build.sh runnable.
  const auto written =
      runProcess(OPEVO_CLI, {"net", "export", "1", "--db", db, "--out", out.string()});
  ASSERT_EQ(written.status, 0) << written.err;
  for (const char* name : {"data.bin", "kernels.cpp", "main.cpp", "build.sh", "README.txt"})
    EXPECT_GT(fs::file_size(out / name), 0u) << name;
  EXPECT_NE(fs::status(out / "build.sh").permissions() & fs::perms::owner_exec, fs::perms::none);
}

// A stored result that does not read (edited by hand, damaged) loses the run's end-to-end
// figures, not the run: it is listed, shown from its trials and exported as tuned, each saying
// what did not read; a libtorch form this version does not know (a later version's) is shown as
// stored. `net runs` failed whole on each ("internal error", or the form refused).
TEST(CliNetArchive, AStoredResultThatDoesNotReadLosesOnlyTheResult) {
  const Dir dir;
  const std::string db = dir.file("runs.db");
  tune(kDensePair, 4, db);
  constexpr auto npos = std::string::npos;

  const std::string later = dir.file("later.db");
  fs::copy_file(db, later);
  sql(later,
      "UPDATE networks SET result_json = json_set(result_json, '$.reference', json('{\"name\": "
      "\"libtorch 1.13.0\", \"form\": \"compiled\", \"ms\": 0.05, \"threads\": 2}'))");
  const auto laterShown = runProcess(OPEVO_CLI, {"net", "runs", "1", "--db", later});
  EXPECT_EQ(laterShown.status, 0) << laterShown.err;
  EXPECT_NE(laterShown.out.find("dense_pair tuned, on the CPU it was tuned on: "), npos)
      << laterShown.out;
  EXPECT_EQ(listed(later, 1)["reference_form"], "compiled");

  // As SQL: not JSON (once with a byte that is not UTF-8, which the parser's message quotes), JSON
  // but not an object, objects whose fields the list does not show are of the wrong kinds or keep
  // a network this version does not know. The list says what its own columns lack.
  const std::vector<std::pair<std::string, bool>> results{
      {"'{bad'", true},
      {"CAST(X'7B22FF' AS TEXT)", true},
      {"'[1, 2]'", true},
      {"'{\"tasks\": 5, \"curve\": \"x\"}'", false},
      {"'{\"chosen\": 5}'", false}};
  for (const auto& [result, listedUnreadable] : results) {
    SCOPED_TRACE(result);
    const std::string bad = dir.file("bad.db");
    fs::remove(bad);
    fs::copy_file(db, bad);
    sql(bad, "UPDATE networks SET result_json = " + result);

    const auto list = runProcess(OPEVO_CLI, {"net", "runs", "--db", bad});
    EXPECT_EQ(list.status, 0) << list.err;
    EXPECT_NE(list.out.find("   1  dense_pair"), npos) << list.out;
    EXPECT_EQ(list.out.find("network run 1: its stored result does not read (") != npos,
              listedUnreadable)
        << list.out;
    EXPECT_EQ(list.out.find("); opevo net runs 1 shows it from its tasks' trials\n") != npos,
              listedUnreadable)
        << list.out;
    EXPECT_EQ(listed(bad, 1)["unreadable"].is_string(), listedUnreadable);

    const auto shown = runProcess(OPEVO_CLI, {"net", "runs", "1", "--db", bad});
    EXPECT_EQ(shown.status, 0) << shown.err;
    EXPECT_NE(shown.out.find("note: network run 1's stored result does not read ("), npos)
        << shown.out;
    EXPECT_NE(shown.out.find("): its tasks are shown from their stored trials\n"), npos)
        << shown.out;
    EXPECT_NE(shown.out.find("\nd1                              1      "), npos) << shown.out;
    EXPECT_EQ(shown.out.find("end to end"), npos) << shown.out;  // the result's figures: gone
    const auto json = runProcess(OPEVO_CLI, {"net", "runs", "1", "--json", "--db", bad});
    ASSERT_EQ(json.status, 0) << json.err;
    const nlohmann::json j = nlohmann::json::parse(json.out);
    EXPECT_TRUE(j["result"].is_null());
    EXPECT_TRUE(j["result_error"].is_string());
    EXPECT_EQ(j["trials"], 4);

    // Which network the run kept reads only from the "chosen" field: the others export as the
    // run kept them (the tuned network here), saying nothing.
    const bool choiceLost = listedUnreadable || result.find("chosen") != std::string::npos;
    const fs::path out = dir.path / "program";
    fs::remove_all(out);
    const auto exported =
        runProcess(OPEVO_CLI, {"net", "export", "1", "--db", bad, "--out", out.string()});
    EXPECT_EQ(exported.status, 0) << exported.err;
    EXPECT_EQ(exported.err.find("network run 1's stored result does not read (") != npos,
              choiceLost)
        << exported.err;
    EXPECT_EQ(exported.err.find("): exporting its tuned configurations (which network the run "
                                "kept is not known)\n") != npos,
              choiceLost)
        << exported.err;
    EXPECT_GT(fs::file_size(out / "main.cpp"), 0u);
  }
  // A plan that does not read leaves nothing to rebuild the tasks with: listed, and said.
  const std::string noPlan = dir.file("noplan.db");
  fs::copy_file(db, noPlan);
  sql(noPlan, "UPDATE networks SET plan_json = '[]'");
  const auto list = runProcess(OPEVO_CLI, {"net", "runs", "--db", noPlan});
  EXPECT_EQ(list.status, 0) << list.err;
  EXPECT_NE(list.out.find("   1  dense_pair         ? ? ?"), npos) << list.out;
  EXPECT_NE(list.out.find("network run 1: its stored plan does not read (not a JSON object); opevo "
                          "net runs 1 cannot show it either\n"),
            npos)
      << list.out;
}

// What is not a network run archive, or holds something a restore must refuse, stores nothing
// (the database keeps the one network run restored before) and the error names the file.
TEST(CliNetArchive, ABadArchiveStoresNothingAndNamesTheFile) {
  Dir dir;
  const std::string db = dir.file("runs.db"), fresh = dir.file("fresh.db");
  const std::string good = dir.file("good.json");
  tune(kDensePair, 4, db);
  ASSERT_EQ(runProcess(OPEVO_CLI, {"net", "archive", "1", "--out", good, "--db", db}).status, 0);
  ASSERT_EQ(runProcess(OPEVO_CLI, {"net", "restore", good, "--db", fresh}).status, 0);
  const nlohmann::ordered_json archive = nlohmann::ordered_json::parse(slurp(good));
  const auto counts = [&] {
    const Store store(fresh);
    return std::vector<std::size_t>{store.networks().size(), store.runs().size(),
                                    storedTrials(store)};
  };
  const std::vector<std::size_t> stored = counts();
  ASSERT_EQ(stored[0], 1u);

  struct Bad {
    std::string name;
    std::string text;
    std::string why;
  };
  std::vector<Bad> cases;
  const std::string text = slurp(good);
  // As every other reader says it: the line and column, an empty file (it said "not JSON").
  cases.push_back({"cut.json", text.substr(0, text.size() / 2), "not valid JSON: "});
  cases.push_back({"empty.json", "", "the file is empty"});
  nlohmann::ordered_json j = archive;
  j["format"] = "opevo-kernel";
  cases.push_back({"format.json", j.dump(), "not a network run archive"});
  cases.push_back({"t4.json", archive["tasks"][0]["run"].dump(),
                   "a T4 file of one run restores with `opevo import --restore`"});
  j = archive;
  j["version"] = 2;
  cases.push_back({"newer.json", j.dump(), "an archive of version 2, written by a newer program"});
  j = archive;
  j["tasks"][1]["task"] = 7;
  cases.push_back({"outside.json", j.dump(), "task 7 is outside the network, whose 2 tasks"});
  j = archive;
  j["units"][0]["task"] = 2;
  cases.push_back({"unit.json", j.dump(), "unit 1: task 2 is outside the network"});
  j = archive;
  j["tasks"].erase(1);
  cases.push_back({"missing.json", j.dump(), "task 1 has no run"});
  // Columns that `net runs` and a resume read: a plan and a result they can read, units that
  // count trials the task runs hold.
  j = archive;
  j["network"]["plan"] = "garbage";
  cases.push_back({"plan.json", j.dump(), "network.plan: not a network plan"});
  j = archive;
  j["network"]["result"] = "garbage";
  cases.push_back({"result.json", j.dump(), "result is neither empty (not concluded) nor a JSON"});
  j = archive;
  j["units"][0]["trials"] = 1000;
  cases.push_back({"counts.json", j.dump(), "the units give task"});
  j = archive;
  j["units"][0]["trials"] = 1LL << 40;
  cases.push_back({"huge.json", j.dump(), "not a count of trials"});
  // Fewer units than the trials: a finished run has a unit for every trial, and a resume could
  // not replay a run whose units lost more than the one a kill cut short.
  j = archive;
  ASSERT_EQ(j["units"].size(), 2u);  // 4 trials in units of 2, one per task
  j["units"].erase(j["units"].size() - 1);
  cases.push_back({"fewer.json", j.dump(), "a finished run has a unit for every trial"});
  j = archive;
  j["network"]["status"] = "interrupted";
  j["units"] = nlohmann::ordered_json::array();
  cases.push_back({"none.json", j.dump(), "units are missing (only the one unit a kill cut short"});
  j = archive;
  j["network"]["backend"] = "tpu";
  cases.push_back({"backend.json", j.dump(), "backend 'tpu' is not one of cpu, cuda, hip"});
  // The second task's first trial in a space it does not fit: found after the first task's run
  // was read, before anything is stored.
  j = archive;
  ASSERT_FALSE(j["tasks"][1]["run"]["results"].empty());
  nlohmann::ordered_json& config = j["tasks"][1]["run"]["results"][0]["configuration"];
  config[config.begin().key()] = "not,a,value";
  cases.push_back(
      {"config.json", j.dump(), "task 1's run: results[0]: its configuration does not fit"});

  for (const Bad& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string file = dir.file(c.name);
    std::ofstream(file) << c.text;
    const auto r = runProcess(OPEVO_CLI, {"net", "restore", file, "--db", fresh});
    EXPECT_EQ(r.status, 2) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find(file + ": "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(c.why), std::string::npos) << r.err;
    EXPECT_EQ(counts(), stored);
    // Into a database that did not exist: read and refused before one is made.
    const std::string none = dir.file("none.db");
    EXPECT_EQ(runProcess(OPEVO_CLI, {"net", "restore", file, "--db", none}).status, 2);
    EXPECT_FALSE(std::filesystem::exists(none)) << "a refused archive left " << none;
  }

  // A failure while storing (the last rows, the units, refused by a trigger) takes back the
  // network and every task run stored before it: one transaction.
  sql(fresh,
      "CREATE TRIGGER no_units BEFORE INSERT ON network_units "
      "BEGIN SELECT RAISE(ABORT, 'no units today'); END");
  {
    Store store(fresh);
    EXPECT_ANY_THROW(restoreNetworkArchive(store, good));
  }
  EXPECT_EQ(counts(), stored);
}

}  // namespace
}  // namespace opevo::test
