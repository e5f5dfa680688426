#pragma once

// The schema version a database file says it holds (PRAGMA user_version), read with SQLite
// alone, apart from the Store under test: what the migration tests check before and after.

#include <sqlite3.h>

#include <string>

namespace opevo::test {

inline int userVersion(const std::string& path) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &s, nullptr);
  sqlite3_step(s);
  const int version = sqlite3_column_int(s, 0);
  sqlite3_finalize(s);
  sqlite3_close(db);
  return version;
}

}  // namespace opevo::test
