#include "store/store.h"

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "store/sqlite_handle.h"

namespace opevo {
namespace {

// "OPEV": marks our files, so another application's SQLite database is not mistaken for ours.
constexpr std::int64_t kApplicationId = 0x4F504556;

// Migration i takes the schema from version i to i + 1.
const char* const kMigrations[] = {
    R"sql(
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
      status TEXT NOT NULL,
      started TEXT NOT NULL,
      ended TEXT NOT NULL DEFAULT '',
      speed_unit TEXT NOT NULL DEFAULT '');
    CREATE TABLE trials (
      run_id INTEGER NOT NULL REFERENCES runs(id),
      seq INTEGER NOT NULL,
      config TEXT NOT NULL,
      status TEXT NOT NULL,
      message TEXT NOT NULL,
      times_json TEXT NOT NULL,
      median_ms REAL NOT NULL,
      speed REAL NOT NULL,
      compile_ms REAL NOT NULL,
      started TEXT NOT NULL,
      finished TEXT NOT NULL,
      PRIMARY KEY (run_id, seq));
    CREATE INDEX trials_by_config ON trials(config);
    )sql",
};

std::string inQuotes(const std::string& path) { return "'" + path + "'"; }

// Everything that decides whether the file may be opened for writing, without writing to it.
void checkExisting(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char header[16] = {0};
  in.read(header, sizeof header);
  if (in.gcount() == 0) return;  // empty file: SQLite treats it as a new database
  if (std::string(header, 16) != std::string("SQLite format 3\0", 16))
    throw InputError("database " + inQuotes(path) +
                     " is not an SQLite file (left untouched; use --db to choose another file)");
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    throw InputError("database " + inQuotes(path) + " cannot be opened (left untouched)");
  }
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
    problem = std::string("cannot be read: ") + e.what();
  }
  sqlite3_close(db);
  if (!problem.empty()) throw InputError("database " + inQuotes(path) + " " + problem + " (left untouched)");
}

}  // namespace

std::string Store::defaultPath() {
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
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()) % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buffer[40];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[48];
  std::snprintf(out, sizeof out, "%s.%03dZ", buffer, static_cast<int>(ms.count()));
  return out;
}

Store::Store(const std::string& path) : m_path(path) {
  std::error_code ec;
  const auto folder = std::filesystem::path(path).parent_path();
  if (!folder.empty()) std::filesystem::create_directories(folder, ec);
  if (ec) throw InputError("cannot create the database folder " + folder.string() + ": " + ec.message());
  if (std::filesystem::exists(path)) checkExisting(path);
  if (sqlite3_open_v2(path.c_str(), &m_db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
      SQLITE_OK) {
    const std::string reason = m_db ? sqlite3_errmsg(m_db) : "out of memory";
    sqlite3_close(m_db);
    throw InputError("cannot open database " + inQuotes(path) + ": " + reason);
  }
  sqlite3_busy_timeout(m_db, 5000);
  try {
    exec(m_db, "PRAGMA journal_mode=WAL", "switching " + inQuotes(path) + " to WAL mode");
    // NORMAL in WAL mode: a committed trial survives a killed process (only a power loss can
    // take the last commits), at a fraction of FULL's cost.
    exec(m_db, "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON", "configuring " + inQuotes(path));
    migrate();
  } catch (...) {
    sqlite3_close(m_db);
    throw;
  }
}

Store::~Store() { sqlite3_close(m_db); }

void Store::migrate() {
  Statement version(m_db, "PRAGMA user_version");
  version.step();
  const int current = static_cast<int>(version.integer(0));
  for (int v = current; v < kSchemaVersion; ++v) {
    exec(m_db, "BEGIN IMMEDIATE", "migrating " + inQuotes(m_path));
    try {
      exec(m_db, kMigrations[v], "migrating " + inQuotes(m_path) + " to schema " + std::to_string(v + 1));
      const std::string stamp = "PRAGMA user_version=" + std::to_string(v + 1) +
                                "; PRAGMA application_id=" + std::to_string(kApplicationId);
      exec(m_db, stamp.c_str(), "migrating " + inQuotes(m_path));
      exec(m_db, "COMMIT", "migrating " + inQuotes(m_path));
    } catch (...) {
      sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
      throw;
    }
  }
}

std::int64_t Store::createRun(const RunRecord& r) {
  Statement s(m_db,
              "INSERT INTO runs (operator_name, operator_json, algorithm, settings_json, seed, "
              "backend, device, budget_json, status, started, speed_unit, ended) "
              "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)");
  s.bind(1, r.operatorName).bind(2, r.operatorJson).bind(3, r.algorithm).bind(4, r.settingsJson);
  s.bind(5, static_cast<std::int64_t>(r.seed)).bind(6, r.backend).bind(7, r.device);
  s.bind(8, r.budgetJson).bind(9, r.status.empty() ? std::string("running") : r.status);
  s.bind(10, r.started.empty() ? nowUtc() : r.started).bind(11, r.speedUnit).bind(12, r.ended);
  s.run();
  return sqlite3_last_insert_rowid(m_db);
}

void Store::setRunStatus(std::int64_t runId, const std::string& status, bool ended) {
  Statement s(m_db, "UPDATE runs SET status = ?, ended = ? WHERE id = ?");
  s.bind(1, status).bind(2, ended ? nowUtc() : std::string()).bind(3, runId).run();
}

void Store::appendTrial(const TrialRow& t) {
  Statement s(m_db,
              "INSERT INTO trials (run_id, seq, config, status, message, times_json, median_ms, "
              "speed, compile_ms, started, finished) VALUES (?,?,?,?,?,?,?,?,?,?,?)");
  s.bind(1, t.runId).bind(2, static_cast<std::int64_t>(t.seq)).bind(3, t.config).bind(4, t.status);
  s.bind(5, t.message).bind(6, nlohmann::json(t.timesMs).dump()).bind(7, t.medianMs);
  s.bind(8, t.speed).bind(9, t.compileMs).bind(10, t.started).bind(11, t.finished);
  s.run();  // autocommit: the trial is durable when this returns
}

std::int64_t Store::createRunWithTrials(const RunRecord& run, const std::vector<TrialRow>& trials) {
  exec(m_db, "BEGIN IMMEDIATE", "storing a run in " + inQuotes(m_path));
  try {
    const std::int64_t id = createRun(run);
    for (TrialRow t : trials) {
      t.runId = id;
      appendTrial(t);  // inside the transaction: durable only with the COMMIT below
    }
    exec(m_db, "COMMIT", "storing a run in " + inQuotes(m_path));
    return id;
  } catch (...) {
    sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

namespace {

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
  r.status = s.text(9);
  r.started = s.text(10);
  r.ended = s.text(11);
  r.speedUnit = s.text(12);
  return r;
}

constexpr const char* kRunColumns =
    "SELECT id, operator_name, operator_json, algorithm, settings_json, seed, backend, device, "
    "budget_json, status, started, ended, speed_unit FROM runs";

}  // namespace

std::vector<RunRecord> Store::runs() const {
  Statement s(m_db, (std::string(kRunColumns) + " ORDER BY id").c_str());
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

std::vector<TrialRow> Store::trials(std::int64_t runId) const {
  Statement s(m_db,
              "SELECT run_id, seq, config, status, message, times_json, median_ms, speed, "
              "compile_ms, started, finished FROM trials WHERE run_id = ? ORDER BY seq");
  s.bind(1, runId);
  std::vector<TrialRow> out;
  while (s.step()) {
    TrialRow t;
    t.runId = s.integer(0);
    t.seq = static_cast<int>(s.integer(1));
    t.config = s.text(2);
    t.status = s.text(3);
    t.message = s.text(4);
    t.timesMs = nlohmann::json::parse(s.text(5)).get<std::vector<double>>();
    t.medianMs = s.real(6);
    t.speed = s.real(7);
    t.compileMs = s.real(8);
    t.started = s.text(9);
    t.finished = s.text(10);
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace opevo
