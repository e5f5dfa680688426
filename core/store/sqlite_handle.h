#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>

namespace opevo {

// How long a write waits for another program's lock on the database before it fails.
inline constexpr int kBusyWaitMs = 5000;

// A prepared statement that finalizes itself; bind() is 1-based like SQLite's.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int index, const std::string& value);
  Statement& bind(int index, std::int64_t value);
  Statement& bind(int index, double value);
  // True while a row is available; throws StoreError on failure.
  bool step();
  void run();  // step() to completion of a statement that returns no rows

  std::int64_t integer(int column) const;
  double real(int column) const;
  std::string text(int column) const;
  bool isNull(int column) const;

 private:
  sqlite3* m_db;
  sqlite3_stmt* m_stmt = nullptr;
};

// Throws InputError with SQLite's message, prefixed by what was being done.
[[noreturn]] void throwSqlite(sqlite3* db, const std::string& doing);
void exec(sqlite3* db, const char* sql, const std::string& doing);

}  // namespace opevo
