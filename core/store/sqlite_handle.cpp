#include "store/sqlite_handle.h"

#include "common/error.h"

namespace opevo {

void throwSqlite(sqlite3* db, const std::string& doing) {
  const int code = sqlite3_extended_errcode(db);
  std::string reason = sqlite3_errmsg(db);
  if ((code & 0xff) == SQLITE_FULL) reason = "the disk is full";
  if ((code & 0xff) == SQLITE_READONLY) reason = "the database or its folder is read-only";
  if ((code & 0xff) == SQLITE_BUSY)
    reason = "the database is locked by another program (waited " +
             std::to_string(kBusyWaitMs / 1000) + " s for it)";
  throw InputError(doing + " failed: " + reason + " (nothing already stored was changed)");
}

void exec(sqlite3* db, const char* sql, const std::string& doing) {
  char* error = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &error) != SQLITE_OK) {
    sqlite3_free(error);
    throwSqlite(db, doing);
  }
}

Statement::Statement(sqlite3* db, const char* sql) : m_db(db) {
  if (sqlite3_prepare_v2(db, sql, -1, &m_stmt, nullptr) != SQLITE_OK)
    throwSqlite(db, std::string("preparing ") + sql);
}

Statement::~Statement() {
  sqlite3_finalize(m_stmt);
}

Statement& Statement::bind(int index, const std::string& value) {
  sqlite3_bind_text(m_stmt, index, value.c_str(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
  return *this;
}

Statement& Statement::bind(int index, std::int64_t value) {
  sqlite3_bind_int64(m_stmt, index, value);
  return *this;
}

Statement& Statement::bind(int index, double value) {
  sqlite3_bind_double(m_stmt, index, value);
  return *this;
}

bool Statement::step() {
  const int rc = sqlite3_step(m_stmt);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  const char* file = sqlite3_db_filename(m_db, "main");
  throwSqlite(m_db, std::string("using the database '") + (file ? file : "") + "'");
}

void Statement::run() {
  while (step()) {
  }
}

std::int64_t Statement::integer(int column) const {
  return sqlite3_column_int64(m_stmt, column);
}
double Statement::real(int column) const {
  return sqlite3_column_double(m_stmt, column);
}
bool Statement::isNull(int column) const {
  return sqlite3_column_type(m_stmt, column) == SQLITE_NULL;
}
std::string Statement::text(int column) const {
  const auto* p = sqlite3_column_text(m_stmt, column);
  return p ? reinterpret_cast<const char*>(p) : "";
}

}  // namespace opevo
