#include "store/store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "common/error.h"
#include "file_bytes.h"
#include "temp_dir.h"

namespace opevo {
namespace {

namespace fs = std::filesystem;

using test::TempDir;

RunRecord sampleRun() {
  RunRecord r;
  r.operatorName = "MM1";
  r.operatorJson = "{}";
  r.algorithm = "opevo";
  r.settingsJson = R"({"q":0.5})";
  r.seed = 7;
  r.backend = "cpu";
  r.device = "test cpu";
  r.budgetJson = R"({"trials":10})";
  r.speedUnit = "TFLOPS";
  return r;
}

TEST(Store, RunsAndTrialsSurviveReopening) {
  TempDir dir;
  const auto path = (dir.path / "sub" / "opevo.db").string();
  std::int64_t id = 0;
  {
    Store store(path);
    id = store.createRun(sampleRun());
    for (int i = 1; i <= 3; ++i) {
      TrialRow t;
      t.runId = id;
      t.seq = i;
      t.config = "tile_k=" + std::to_string(i);
      t.status = TrialStatus::Ok;
      t.timesMs = {1.0 * i, 2.0 * i};
      t.medianMs = 1.5 * i;
      t.speed = 10.0 / i;
      store.appendTrial(t);
    }
  }
  Store again(path);
  ASSERT_EQ(again.runs().size(), 1u);
  const auto run = again.run(id);
  ASSERT_TRUE(run.has_value());
  EXPECT_EQ(run->algorithm, "opevo");
  EXPECT_EQ(run->status, RunStatus::Running);
  EXPECT_EQ(run->endReason, EndReason::None);
  const auto trials = again.trials(id);
  ASSERT_EQ(trials.size(), 3u);
  EXPECT_EQ(trials[2].timesMs, (std::vector<double>{3.0, 6.0}));
  EXPECT_EQ(trials[1].config, "tile_k=2");
  again.setRunStatus(id, RunStatus::Finished, EndReason::Target);
  EXPECT_EQ(again.run(id)->status, RunStatus::Finished);
  EXPECT_EQ(again.run(id)->endReason, EndReason::Target);
  EXPECT_FALSE(again.run(id)->ended.empty());
}

// Each run's trial count and best working speed in one query; a failed trial's speed (0, or
// whatever it holds) is not a best.
TEST(Store, RunTalliesCountTrialsAndTakeTheBestWorkingOne) {
  TempDir dir;
  Store store((dir.path / "opevo.db").string());
  const std::int64_t a = store.createRun(sampleRun()), b = store.createRun(sampleRun());
  store.createRun(sampleRun());  // no trials
  const std::vector<std::pair<TrialStatus, double>> trials = {
      {TrialStatus::Ok, 2.5}, {TrialStatus::WrongResult, 9.0}, {TrialStatus::Ok, 3.5}};
  for (std::size_t i = 0; i < trials.size(); ++i) {
    TrialRow t;
    t.runId = a;
    t.seq = static_cast<int>(i) + 1;
    t.config = "tile_k=" + std::to_string(i);
    t.status = trials[i].first;
    t.speed = trials[i].second;
    store.appendTrial(t);
  }
  TrialRow failed;
  failed.runId = b;
  failed.seq = 1;
  failed.config = "tile_k=9";
  failed.status = TrialStatus::CompileError;
  store.appendTrial(failed);
  const std::map<std::int64_t, RunTally> tallies = store.runTallies();
  ASSERT_EQ(tallies.size(), 2u);
  EXPECT_EQ(tallies.at(a).trials, 3);
  EXPECT_EQ(tallies.at(a).best, 3.5);
  EXPECT_EQ(tallies.at(b).trials, 1);
  EXPECT_FALSE(tallies.at(b).best);
}

TEST(Store, DuplicateSequenceNumberIsRefused) {
  TempDir dir;
  Store store((dir.path / "a.db").string());
  const auto id = store.createRun(sampleRun());
  TrialRow t;
  t.runId = id;
  t.seq = 1;
  t.status = TrialStatus::Ok;
  store.appendTrial(t);
  EXPECT_THROW(store.appendTrial(t), InputError);
  EXPECT_EQ(store.trials(id).size(), 1u);
}

// A transaction inside another (a network's restore stores each task run with
// createRunWithTrials inside its own): the inner one's failure undoes only what it stored, and
// the outer one's undoes everything, the inner runs it committed included.
TEST(Store, ANestedTransactionIsPartOfTheOuterOne) {
  TempDir dir;
  Store store((dir.path / "a.db").string());
  TrialRow t;
  t.seq = 1;
  t.status = TrialStatus::Ok;
  store.inTransaction([&] {
    store.createRunWithTrials(sampleRun(), {t});
    // Two trials numbered 1: the inner transaction fails and takes its run with it.
    EXPECT_THROW(store.createRunWithTrials(sampleRun(), {t, t}), InputError);
  });
  ASSERT_EQ(store.runs().size(), 1u);
  EXPECT_EQ(store.trials(store.runs().front().id).size(), 1u);
  EXPECT_THROW(store.inTransaction([&] {
    store.createRunWithTrials(sampleRun(), {t});
    throw InputError("the outer transaction fails after the inner one committed");
  }),
               InputError);
  EXPECT_EQ(store.runs().size(), 1u);
}

TEST(Store, CorruptFileIsRefusedAndUntouched) {
  TempDir dir;
  const fs::path path = dir.path / "opevo.db";
  {
    Store store(path.string());
    store.createRun(sampleRun());
  }
  // Damage the start of every page but the first, keeping the header (one damaged page could be a
  // free one, which no check reads).
  std::string content = test::fileBytes(path);
  ASSERT_GT(content.size(), 4096u);
  for (std::size_t page = 4096; page < content.size(); page += 4096)
    for (std::size_t i = page; i < content.size() && i < page + 200; ++i) content[i] = '\x5a';
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << content;
  }
  fs::remove(dir.path / "opevo.db-wal");
  fs::remove(dir.path / "opevo.db-shm");
  try {
    Store broken(path.string());
    FAIL() << "a corrupt database must be refused";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("left untouched"), std::string::npos) << e.what();
  }
  EXPECT_EQ(test::fileBytes(path), content);
}

// What is wrong is said in plain words: a truncated file once read "cannot be read: preparing
// PRAGMA quick_check failed: ... (nothing already stored was changed) (left untouched)", a folder
// "unable to open database file", /dev/null "switching to WAL mode failed: disk I/O error", and a
// new file in a read-only folder was told to be copied.
TEST(Store, EachBadPathIsNamedPlainly) {
  TempDir dir;
  const fs::path path = dir.path / "cut.db";
  {
    Store store(path.string());
    for (int i = 0; i < 50; ++i) store.createRun(sampleRun());
  }
  fs::remove(dir.path / "cut.db-wal");
  fs::remove(dir.path / "cut.db-shm");
  fs::resize_file(path, fs::file_size(path) / 2);
  const auto message = [](const std::string& p) {
    try {
      Store s(p);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const std::string cut = message(path.string());
  EXPECT_NE(cut.find("is damaged: SQLite cannot read it (database disk image is malformed)"),
            std::string::npos)
      << cut;
  EXPECT_EQ(cut.find("preparing"), std::string::npos) << cut;
  const std::string folder = message(dir.path.string());
  EXPECT_NE(folder.find("is a folder, not a database file"), std::string::npos) << folder;
  // A new folder's name with its slash is refused before anything is made.
  const std::string newFolder = message((dir.path / "newdir").string() + "/");
  EXPECT_NE(newFolder.find("names a folder, not a database file"), std::string::npos) << newFolder;
  EXPECT_FALSE(fs::exists(dir.path / "newdir"));
  const std::string device = message("/dev/null");
  EXPECT_NE(device.find("is not a regular file"), std::string::npos) << device;
  if (::geteuid() != 0) {  // root writes anywhere
    const fs::path readOnly = dir.path / "ro";
    fs::create_directory(readOnly);
    fs::permissions(readOnly, fs::perms::owner_read | fs::perms::owner_exec);
    const std::string created = message((readOnly / "new.db").string());
    EXPECT_NE(created.find("cannot be created: its folder"), std::string::npos) << created;
    fs::permissions(readOnly, fs::perms::owner_all);
  }
}

// What a window reads for runs it already shows: a database moved or deleted meanwhile is said to
// be gone; neither it nor its folder is made again (an empty file at the old path, a temporary
// folder brought back after its owner removed it).
TEST(Store, AnExistingOnlyOpeningOfAGoneFileMakesNothing) {
  TempDir dir;
  const fs::path gone = dir.path / "moved" / "runs.db";
  try {
    Store store(gone.string(), Store::Opening::ExistingOnly);
    ADD_FAILURE() << "opened a database that is not there";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("is no longer there (moved or deleted?)"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find(gone.string()), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(dir.path / "moved"));
  { Store created(gone.string()); }
  EXPECT_NO_THROW(Store(gone.string(), Store::Opening::ExistingOnly));
}

// A database another program is writing to (its write lock held: a tune committing, an import)
// opens and reads at once: at the current schema nothing is written on opening. It waited 5 s for
// the lock and failed with "migrating ... locked" (opevo runs, the window's first read).
TEST(Store, OpensAndReadsWhileAnotherProgramHoldsTheWriteLock) {
  TempDir dir;
  const std::string path = (dir.path / "busy.db").string();
  {
    Store store(path);
    store.createRun(sampleRun());
  }
  sqlite3* writer = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &writer), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(writer, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
  // Before, opening took the write lock to migrate: it waited the 5 s busy timeout and threw.
  std::size_t runs = 0;
  EXPECT_NO_THROW(runs = Store(path).runs().size());
  sqlite3_exec(writer, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(writer);
  EXPECT_EQ(runs, 1u);
}

TEST(Store, NotSqliteForeignAndNewerAreRefused) {
  TempDir dir;
  const fs::path text = dir.path / "notes.db";
  std::ofstream(text) << "these are my notes, not a database\n";
  const std::string before = test::fileBytes(text);
  EXPECT_THROW(Store(text.string()), InputError);
  EXPECT_EQ(test::fileBytes(text), before);

  const fs::path foreign = dir.path / "foreign.db";
  sqlite3* db = nullptr;
  sqlite3_open(foreign.c_str(), &db);
  sqlite3_exec(db, "CREATE TABLE invoices(id INTEGER)", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  const std::string foreignBytes = test::fileBytes(foreign);
  try {
    Store s(foreign.string());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("another application"), std::string::npos) << e.what();
  }
  EXPECT_EQ(test::fileBytes(foreign), foreignBytes);

  const fs::path newer = dir.path / "newer.db";
  { Store s(newer.string()); }
  sqlite3_open(newer.c_str(), &db);
  sqlite3_exec(db, "PRAGMA user_version=99", nullptr, nullptr, nullptr);
  sqlite3_close(db);
  const std::string newerBytes = test::fileBytes(newer);
  try {
    Store s(newer.string());
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("schema version 99"), std::string::npos) << e.what();
  }
  EXPECT_EQ(test::fileBytes(newer), newerBytes);
}

// The schema's CHECK lists are frozen in their migration; every value the enums have must fit
// them (a new value needs a new migration).
TEST(Store, EveryStatusAndEndReasonFitsTheSchema) {
  TempDir dir;
  Store store((dir.path / "enums.db").string());
  for (int s = 0; s <= static_cast<int>(RunStatus::Failed); ++s)
    for (int e = 0; e <= static_cast<int>(EndReason::Failed); ++e) {
      RunRecord r = sampleRun();
      r.status = static_cast<RunStatus>(s);
      r.endReason = static_cast<EndReason>(e);
      const auto id = store.createRun(r);
      EXPECT_EQ(store.run(id)->status, r.status);
      EXPECT_EQ(store.run(id)->endReason, r.endReason);
    }
  const auto id = store.createRun(sampleRun());
  for (int s = 0; s <= static_cast<int>(TrialStatus::WrongResult); ++s) {
    TrialRow t;
    t.runId = id;
    t.seq = s + 1;
    t.status = static_cast<TrialStatus>(s);
    store.appendTrial(t);
  }
  const auto trials = store.trials(id);
  ASSERT_EQ(trials.size(), 7u);
  EXPECT_EQ(trials.back().status, TrialStatus::WrongResult);
  EXPECT_EQ(trials.back().order, 7);  // no order given: its place in the run
}

TEST(Store, RacesGroupTheirRunsAndKeepTheReference) {
  TempDir dir;
  Store store((dir.path / "race.db").string());
  const auto race = store.createRace(Schedule::RoundRobin, 1);
  std::vector<std::int64_t> ids;
  for (int repeat = 0; repeat < 2; ++repeat)
    for (int a = 0; a < 2; ++a) {
      RunRecord r = sampleRun();
      r.raceId = race;
      r.raceAlgorithm = a;
      r.raceRepeat = repeat;
      ids.push_back(store.createRun(r));
    }
  store.createRun(sampleRun());  // a run of its own
  store.setRunReference(ids[3], "OpenBLAS sgemm", 0.25);
  const auto runs = store.raceRuns(race);
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_EQ(runs[3].raceAlgorithm, 1);
  EXPECT_EQ(runs[3].raceRepeat, 1);
  EXPECT_EQ(runs[3].referenceLibrary, "OpenBLAS sgemm");
  EXPECT_EQ(runs[3].referenceSpeed, 0.25);
  EXPECT_FALSE(runs[0].referenceSpeed.has_value());
  EXPECT_EQ(store.runs().back().raceId, 0);
  TrialRow t;
  t.runId = ids[1];
  t.seq = 1;
  t.order = 12;
  store.appendTrial(t);
  EXPECT_EQ(store.lastOrder(runs[0]), 12);
}

// The window and `opevo tune` may open a new file at the same moment: one creates the tables,
// the other finds them, neither fails.
TEST(Store, OpenedByManyAtOnceANewFileIsCreatedOnce) {
  for (int round = 0; round < 5; ++round) {
    TempDir dir;
    const std::string path = (dir.path / "shared.db").string();
    std::vector<std::thread> openers;
    std::mutex mutex;
    std::vector<std::string> failures;
    for (int i = 0; i < 4; ++i)
      openers.emplace_back([&] {
        try {
          Store s(path);
          s.createRun(sampleRun());
        } catch (const std::exception& e) {
          std::lock_guard lock(mutex);
          failures.push_back(e.what());
        }
      });
    for (auto& t : openers) t.join();
    EXPECT_TRUE(failures.empty()) << failures.front();
    EXPECT_EQ(Store(path).runs().size(), 4u);
  }
}

// Opening a file another program is writing under an exclusive lock (as when it creates the file,
// before WAL mode) waits for the lock instead of calling the file unreadable.
TEST(Store, OpeningWaitsForAnotherProgramsWrite) {
  TempDir dir;
  const std::string path = (dir.path / "busy.db").string();
  { Store(path).createRun(sampleRun()); }
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other,
                         "PRAGMA journal_mode=DELETE; BEGIN EXCLUSIVE; "
                         "INSERT INTO races (started) VALUES ('now')",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  std::thread release([other] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    sqlite3_exec(other, "COMMIT", nullptr, nullptr, nullptr);
  });
  EXPECT_NO_THROW({
    Store store(path);
    EXPECT_EQ(store.runs().size(), 1u);
  });
  release.join();
  sqlite3_close(other);
}

TEST(Store, DefaultPathFollowsXdg) {
  setenv("XDG_DATA_HOME", "/tmp/xdg-test", 1);
  EXPECT_EQ(Store::defaultPath(), "/tmp/xdg-test/opevo-studio/opevo.db");
  unsetenv("XDG_DATA_HOME");
  setenv("HOME", "/home/someone", 1);
  EXPECT_EQ(Store::defaultPath(), "/home/someone/.local/share/opevo-studio/opevo.db");
  // One database named for a session (opevo-studio --db), before either.
  setenv("OPEVO_DB", "/tmp/elsewhere/runs.db", 1);
  EXPECT_EQ(Store::defaultPath(), "/tmp/elsewhere/runs.db");
  unsetenv("OPEVO_DB");
  EXPECT_EQ(Store::defaultPath(), "/home/someone/.local/share/opevo-studio/opevo.db");
}

// Issue 18 (fuzz/corpus/store_columns/regression-times-json-*): a times_json that is not a JSON
// array of numbers (a damaged or hand-edited file) escaped from trials() as the JSON library's
// exception; it is the store's InputError naming the run, the trial and the column.
TEST(Store, CorruptTimesJsonNamesTheRunTrialAndColumn) {
  TempDir dir;
  const auto path = (dir.path / "opevo.db").string();
  Store store(path);
  const std::int64_t id = store.createRun(sampleRun());
  TrialRow t;
  t.runId = id;
  t.seq = 2;
  t.timesMs = {1.0};
  store.appendTrial(t);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  auto setTimes = [&](const std::string& text) {
    sqlite3_stmt* s = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, "UPDATE trials SET times_json = ?", -1, &s, nullptr),
              SQLITE_OK);
    sqlite3_bind_text(s, 1, text.c_str(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
    EXPECT_EQ(sqlite3_step(s), SQLITE_DONE);
    sqlite3_finalize(s);
  };
  const std::vector<std::string> corrupt = {"[1.0, oops", "{\"a\": 1}", "[1.0, \"2\"]", "",
                                            "[[1]]"};
  for (const std::string& bad : corrupt) {
    setTimes(bad);
    try {
      store.trials(id);
      ADD_FAILURE() << "no error for " << bad;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), "database '" + path + "': run " + std::to_string(id) +
                                           ", trial 2: column trials.times_json holds '" + bad +
                                           "', expected a JSON array of times in ms such as "
                                           "[1.5, 1.6]");
    }
  }
  // What the JSON writer makes of a NaN or infinite time (null) reads back as NaN.
  setTimes("[null, 2.5]");
  const auto trials = store.trials(id);
  ASSERT_EQ(trials.size(), 1u);
  ASSERT_EQ(trials[0].timesMs.size(), 2u);
  EXPECT_TRUE(std::isnan(trials[0].timesMs[0]));
  EXPECT_EQ(trials[0].timesMs[1], 2.5);
  sqlite3_close(db);
}

}  // namespace
}  // namespace opevo
