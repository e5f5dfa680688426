#include "store/store.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <thread>

#include "common/error.h"
#include "store/files_beside.h"
#include "store/sqlite_handle.h"

namespace opevo {
namespace {

// "OPEV": marks our files, so another application's SQLite database is not mistaken for ours.
constexpr std::int64_t kApplicationId = 0x4F504556;

// Schema 2, as the 1 -> 2 migration leaves a version 1 file (history: never edit).
const char* const kSchemaV2 = R"sql(
    CREATE TABLE races (
      id INTEGER PRIMARY KEY,
      started TEXT NOT NULL);
    CREATE TABLE runs (
      id INTEGER PRIMARY KEY,
      operator_name TEXT NOT NULL,
      operator_json TEXT NOT NULL,
      algorithm TEXT NOT NULL,
      settings_json TEXT NOT NULL,
      seed INTEGER NOT NULL,
      backend TEXT NOT NULL,
      device TEXT NOT NULL,
      budget_json TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('running','finished','interrupted','failed')),
      end_reason TEXT NOT NULL DEFAULT ''
        CHECK (end_reason IN ('','trials','time','target','exhausted','stopped','failed')),
      started TEXT NOT NULL,
      ended TEXT NOT NULL DEFAULT '',
      speed_unit TEXT NOT NULL DEFAULT '',
      label TEXT NOT NULL DEFAULT '',
      race_id INTEGER REFERENCES races(id),
      race_algorithm INTEGER NOT NULL DEFAULT 0,
      race_repeat INTEGER NOT NULL DEFAULT 0,
      reference_library TEXT NOT NULL DEFAULT '',
      reference_speed REAL);
    CREATE TABLE trials (
      run_id INTEGER NOT NULL REFERENCES runs(id),
      seq INTEGER NOT NULL,
      measure_order INTEGER NOT NULL,
      config TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('ok','rejected','compile_error','launch_error',
                                             'runtime_fault','timeout','wrong_result')),
      message TEXT NOT NULL,
      times_json TEXT NOT NULL,
      median_ms REAL NOT NULL,
      speed REAL NOT NULL,
      compile_ms REAL NOT NULL,
      tuning_seconds REAL NOT NULL DEFAULT 0,
      started TEXT NOT NULL,
      finished TEXT NOT NULL,
      PRIMARY KEY (run_id, seq));
    CREATE INDEX trials_by_config ON trials(config);
    CREATE INDEX runs_by_race ON runs(race_id);
    )sql";

// Schema 3 adds networks: a network run, the ordinary run that tunes each of its tasks, and the
// units of trials its task scheduler handed out, in order (what a resume replays).
const char* const kNetworkTables = R"sql(
    CREATE TABLE networks (
      id INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      source TEXT NOT NULL,
      network_json TEXT NOT NULL,
      params_json TEXT NOT NULL,
      backend TEXT NOT NULL,
      plan_json TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('running','finished','interrupted','failed')),
      started TEXT NOT NULL,
      ended TEXT NOT NULL DEFAULT '',
      result_json TEXT NOT NULL DEFAULT '');
    CREATE TABLE network_tasks (
      network_id INTEGER NOT NULL REFERENCES networks(id),
      task INTEGER NOT NULL,
      run_id INTEGER NOT NULL REFERENCES runs(id),
      PRIMARY KEY (network_id, task));
    CREATE TABLE network_units (
      network_id INTEGER NOT NULL REFERENCES networks(id),
      seq INTEGER NOT NULL,
      task INTEGER NOT NULL,
      trials INTEGER NOT NULL,
      PRIMARY KEY (network_id, seq));
    )sql";

// Schema 4 adds Canvas's kernel searches: a search's settings and baseline, and every candidate
// it sampled with how far it got (tuned for speed, trained for accuracy) and its figures.
const char* const kKasTables = R"sql(
    CREATE TABLE kas_searches (
      id INTEGER PRIMARY KEY,
      network TEXT NOT NULL,
      settings_json TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('running','finished','interrupted','failed')),
      started TEXT NOT NULL,
      ended TEXT NOT NULL DEFAULT '',
      baseline_json TEXT NOT NULL DEFAULT '');
    CREATE TABLE kas_candidates (
      search_id INTEGER NOT NULL REFERENCES kas_searches(id),
      seq INTEGER NOT NULL,
      hash TEXT NOT NULL,
      kernel_json TEXT NOT NULL,
      groups INTEGER NOT NULL,
      stage TEXT NOT NULL CHECK (stage IN ('sampled','tuned','trained','failed')),
      flops_ratio REAL NOT NULL,
      params_ratio REAL NOT NULL,
      kernel_ms REAL,
      conv_ms REAL,
      accuracy REAL,
      stopped_early INTEGER NOT NULL DEFAULT 0,
      tune_seconds REAL NOT NULL DEFAULT 0,
      train_seconds REAL NOT NULL DEFAULT 0,
      tuning_json TEXT NOT NULL DEFAULT '',
      training_json TEXT NOT NULL DEFAULT '',
      message TEXT NOT NULL DEFAULT '',
      PRIMARY KEY (search_id, seq));
    )sql";

// Schema 5 keeps what measuring a trial cost beside its timed runs: checking its output against
// the reference, and the whole measurement as the measurer saw it (the worker's start, transfers,
// the checked and warm-up runs...), which T4 files export as validation and framework time.
// Trials stored before it have 0 for both: not measured.
const char* const kTrialCostColumns = R"sql(
    ALTER TABLE trials ADD COLUMN verify_ms REAL NOT NULL DEFAULT 0;
    ALTER TABLE trials ADD COLUMN measure_ms REAL NOT NULL DEFAULT 0;
    )sql";

// Schema 6 keeps the tuner's own time for each trial (proposing its batch, model fits included,
// shared evenly by the batch), which trials.csv and T4 files export. Trials stored before it read
// 0: not measured.
const char* const kTunerTimeColumn = R"sql(
    ALTER TABLE trials ADD COLUMN tuner_ms REAL NOT NULL DEFAULT 0;
    )sql";

// Schema 6 also times CPU kernels in GFLOP/s (engine/speed_unit.h): a CPU run stored in TFLOPS
// moves whole to the new unit, its trials, its reference and its target, so it still compares
// with (and warm-starts) the runs measured since.
const char* const kCpuSpeedsInGflops = R"sql(
    CREATE TEMP TABLE tflops_cpu_runs AS
      SELECT id FROM runs WHERE backend = 'cpu' AND speed_unit = 'TFLOPS';
    UPDATE trials SET speed = speed * 1000 WHERE run_id IN (SELECT id FROM tflops_cpu_runs);
    UPDATE runs SET reference_speed = reference_speed * 1000
      WHERE id IN (SELECT id FROM tflops_cpu_runs) AND reference_speed IS NOT NULL;
    UPDATE runs SET budget_json = json_set(budget_json, '$.target',
                                           json_extract(budget_json, '$.target') * 1000)
      WHERE id IN (SELECT id FROM tflops_cpu_runs) AND json_valid(budget_json)
        AND json_type(budget_json, '$.target') IN ('integer', 'real');
    UPDATE runs SET speed_unit = 'GFLOP/s' WHERE id IN (SELECT id FROM tflops_cpu_runs);
    DROP TABLE tflops_cpu_runs;
    )sql";

// Schema 7 keeps a run's side-by-side timing (opevo tune's last step: its best configurations
// and the library timed in turns): which configuration was fastest there, and the fair ratio.
// A run's export takes that configuration. Runs stored before it have none.
const char* const kSideBySideColumn = R"sql(
    ALTER TABLE runs ADD COLUMN side_by_side_json TEXT NOT NULL DEFAULT '';
    )sql";

// The runs deleted: a new run never takes a deleted one's id (SQLite gives the newest row's id
// again once it is gone), so a "--resume 3", an export's run-3 folder or a trial answered "from
// history: run 3" written before the deletion never name another run, and asking for a deleted
// run says when it went.
const char* const kDeletedRunsTable = R"sql(
    CREATE TABLE deleted_runs (
      id INTEGER PRIMARY KEY,
      deleted TEXT NOT NULL,
      description TEXT NOT NULL);
    )sql";

// The deleted network runs, as deleted_runs for runs: a network run's id is never given again.
const char* const kDeletedNetworksTable = R"sql(
    CREATE TABLE deleted_networks (
      id INTEGER PRIMARY KEY,
      deleted TEXT NOT NULL,
      description TEXT NOT NULL);
    )sql";

// Schema 10 keeps why a run ended badly, in words (RunRecord::failure): `opevo runs`, `opevo
// show` and History said "failed" and no more, the error gone with the program that met it. Runs
// stored before it have none.
const char* const kRunFailureColumn = R"sql(
    ALTER TABLE runs ADD COLUMN failure TEXT NOT NULL DEFAULT '';
    )sql";

// Schema 11 keeps which cluster agent measured each trial (TrialRow::agent): a run measured on
// several nodes mixed their timings with no word of where each came from, so one odd timing could
// not be traced to its node. Empty for this machine's trials, and for trials stored before it.
const char* const kTrialAgentColumn = R"sql(
    ALTER TABLE trials ADD COLUMN agent TEXT NOT NULL DEFAULT '';
    )sql";

// Schema 12 keeps how a race's engine took its runs in turn (Schedule) and the seed of a shuffle:
// a shuffled race stopped and resumed went on round-robin, its first run measured first in every
// round from then on. Races stored before it were all round-robin.
const char* const kRaceScheduleColumns = R"sql(
    ALTER TABLE races ADD COLUMN schedule TEXT NOT NULL DEFAULT 'round-robin'
      CHECK (schedule IN ('round-robin','shuffle'));
    ALTER TABLE races ADD COLUMN schedule_seed INTEGER NOT NULL DEFAULT 1;
    )sql";

// The current schema, as a new file gets it and as the last migration leaves an old one.
const std::string kSchema = std::string(kSchemaV2) + kNetworkTables + kKasTables +
                            kTrialCostColumns + kTunerTimeColumn + kSideBySideColumn +
                            kDeletedRunsTable + kDeletedNetworksTable + kRunFailureColumn +
                            kTrialAgentColumn + kRaceScheduleColumns;

// Migration i takes the schema from version i + 1 to i + 2; a new file gets kSchema at once, with
// no free pages left behind. Migrations are history: each names the schema text of its own
// version, never kSchema, so an old step keeps producing its version. Keep a database written by
// the release before each migration in tests/data.
struct Migration {
  const char* before;  // moves the old tables aside
  const char* schema;  // the tables of the new version
  const char* after;   // copies the old rows in, drops the old tables
};
const Migration kMigrations[] = {
    // 1 -> 2: enums as checked columns, race membership and the reference library as columns (v1
    // hid them in operator_json), each trial's order within its race and its run's tuning time.
    {R"sql(
    ALTER TABLE trials RENAME TO trials_v1;
    ALTER TABLE runs RENAME TO runs_v1;
    DROP INDEX IF EXISTS trials_by_config;
    )sql",
     kSchemaV2,
     R"sql(
    -- v1's window kept a race's start time as its key, in operator_json.
    INSERT INTO races (started)
      SELECT DISTINCT json_extract(operator_json, '$.race') FROM runs_v1
      WHERE json_valid(operator_json) AND json_type(operator_json, '$.race') = 'text' ORDER BY 1;
    INSERT INTO runs (id, operator_name, operator_json, algorithm, settings_json, seed, backend,
                      device, budget_json, status, started, ended, speed_unit, label, race_id,
                      race_repeat, reference_library, reference_speed)
      SELECT v.id, v.operator_name,
             CASE WHEN json_valid(v.operator_json)
                  THEN json_remove(v.operator_json, '$.race', '$.repeat', '$.label', '$.reference')
                  ELSE v.operator_json END,
             v.algorithm, v.settings_json, v.seed, v.backend, v.device, v.budget_json,
             CASE WHEN v.status IN ('running','finished','interrupted','failed') THEN v.status
                  ELSE 'interrupted' END,
             v.started, v.ended, v.speed_unit,
             COALESCE(CASE WHEN json_valid(v.operator_json) THEN json_extract(v.operator_json, '$.label') END, ''),
             (SELECT r.id FROM races r WHERE json_valid(v.operator_json)
                AND r.started = json_extract(v.operator_json, '$.race')),
             COALESCE(CASE WHEN json_valid(v.operator_json) THEN json_extract(v.operator_json, '$.repeat') END, 0),
             COALESCE(CASE WHEN json_valid(v.operator_json) THEN json_extract(v.operator_json, '$.reference.library') END, ''),
             CASE WHEN json_valid(v.operator_json) THEN json_extract(v.operator_json, '$.reference.speed') END
      FROM runs_v1 v;
    -- An algorithm's place in its race: the order in which the race first ran it.
    UPDATE runs SET race_algorithm = (
      SELECT p.place FROM (SELECT race_id, algorithm, row_number() OVER (PARTITION BY race_id ORDER BY min(id)) - 1 AS place
                           FROM runs WHERE race_id IS NOT NULL GROUP BY race_id, algorithm) p
      WHERE p.race_id = runs.race_id AND p.algorithm = runs.algorithm)
    WHERE race_id IS NOT NULL;
    -- v1's races ran their runs one after another: a trial's order in its race follows the
    -- trials of the race's earlier runs.
    CREATE TEMP TABLE run_offsets AS
      SELECT r.id AS run_id,
             (SELECT count(*) FROM trials_v1 t JOIN runs e ON t.run_id = e.id
              WHERE r.race_id IS NOT NULL AND e.race_id = r.race_id AND e.id < r.id) AS earlier
      FROM runs r;
    INSERT INTO trials (run_id, seq, measure_order, config, status, message, times_json, median_ms,
                        speed, compile_ms, started, finished)
      SELECT t.run_id, t.seq, t.seq + o.earlier, t.config, t.status, t.message, t.times_json,
             t.median_ms, t.speed, t.compile_ms, t.started, t.finished
      FROM trials_v1 t JOIN run_offsets o ON o.run_id = t.run_id;
    DROP TABLE run_offsets;
    DROP TABLE trials_v1;
    DROP TABLE runs_v1;
    )sql"},
    // 2 -> 3: networks; nothing moves.
    {"", kNetworkTables, ""},
    // 3 -> 4: Canvas's kernel searches; nothing moves.
    {"", kKasTables, ""},
    // 4 -> 5: each trial's verification and measurement time; old trials read 0.
    {"", kTrialCostColumns, ""},
    // 5 -> 6: each trial's tuner time (old trials read 0); CPU runs in GFLOP/s.
    {"", kTunerTimeColumn, kCpuSpeedsInGflops},
    // 6 -> 7: a run's side-by-side timing (old runs have none).
    {"", kSideBySideColumn, ""},
    // 7 -> 8: the deleted runs (none before).
    {"", kDeletedRunsTable, ""},
    // 8 -> 9: the deleted network runs (none before).
    {"", kDeletedNetworksTable, ""},
    // 9 -> 10: why a run failed (old runs say nothing).
    {"", kRunFailureColumn, ""},
    // 10 -> 11: the agent that measured each trial (old trials name none).
    {"", kTrialAgentColumn, ""},
    // 11 -> 12: each race's schedule (old races were round-robin).
    {"", kRaceScheduleColumns, ""},
};

std::string inQuotes(const std::string& path) {
  return "'" + path + "'";
}

enum class Header { Empty, Sqlite, Foreign, Unreadable };

// The first 16 bytes of the database file `db` has open, read with SQLite's file handle.
Header readHeader(sqlite3* db) {
  sqlite3_file* file = nullptr;
  if (sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK || !file ||
      !file->pMethods)
    return Header::Unreadable;
  sqlite3_int64 size = 0;
  if (file->pMethods->xFileSize(file, &size) != SQLITE_OK) return Header::Unreadable;
  if (size == 0) return Header::Empty;
  char header[16] = {0};
  // A file shorter than the header reads short, the rest zero: no SQLite file either way.
  const int rc = file->pMethods->xRead(file, header, sizeof header, 0);
  if (rc != SQLITE_OK && rc != SQLITE_IOERR_SHORT_READ) return Header::Unreadable;
  return std::string(header, 16) == std::string("SQLite format 3\0", 16) ? Header::Sqlite
                                                                         : Header::Foreign;
}

// Whether the disk holding `path` has less than a megabyte left: too little for SQLite's -wal
// and -shm files.
bool diskFull(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  const auto space = std::filesystem::space(folder.empty() ? "." : folder, ec);
  return !ec && space.available < (1u << 20);
}

// Everything that decides whether the file may be opened, without writing to it. `name` is what
// SQLite opens: the path, or a read-only opening's URI (readOnlyName) when `uri`.
void checkFile(const std::string& path, const std::string& name, bool uri) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(name.c_str(), &db, SQLITE_OPEN_READONLY | (uri ? SQLITE_OPEN_URI : 0),
                      nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    throw InputError("database " + inQuotes(path) + " cannot be opened (left untouched)");
  }
  // The header is read through SQLite's own handle of the file, never a descriptor of our own:
  // closing any descriptor of the file drops every POSIX lock this process holds on it, those of
  // its other connections too (the window's pages and engine each hold one), and another program
  // then took the database for unused, checkpointed it and removed its write-ahead log under
  // them ("disk I/O error", pages lost). SQLite's unix VFS keeps a descriptor open while the
  // process holds locks on the file.
  switch (readHeader(db)) {
    case Header::Empty:
      sqlite3_close(db);
      return;  // SQLite treats an empty file as a new database
    case Header::Foreign:
      sqlite3_close(db);
      throw InputError("database " + inQuotes(path) +
                       " is not an SQLite file (left untouched; open another database file: --db "
                       "FILE, for the window too)");
    case Header::Unreadable:
      sqlite3_close(db);
      throw InputError("database " + inQuotes(path) + " cannot be read (left untouched)");
    case Header::Sqlite:
      break;
  }
  // Another program may be writing it right now (creating or migrating it, committing a trial).
  sqlite3_busy_timeout(db, kBusyWaitMs);
  std::string problem;
  try {
    Statement check(db, "PRAGMA quick_check");
    if (!check.step() || check.text(0) != "ok")
      problem = "is corrupt (integrity check: " + check.text(0) + ")";
    if (problem.empty()) {
      Statement app(db, "PRAGMA application_id");
      app.step();
      Statement version(db, "PRAGMA user_version");
      version.step();
      Statement tables(db, "SELECT count(*) FROM sqlite_master");
      tables.step();
      if (app.integer(0) != kApplicationId && tables.integer(0) > 0)
        problem = "belongs to another application (no OpEvo Studio schema)";
      else if (version.integer(0) > Store::kSchemaVersion)
        problem = "has schema version " + std::to_string(version.integer(0)) +
                  ", newer than this build's " + std::to_string(Store::kSchemaVersion) +
                  " (upgrade OpEvo Studio to open it)";
    }
  } catch (const InputError& e) {
    // SQLite's own words (a truncated or overwritten file: "database disk image is malformed").
    const int code = sqlite3_errcode(db) & 0xff;
    if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB)
      problem = std::string("is damaged: SQLite cannot read it (") + sqlite3_errmsg(db) +
                "); restore it from a copy, or open another database file (--db FILE, for the "
                "window too)";
    else if (code == SQLITE_BUSY || code == SQLITE_LOCKED)
      problem = "is held by another program that has not let go of it for " +
                std::to_string(kBusyWaitMs / 1000) + " s; try again once it has";
    else if (code == SQLITE_IOERR && diskFull(path))
      // Opening writes the -wal and -shm files beside it: "disk I/O error" was all it said.
      problem =
          "cannot be opened: the disk holding it is full (SQLite writes its -wal and -shm "
          "files beside it); make room there";
    else
      problem = std::string("cannot be read now: ") + e.what();
  }
  sqlite3_close(db);
  if (!problem.empty())
    throw InputError("database " + inQuotes(path) + " " + problem + " (left untouched)");
}

// checkFile, and a refused file keeps nothing beside it that the check made: its read-only
// connection reads a WAL file through a -wal and -shm it makes where they are missing, and cannot
// remove them as it closes (that needs a checkpoint, which is a write).
void checkExisting(const std::string& path, const std::string& name, bool uri) {
  const FilesBeside before(path);
  try {
    checkFile(path, name, uri);
  } catch (const InputError&) {
    before.removeWhatWasMade();
    throw;
  }
}

bool canWrite(const std::string& path) {
  const std::filesystem::path file(path);
  const std::filesystem::path folder =
      file.parent_path().empty() ? std::filesystem::path(".") : file.parent_path();
  const char* target = std::filesystem::exists(file) ? path.c_str() : folder.c_str();
  return ::access(target, W_OK) == 0 && ::access(folder.c_str(), W_OK) == 0;
}

// What stores runs needs the file and its folder writable (SQLite in WAL mode writes its -wal and
// -shm beside it): a read-only file, folder or file system is refused here by name, before
// anything is measured, where SQLite said "unable to open database file" at the first statement.
void requireWritable(const std::string& path) {
  if (canWrite(path)) return;
  const std::string reason = std::strerror(errno);
  const std::filesystem::path file(path);
  const std::filesystem::path folder =
      file.parent_path().empty() ? std::filesystem::path(".") : file.parent_path();
  if (!std::filesystem::exists(file))
    throw InputError(
        "database " + inQuotes(path) + " cannot be created: its folder " +
        inQuotes(folder.string()) + " is not writable (" + reason +
        "); give a database file in a writable folder (--db FILE, for the window too)");
  throw InputError("database " + inQuotes(path) + " cannot be written: it or its folder is " +
                   "read-only (" + reason +
                   "); copy it to a writable folder and give the copy (--db FILE), or give "
                   "another database (reading it works: opevo runs, show, export, net runs and the "
                   "window's History) (left "
                   "untouched)");
}

// "file:///abs/path?query": a path as an SQLite URI (SQLITE_OPEN_URI), its '%', '?' and '#'
// escaped so that they stay part of the name.
std::string fileUri(const std::string& path, const std::string& query) {
  std::string uri = "file://";
  for (const char c : std::filesystem::absolute(path).string()) {
    if (c == '%' || c == '?' || c == '#') {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", static_cast<unsigned char>(c));
      uri += hex;
    } else {
      uri += c;
    }
  }
  return uri + "?" + query;
}

// What SQLite opens to read a file this process cannot write, making nothing beside it. In WAL
// mode SQLite reads through the write-ahead log (-wal) and its shared-memory index (-shm), and a
// reader makes whichever is missing where the folder allows: files it owns, which it leaves
// there, and which fail the owner's next write ("attempt to write a readonly database") in a
// shared folder. So only a file whose -wal and -shm are both there (its owner's program has it
// open, or left them) is read through them (tried: nothing made, nothing changed); one whose -wal
// is gone or empty holds every commit and is read as immutable (no -wal, -shm or lock); one whose
// -wal holds commits without a -shm is refused, whatever the folder, rather than read without its
// latest trials.
std::string readOnlyName(const std::string& path) {
  const std::string wal = path + "-wal";
  std::error_code walUnknown, shmUnknown, sizeUnknown;
  const bool hasWal = std::filesystem::exists(wal, walUnknown);
  const bool hasShm = std::filesystem::exists(path + "-shm", shmUnknown);
  if (hasWal && hasShm) return fileUri(path, "mode=ro");
  const std::uintmax_t walBytes = hasWal ? std::filesystem::file_size(wal, sizeUnknown) : 0;
  if (walBytes == 0 && !walUnknown && !sizeUnknown) return fileUri(path, "mode=ro&immutable=1");
  throw InputError(
      "database " + inQuotes(path) + " cannot be read here: it is read-only to this user, and " +
      "its write-ahead log " + inQuotes(wal) + " (" + std::to_string(walBytes) +
      " bytes) holds commits not yet written into it, which SQLite reads only through a " +
      inQuotes(path + "-shm") +
      " index that is not there (made by this user, it would be left beside the file and fail "
      "its owner's next write; reading without it would miss the latest trials); copy the file "
      "together with its -wal into a writable folder and open the copy (left untouched)");
}

// Switching to WAL needs the file to itself, and SQLite returns "busy" at once rather than wait
// for it (its busy handler is skipped there), so the waiting is done here: the window and
// `opevo tune` may open a new file at the same moment.
void switchToWal(sqlite3* db, const std::string& path) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyWaitMs);
  while (sqlite3_exec(db, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr) != SQLITE_OK) {
    if ((sqlite3_errcode(db) & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() > deadline)
      throwSqlite(db, "switching " + inQuotes(path) + " to WAL mode");
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

Store::Opening Store::openingToList(const std::string& path) {
  std::error_code ec;
  return std::filesystem::exists(path, ec) ? Opening::ExistingOnly : Opening::CreateWhenMissing;
}

std::string Store::defaultPath() {
  // A database named for the whole session (opevo-studio --db sets it for its pages).
  if (const char* db = std::getenv("OPEVO_DB"); db && *db) return db;
  std::filesystem::path base;
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg)
    base = xdg;
  else if (const char* home = std::getenv("HOME"); home && *home)
    base = std::filesystem::path(home) / ".local" / "share";
  else
    base = ".";
  return (base / "opevo-studio" / "opevo.db").string();
}

std::string Store::nowUtc() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()) % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buffer[40];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[48];
  std::snprintf(out, sizeof out, "%s.%03dZ", buffer, static_cast<int>(ms.count()));
  return out;
}

Store::Store(const std::string& path, Opening opening) : m_path(path) {
  std::error_code ec;
  const bool existingOnly = opening == Opening::ExistingOnly;
  if (existingOnly && !std::filesystem::exists(path, ec))
    throw InputError("database " + inQuotes(path) +
                     (ec ? " cannot be reached: " + ec.message()
                         : std::string(" is no longer there (moved or deleted?)")));
  // "newdir/" names a folder: refused before its folders are made, not after, which left an empty
  // folder behind and then called it one.
  if (!path.empty() && !std::filesystem::path(path).has_filename())
    throw InputError("database " + inQuotes(path) +
                     " names a folder, not a database file (give a " + "file, e.g. " +
                     (std::filesystem::path(path) / "opevo.db").string() + ")");
  const auto folder = std::filesystem::path(path).parent_path();
  if (!folder.empty() && !existingOnly) std::filesystem::create_directories(folder, ec);
  if (ec)
    throw InputError("cannot create the database folder " + folder.string() + ": " + ec.message());
  // A folder, a device (/dev/null) or a pipe is no database file: said by name, before SQLite
  // fails on it with "unable to open database file" or "disk I/O error".
  if (std::filesystem::is_directory(path, ec))
    throw InputError("database " + inQuotes(path) + " is a folder, not a database file (give a " +
                     "file, e.g. " + (std::filesystem::path(path) / "opevo.db").string() + ")");
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
    throw InputError("database " + inQuotes(path) +
                     " is not a regular file (a device, pipe or socket): give a database file");
  // What reads runs already stored reads a file it cannot write as it is (a colleague's copy, a
  // read-only share); what stores runs is refused at once.
  m_readOnly = existingOnly && !canWrite(path);
  if (!m_readOnly) requireWritable(path);
  const std::string name = m_readOnly ? readOnlyName(path) : path;
  // What a refusal below leaves of what opening made: nothing (a full disk, a lock held past the
  // wait, failing the switch to WAL, left a new empty database, or a -wal and -shm, behind).
  const FilesBeside before(path);
  if (std::filesystem::exists(path)) checkExisting(path, name, m_readOnly);
  // Without SQLITE_OPEN_CREATE, a file deleted since the check above is not made again empty.
  const int flags = m_readOnly ? SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
                               : SQLITE_OPEN_READWRITE | (existingOnly ? 0 : SQLITE_OPEN_CREATE);
  if (sqlite3_open_v2(name.c_str(), &m_db, flags, nullptr) != SQLITE_OK) {
    const std::string reason = m_db ? sqlite3_errmsg(m_db) : "out of memory";
    sqlite3_close(m_db);
    before.removeWhatWasMade();
    throw InputError("cannot open database " + inQuotes(path) + ": " + reason);
  }
  sqlite3_busy_timeout(m_db, kBusyWaitMs);
  try {
    if (m_readOnly) {
      openedReadOnly();
      return;
    }
    switchToWal(m_db, path);
    // NORMAL in WAL mode: a committed trial survives a killed process (only a power loss can
    // take the last commits), at a fraction of FULL's cost.
    exec(m_db, "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON",
         "configuring " + inQuotes(path));
    migrate();
  } catch (...) {
    sqlite3_close(m_db);
    before.removeWhatWasMade();
    throw;
  }
}

void Store::openedReadOnly() {
  // Every write fails as SQLite's "read-only", also on the copy in memory below.
  const std::string doing = "reading " + inQuotes(m_path);
  exec(m_db, "PRAGMA query_only=1", doing);
  {
    Statement version(m_db, "PRAGMA user_version");
    version.step();
    if (version.integer(0) >= kSchemaVersion) return;
  }
  // An older schema cannot be upgraded in a file that cannot be written: the file is copied into
  // memory and the copy upgraded, so that it reads as any other (a colleague's database from an
  // older release). It costs memory as large as the file, for as long as the store is open.
  sqlite3* memory = nullptr;
  if (sqlite3_open(":memory:", &memory) != SQLITE_OK) {
    sqlite3_close(memory);
    throw InputError("cannot read " + inQuotes(m_path) + ": out of memory for its upgraded copy");
  }
  sqlite3_backup* copy = sqlite3_backup_init(memory, "main", m_db, "main");
  const int copied = copy ? sqlite3_backup_step(copy, -1) : sqlite3_errcode(memory);
  sqlite3_backup_finish(copy);
  if (copied != SQLITE_DONE) {
    const std::string reason = sqlite3_errmsg(memory);
    sqlite3_close(memory);
    throw InputError("cannot read " + inQuotes(m_path) + " to upgrade it in memory: " + reason);
  }
  sqlite3_close(m_db);
  m_db = memory;
  migrate();
  exec(m_db, "PRAGMA query_only=1", doing);
}

Store::~Store() {
  sqlite3_close(m_db);
}

void Store::migrate() {
  // A file at the current schema needs no write: read its version first, outside a transaction, so
  // that opening it while another program writes (a tune committing trials, a long import) does
  // not wait for the write lock and then fail with "migrating ... locked" (`opevo runs`, the
  // window's first read).
  {
    Statement version(m_db, "PRAGMA user_version");
    version.step();
    if (version.integer(0) >= kSchemaVersion) return;
  }
  // One step a transaction, the version read inside it: two programs opening a new or old file at
  // once (the window and `opevo tune`) must not both migrate it.
  while (true) {
    exec(m_db, "BEGIN IMMEDIATE", "migrating " + inQuotes(m_path));
    try {
      int current = 0;
      {
        // Finalized before migrating: an open statement keeps the tables it read locked.
        Statement version(m_db, "PRAGMA user_version");
        version.step();
        current = static_cast<int>(version.integer(0));
      }
      if (current >= kSchemaVersion) {
        exec(m_db, "COMMIT", "opening " + inQuotes(m_path));
        return;
      }
      const int next = current == 0 ? kSchemaVersion : current + 1;
      const std::string doing =
          "migrating " + inQuotes(m_path) + " to schema " + std::to_string(next);
      if (current == 0) {
        exec(m_db, kSchema.c_str(), "creating the tables of " + inQuotes(m_path));
      } else {
        const Migration& m = kMigrations[current - 1];
        exec(m_db, m.before, doing);
        exec(m_db, m.schema, doing);
        exec(m_db, m.after, doing);
      }
      const std::string stamp = "PRAGMA user_version=" + std::to_string(next) +
                                "; PRAGMA application_id=" + std::to_string(kApplicationId);
      exec(m_db, stamp.c_str(), doing);
      exec(m_db, "COMMIT", doing);
    } catch (...) {
      sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
      throw;
    }
  }
}

std::int64_t Store::createRace(Schedule schedule, std::uint64_t scheduleSeed) {
  Statement s(m_db, "INSERT INTO races (started, schedule, schedule_seed) VALUES (?, ?, ?)");
  s.bind(1, nowUtc())
      .bind(2, std::string(scheduleNames().name(schedule)))
      .bind(3, static_cast<std::int64_t>(scheduleSeed))
      .run();
  return sqlite3_last_insert_rowid(m_db);
}

std::int64_t Store::createRun(const RunRecord& r) {
  Statement s(
      m_db,
      "INSERT INTO runs (id, operator_name, operator_json, algorithm, settings_json, seed, "
      "backend, device, budget_json, status, end_reason, started, ended, speed_unit, label, "
      "race_id, race_algorithm, race_repeat, reference_library, reference_speed, "
      "side_by_side_json, failure) VALUES (max(coalesce((SELECT max(id) FROM runs), 0), "
      "coalesce((SELECT max(id) FROM deleted_runs), 0)) + 1, "
      "?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  s.bind(1, r.operatorName).bind(2, r.operatorJson).bind(3, r.algorithm).bind(4, r.settingsJson);
  s.bind(5, static_cast<std::int64_t>(r.seed)).bind(6, r.backend).bind(7, r.device);
  s.bind(8, r.budgetJson).bind(9, std::string(runStatusName(r.status)));
  s.bind(10, std::string(endReasonName(r.endReason)));
  s.bind(11, r.started.empty() ? nowUtc() : r.started).bind(12, r.ended).bind(13, r.speedUnit);
  s.bind(14, r.label);
  if (r.raceId) s.bind(15, r.raceId);  // else NULL: a run of its own
  s.bind(16, static_cast<std::int64_t>(r.raceAlgorithm))
      .bind(17, static_cast<std::int64_t>(r.raceRepeat));
  s.bind(18, r.referenceLibrary);
  if (r.referenceSpeed) s.bind(19, *r.referenceSpeed);
  s.bind(20, r.sideBySideJson).bind(21, r.failure);
  s.run();
  return sqlite3_last_insert_rowid(m_db);
}

void Store::setRunStatus(std::int64_t runId, RunStatus status, EndReason reason,
                         const std::string& failure) {
  Statement s(m_db,
              "UPDATE runs SET status = ?, end_reason = ?, ended = ?, failure = ? WHERE id = ?");
  s.bind(1, std::string(runStatusName(status))).bind(2, std::string(endReasonName(reason)));
  s.bind(3, status == RunStatus::Running ? std::string() : nowUtc()).bind(4, failure);
  s.bind(5, runId).run();
}

void Store::setRunReference(std::int64_t runId, const std::string& library, double speed) {
  Statement s(m_db, "UPDATE runs SET reference_library = ?, reference_speed = ? WHERE id = ?");
  s.bind(1, library).bind(2, speed).bind(3, runId).run();
}

void Store::setRunSideBySide(std::int64_t runId, const std::string& json) {
  Statement s(m_db, "UPDATE runs SET side_by_side_json = ? WHERE id = ?");
  s.bind(1, json).bind(2, runId).run();
}

void Store::setRunBudget(std::int64_t runId, const std::string& budgetJson) {
  Statement s(m_db, "UPDATE runs SET budget_json = ? WHERE id = ?");
  s.bind(1, budgetJson).bind(2, runId).run();
}

void Store::appendTrial(const TrialRow& t) {
  Statement s(
      m_db,
      "INSERT INTO trials (run_id, seq, measure_order, config, status, message, times_json, "
      "median_ms, speed, compile_ms, tuning_seconds, started, finished, verify_ms, measure_ms, "
      "tuner_ms, agent) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  s.bind(1, t.runId).bind(2, static_cast<std::int64_t>(t.seq));
  s.bind(3, static_cast<std::int64_t>(t.order > 0 ? t.order : t.seq)).bind(4, t.config);
  s.bind(5, std::string(statusName(t.status))).bind(6, t.message);
  s.bind(7, nlohmann::json(t.timesMs).dump()).bind(8, t.medianMs).bind(9, t.speed);
  s.bind(10, t.compileMs).bind(11, t.seconds).bind(12, t.started).bind(13, t.finished);
  s.bind(14, t.verifyMs).bind(15, t.measureMs).bind(16, t.tunerMs).bind(17, t.agent);
  s.run();  // autocommit: the trial is durable when this returns
}

std::int64_t Store::createRunWithTrials(const RunRecord& run, const std::vector<TrialRow>& trials) {
  std::int64_t id = 0;
  inTransaction([&] {
    id = createRun(run);
    for (TrialRow t : trials) {
      t.runId = id;
      appendTrial(t);  // inside the transaction: durable only with its COMMIT
    }
  });
  return id;
}

void Store::inTransaction(const std::function<void()>& f) {
  if (!sqlite3_get_autocommit(m_db)) {
    // Inside another transaction (a network's restore stores each task run with
    // createRunWithTrials): a savepoint, so that what f stored is undone alone when it throws and
    // the outer transaction still decides about everything.
    exec(m_db, "SAVEPOINT nested", "writing to " + inQuotes(m_path));
    try {
      f();
      exec(m_db, "RELEASE nested", "writing to " + inQuotes(m_path));
    } catch (...) {
      sqlite3_exec(m_db, "ROLLBACK TO nested; RELEASE nested", nullptr, nullptr, nullptr);
      throw;
    }
    return;
  }
  if (m_readOnly)
    throw InputError("database " + inQuotes(m_path) +
                     " is open read-only (it or its folder is not writable): nothing was changed; "
                     "copy it to a writable folder to change it");
  exec(m_db, "BEGIN IMMEDIATE", "writing to " + inQuotes(m_path));
  try {
    f();
    exec(m_db, "COMMIT", "writing to " + inQuotes(m_path));
  } catch (...) {
    sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

void Store::limitPages(std::int64_t extraPages) {
  Statement count(m_db, "PRAGMA page_count");
  count.step();
  const std::string sql = "PRAGMA max_page_count=" + std::to_string(count.integer(0) + extraPages);
  Statement limit(m_db, sql.c_str());
  limit.step();
}

namespace {

// A stored value this build does not know: the file was changed by hand or by a newer build
// that did not raise the schema version.
template <typename E, std::size_t N>
E parsedOrThrow(const EnumNames<E, N>& names, const std::string& text, const std::string& what) {
  const auto v = names.parse(text);
  if (!v)
    throw InputError("the database holds " + what + " '" + text + "', expected " + names.list());
  return *v;
}

RunRecord readRun(const Statement& s) {
  RunRecord r;
  r.id = s.integer(0);
  r.operatorName = s.text(1);
  r.operatorJson = s.text(2);
  r.algorithm = s.text(3);
  r.settingsJson = s.text(4);
  r.seed = static_cast<std::uint64_t>(s.integer(5));
  r.backend = s.text(6);
  r.device = s.text(7);
  r.budgetJson = s.text(8);
  r.status = parsedOrThrow(runStatusNames(), s.text(9), "a run status");
  r.endReason = parsedOrThrow(endReasonNames(), s.text(10), "an end reason");
  r.started = s.text(11);
  r.ended = s.text(12);
  r.speedUnit = s.text(13);
  r.label = s.text(14);
  r.raceId = s.integer(15);  // NULL reads as 0
  r.raceAlgorithm = static_cast<int>(s.integer(16));
  r.raceRepeat = static_cast<int>(s.integer(17));
  r.referenceLibrary = s.text(18);
  if (!s.isNull(19)) r.referenceSpeed = s.real(19);
  r.sideBySideJson = s.text(20);
  r.failure = s.text(21);
  if (!s.isNull(22)) r.raceSchedule = parsedOrThrow(scheduleNames(), s.text(22), "a race schedule");
  if (!s.isNull(23)) r.raceScheduleSeed = static_cast<std::uint64_t>(s.integer(23));
  return r;
}

// A trial's times_json: the JSON array of numbers appendTrial writes (nlohmann writes a NaN or
// an infinity as null, read back as NaN). Anything else is a damaged or hand-edited file.
std::vector<double> timesOf(const std::string& text, const std::string& path, std::int64_t runId,
                            int seq) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  std::vector<double> times;
  bool ok = j.is_array();
  for (std::size_t i = 0; ok && i < j.size(); ++i) {
    ok = j[i].is_number() || j[i].is_null();
    times.push_back(j[i].is_number() ? j[i].get<double>()
                                     : std::numeric_limits<double>::quiet_NaN());
  }
  if (ok) return times;
  std::string shown = text.substr(0, 60);
  for (char& c : shown)
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  throw InputError("database " + inQuotes(path) + ": run " + std::to_string(runId) + ", trial " +
                   std::to_string(seq) + ": column trials.times_json holds '" + shown +
                   (text.size() > 60 ? "...'" : "'") +
                   ", expected a JSON array of times in ms such as [1.5, 1.6]");
}

constexpr const char* kRunColumns =
    "SELECT id, operator_name, operator_json, algorithm, settings_json, seed, backend, device, "
    "budget_json, status, end_reason, started, ended, speed_unit, label, race_id, race_algorithm, "
    "race_repeat, reference_library, reference_speed, side_by_side_json, failure, "
    "(SELECT schedule FROM races WHERE races.id = runs.race_id), "
    "(SELECT schedule_seed FROM races WHERE races.id = runs.race_id) FROM runs";

}  // namespace

std::vector<RunRecord> Store::runs() const {
  Statement s(m_db, (std::string(kRunColumns) + " ORDER BY id").c_str());
  std::vector<RunRecord> out;
  while (s.step()) out.push_back(readRun(s));
  return out;
}

std::map<std::int64_t, RunTally> Store::runTallies() const {
  Statement s(m_db,
              "SELECT run_id, count(*), max(CASE WHEN status = 'ok' THEN speed END) FROM trials "
              "GROUP BY run_id");
  std::map<std::int64_t, RunTally> out;
  while (s.step()) {
    RunTally& t = out[s.integer(0)];
    t.trials = static_cast<int>(s.integer(1));
    if (!s.isNull(2)) t.best = s.real(2);
  }
  return out;
}

std::vector<RunRecord> Store::raceRuns(std::int64_t raceId) const {
  Statement s(m_db, (std::string(kRunColumns) + " WHERE race_id = ? ORDER BY id").c_str());
  s.bind(1, raceId);
  std::vector<RunRecord> out;
  while (s.step()) out.push_back(readRun(s));
  return out;
}

std::optional<RunRecord> Store::run(std::int64_t runId) const {
  Statement s(m_db, (std::string(kRunColumns) + " WHERE id = ?").c_str());
  s.bind(1, runId);
  if (!s.step()) return std::nullopt;
  return readRun(s);
}

long long Store::lastOrder(const RunRecord& run) const {
  Statement s(m_db,
              run.raceId
                  ? "SELECT max(measure_order) FROM trials JOIN runs ON runs.id = trials.run_id "
                    "WHERE runs.race_id = ?"
                  : "SELECT max(measure_order) FROM trials WHERE run_id = ?");
  s.bind(1, run.raceId ? run.raceId : run.id);
  s.step();
  return s.integer(0);
}

std::vector<TrialRow> Store::trials(std::int64_t runId) const {
  Statement s(
      m_db,
      "SELECT run_id, seq, measure_order, config, status, message, times_json, median_ms, "
      "speed, compile_ms, tuning_seconds, started, finished, verify_ms, measure_ms, tuner_ms, "
      "agent FROM trials WHERE run_id = ? ORDER BY seq");
  s.bind(1, runId);
  std::vector<TrialRow> out;
  while (s.step()) {
    TrialRow t;
    t.runId = s.integer(0);
    t.seq = static_cast<int>(s.integer(1));
    t.order = s.integer(2);
    t.config = s.text(3);
    t.status = parsedOrThrow(trialStatusNames(), s.text(4), "a trial status");
    t.message = s.text(5);
    t.timesMs = timesOf(s.text(6), m_path, t.runId, t.seq);
    t.medianMs = s.real(7);
    t.speed = s.real(8);
    t.compileMs = s.real(9);
    t.seconds = s.real(10);
    t.started = s.text(11);
    t.finished = s.text(12);
    t.verifyMs = s.real(13);
    t.measureMs = s.real(14);
    t.tunerMs = s.real(15);
    t.agent = s.text(16);
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace opevo
