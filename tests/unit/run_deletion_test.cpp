// Deleting stored runs and network runs (Store::deleteRuns, deleteNetworks) on a real database:
// everything of a run goes, nothing of another, and a run being tuned or belonging to a network
// run stays, with the reason.

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "common/error.h"
#include "store/run_lock.h"
#include "store/store.h"
#include "temp_dir.h"

namespace opevo {
namespace {

using test::TempDir;

RunRecord runOf(const std::string& op, std::int64_t race = 0, int repeat = 0) {
  RunRecord r;
  r.operatorName = op;
  r.operatorJson = "{}";
  r.algorithm = "opevo";
  r.settingsJson = "{}";
  r.seed = 3;
  r.backend = "cpu";
  r.device = "test cpu";
  r.budgetJson = R"({"trials":10})";
  r.speedUnit = "GFLOP/s";
  r.raceId = race;
  r.raceRepeat = repeat;
  return r;
}

// A finished run with `trials` trials.
std::int64_t addRun(Store& store, const std::string& op, int trials, std::int64_t race = 0,
                    int repeat = 0) {
  std::vector<TrialRow> rows;
  for (int i = 1; i <= trials; ++i) {
    TrialRow t;
    t.seq = i;
    t.config = "x=" + std::to_string(i);
    t.speed = i;
    rows.push_back(t);
  }
  const std::int64_t id = store.createRunWithTrials(runOf(op, race, repeat), rows);
  store.setRunStatus(id, RunStatus::Finished, EndReason::Trials);
  return id;
}

// Rows of a table, read with SQLite itself: what the store's own queries would not show (races).
long long rowsOf(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr);
  const long long n = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int64(s, 0) : -1;
  sqlite3_finalize(s);
  sqlite3_close(db);
  return n;
}

std::string refusalOf(Store& store, const std::vector<std::int64_t>& ids) {
  try {
    store.deleteRuns(ids);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(RunDeletion, ARunGoesWithItsTrialsAndNothingElse) {
  TempDir dir;
  const std::string path = dir.file("runs.db");
  Store store(path);
  const std::int64_t race = store.createRace(Schedule::RoundRobin, 1);
  const std::int64_t a = addRun(store, "MM1", 5, race, 0);
  const std::int64_t b = addRun(store, "MM1", 7, race, 1);
  const std::int64_t other = addRun(store, "C2", 4);
  const std::int64_t lone =
      store.createRace(Schedule::RoundRobin, 1);  // a race whose runs are not made yet

  const RunDeletionCheck check = store.checkRunDeletion({a, a});
  EXPECT_TRUE(check.refusals.empty());
  ASSERT_EQ(check.runs.size(), 1u);  // named twice, counted once
  EXPECT_EQ(check.trials(), 5);

  const std::vector<RunAndTrials> deleted = store.deleteRuns({a});
  ASSERT_EQ(deleted.size(), 1u);
  EXPECT_EQ(describeRun(deleted[0]), "run " + std::to_string(a) + " (MM1, opevo, 5 trials)");
  EXPECT_FALSE(store.run(a).has_value());
  EXPECT_TRUE(store.trials(a).empty());
  EXPECT_EQ(rowsOf(path, "SELECT count(*) FROM trials WHERE run_id = " + std::to_string(a)), 0);
  // The rest of the race and the other run keep every trial; the race keeps its row.
  EXPECT_EQ(store.trials(b).size(), 7u);
  EXPECT_EQ(store.trials(other).size(), 4u);
  EXPECT_EQ(store.raceRuns(race).size(), 1u);
  EXPECT_EQ(rowsOf(path, "SELECT count(*) FROM races WHERE id = " + std::to_string(race)), 1);

  // Its last run gone, the race keeps its row, so its id is never a later race's.
  store.deleteRuns({b});
  EXPECT_EQ(rowsOf(path, "SELECT count(*) FROM races WHERE id = " + std::to_string(race)), 1);
  EXPECT_TRUE(store.raceRuns(race).empty());
  EXPECT_EQ(rowsOf(path, "SELECT count(*) FROM races WHERE id = " + std::to_string(lone)), 1);
  EXPECT_GT(store.createRace(Schedule::RoundRobin, 1), lone);
  ASSERT_EQ(store.runs().size(), 1u);
  EXPECT_EQ(store.runs()[0].id, other);
  EXPECT_EQ(rowsOf(path, "PRAGMA foreign_key_check"), -1);  // no row points at a deleted run
}

// SQLite gives the newest row's id again once that row is gone: a deleted run's id stays its
// own, so an old "--resume 2" or an export of run 2 never reaches a later run, and asking for run
// 2 says when it went.
TEST(RunDeletion, ADeletedRunsIdIsNeverGivenAgain) {
  const TempDir dir;
  const std::string path = dir.file("opevo.db");
  Store store(path);
  addRun(store, "MM1", 2);
  const std::int64_t newest = addRun(store, "MM2", 3);
  store.deleteRuns({newest});
  const std::int64_t next = addRun(store, "MM3", 1);
  EXPECT_EQ(next, newest + 1);
  EXPECT_FALSE(store.run(newest));
  const std::string said = store.missingRunText(newest);
  EXPECT_NE(said.find("run 2 (MM2, opevo, 3 trials) was deleted from " + path + " on 20"),
            std::string::npos)
      << said;
  EXPECT_EQ(store.missingRunText(9), "no run 9 in " + path);
  try {
    store.deleteRuns({newest});
    ADD_FAILURE() << "a deleted run was deleted again";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("was deleted from"), std::string::npos) << e.what();
  }
  // Opened again, the store still knows.
  Store again(path);
  EXPECT_EQ(addRun(again, "MM1", 1), next + 1);
}

TEST(RunDeletion, AnUnknownIdAmongKnownOnesDeletesNothing) {
  TempDir dir;
  Store store(dir.file("runs.db"));
  const std::int64_t a = addRun(store, "MM1", 3);
  const std::int64_t b = addRun(store, "MM2", 2);
  const std::string why = refusalOf(store, {a, 99, b});
  EXPECT_NE(why.find("no run 99 in " + dir.file("runs.db")), std::string::npos) << why;
  EXPECT_NE(why.find("nothing was deleted"), std::string::npos) << why;
  EXPECT_EQ(store.runs().size(), 2u);
  EXPECT_EQ(store.trials(a).size(), 3u);
  EXPECT_EQ(store.trials(b).size(), 2u);
}

// A run tuned by another process (it holds the run's lock) stays; one stored running by a program
// that died (nobody holds it) is interrupted, and may go.
TEST(RunDeletion, ARunBeingTunedStaysAndADeadRunningOneGoes) {
  TempDir dir;
  const std::string path = dir.file("runs.db");
  Store store(path);
  const std::int64_t live = store.createRun(runOf("MM1"));  // stored running
  const std::int64_t dead = store.createRun(runOf("MM1"));
  const std::int64_t done = addRun(store, "MM1", 2);

  int ready[2], release[2];
  ASSERT_EQ(pipe(ready), 0);
  ASSERT_EQ(pipe(release), 0);
  const pid_t child = fork();
  if (child == 0) {
    close(ready[0]);
    close(release[1]);  // else its own copy keeps the read below from ever seeing the end
    RunLock held(path, LockedKind::Run, live);
    char c = 1;
    (void)!write(ready[1], &c, 1);
    (void)!read(release[0], &c, 1);  // until the parent closes its end
    _exit(0);
  }
  close(ready[1]);
  close(release[0]);
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1);

  const std::string why = refusalOf(store, {done, live});
  EXPECT_NE(why.find("run " + std::to_string(live) + " is being tuned now"), std::string::npos)
      << why;
  EXPECT_TRUE(store.run(done).has_value());  // all or none
  EXPECT_EQ(store.checkRunDeletion({live}).refusals.size(), 1u);
  EXPECT_TRUE(store.checkRunDeletion({dead}).refusals.empty());
  EXPECT_EQ(store.deleteRuns({dead, done}).size(), 2u);

  close(release[1]);
  int status = 0;
  waitpid(child, &status, 0);
  // Its program ended: the run is no longer held, and goes.
  EXPECT_EQ(store.deleteRuns({live}).size(), 1u);
  EXPECT_TRUE(store.runs().empty());
}

TEST(RunDeletion, ARunTunedHereStays) {
  TempDir dir;
  const std::string path = dir.file("runs.db");
  Store store(path);
  const std::int64_t id = store.createRun(runOf("MM1"));
  RunLock held(path, LockedKind::Run, id);
  EXPECT_NE(refusalOf(store, {id}).find("is being tuned now"), std::string::npos);
  EXPECT_TRUE(store.run(id).has_value());
}

// A finished network run named `name` whose tasks are new runs of `trials` trials each, with one
// scheduling unit per task.
std::int64_t addNetwork(Store& store, const std::string& name, const std::vector<int>& trials) {
  NetworkRecord n;
  n.name = name;
  n.source = name;
  n.networkJson = "{}";
  n.paramsJson = "{}";
  n.backend = "cpu";
  n.planJson = "{}";
  n.status = RunStatus::Finished;
  const std::int64_t network = store.createNetwork(n);
  for (std::size_t i = 0; i < trials.size(); ++i) {
    const int task = static_cast<int>(i);
    store.setNetworkTaskRun(network, task,
                            addRun(store, name + "_task" + std::to_string(i), trials[i]));
    store.appendNetworkUnit(network, {task, task, trials[i]});
  }
  return network;
}

std::string networkRefusalOf(Store& store, const std::vector<std::int64_t>& ids) {
  try {
    store.deleteNetworks(ids);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(RunDeletion, ATaskOfANetworkRunStaysAndNamesIt) {
  TempDir dir;
  Store store(dir.file("runs.db"));
  const std::int64_t network = addNetwork(store, "alexnet", {4});
  const std::int64_t task = store.network(network)->taskRuns.front();
  const std::string why = refusalOf(store, {task});
  EXPECT_NE(why.find("run " + std::to_string(task) + " is a task of network run " +
                     std::to_string(network) + " (alexnet)"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("opevo net delete " + std::to_string(network)), std::string::npos) << why;
  EXPECT_EQ(store.trials(task).size(), 4u);
}

TEST(NetworkDeletion, ANetworkRunGoesWithItsTaskRunsAndNothingElse) {
  TempDir dir;
  const std::string path = dir.file("runs.db");
  Store store(path);
  const std::int64_t alone = addRun(store, "MM1", 3);
  const std::int64_t kept = addNetwork(store, "resnet18", {2, 1});
  const std::int64_t gone = addNetwork(store, "alexnet", {4, 5, 6});
  const std::vector<std::int64_t> tasks = store.network(gone)->taskRuns;

  const std::vector<NetworkAndTrials> deleted = store.deleteNetworks({gone});
  ASSERT_EQ(deleted.size(), 1u);
  EXPECT_EQ(describeNetwork(deleted.front()),
            "network run " + std::to_string(gone) + " (alexnet, 3 tasks, 15 trials)");
  EXPECT_FALSE(store.network(gone).has_value());
  for (const std::int64_t t : tasks) {
    EXPECT_FALSE(store.run(t).has_value());
    EXPECT_NE(store.missingRunText(t).find("a task of network run " + std::to_string(gone) +
                                           " (alexnet) was deleted"),
              std::string::npos)
        << store.missingRunText(t);
  }
  EXPECT_EQ(
      rowsOf(path, "SELECT count(*) FROM network_units WHERE network_id = " + std::to_string(gone)),
      0);
  EXPECT_EQ(rowsOf(path, "SELECT count(*) FROM trials"), 3 + 2 + 1);
  EXPECT_EQ(store.trials(alone).size(), 3u);
  EXPECT_EQ(store.network(kept)->taskRuns.size(), 2u);
  EXPECT_EQ(store.networkUnits(kept).size(), 2u);
  EXPECT_NE(store.missingNetworkText(gone).find("network run " + std::to_string(gone) +
                                                " (alexnet, 3 tasks, 15 trials) was deleted from"),
            std::string::npos)
      << store.missingNetworkText(gone);
  // The newest network run's id is not given again, nor its task runs'.
  const std::int64_t next = addNetwork(store, "alexnet", {1});
  EXPECT_EQ(next, gone + 1);
  EXPECT_GT(store.network(next)->taskRuns.front(), tasks.back());
}

TEST(NetworkDeletion, AnUnknownOrTunedNetworkRunAmongOthersDeletesNothing) {
  TempDir dir;
  const std::string path = dir.file("runs.db");
  Store store(path);
  const std::int64_t a = addNetwork(store, "alexnet", {2});
  const std::int64_t b = addNetwork(store, "resnet18", {1});
  std::string why = networkRefusalOf(store, {a, 9});
  EXPECT_NE(why.find("no network run 9 in " + path), std::string::npos) << why;
  EXPECT_NE(why.find("nothing was deleted"), std::string::npos) << why;
  {
    RunLock held(path, LockedKind::Network, b);
    why = networkRefusalOf(store, {a, b});
    EXPECT_NE(why.find("network run " + std::to_string(b) + " is being tuned now"),
              std::string::npos)
        << why;
  }
  EXPECT_EQ(store.networks().size(), 2u);
  EXPECT_EQ(store.trials(store.network(a)->taskRuns.front()).size(), 2u);
  EXPECT_EQ(store.deleteNetworks({a, b, a}).size(), 2u);  // named twice: deleted once
  EXPECT_TRUE(store.networks().empty());
  EXPECT_TRUE(store.runs().empty());
}

}  // namespace
}  // namespace opevo
