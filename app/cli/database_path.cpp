#include <filesystem>

#include "cli/commands.h"
#include "common/error.h"
#include "store/store.h"

namespace opevo::cli {

std::string existingDatabase(const std::string& db) {
  std::error_code ec;
  // Reading must not create the default database (and its folders) either.
  if (db.empty()) {
    const std::string path = Store::defaultPath();
    if (!std::filesystem::exists(path, ec))
      throw InputError(
          "no database yet at '" + path +
          "' (opevo tune, opevo net tune, opevo kas search, opevo import, opevo net restore and "
          "the window create it; --db names another)");
  }
  const std::string file = db.empty() ? Store::defaultPath() : db;
  if (!std::filesystem::exists(file, ec))
    throw InputError("database '" + file +
                     "' does not exist (check --db; opevo tune, opevo net tune, opevo kas search, "
                     "opevo import and opevo net restore create one)");
  // SQLite would take an empty file for a new database and write one into it: a command that
  // only reads must not turn someone's empty file into a database.
  if (std::filesystem::is_regular_file(file, ec) && std::filesystem::file_size(file, ec) == 0 &&
      !ec)
    throw InputError("database '" + file + "' is an empty file, not a database (check --db)");
  return file;
}

std::string databaseHint(const std::string& db) {
  if (db.empty()) return "";
  const bool plain = db.find_first_not_of(
                         "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                         "0123456789_./-+:=@%,") == std::string::npos;
  if (plain) return " --db " + db;
  std::string quoted = "'";
  for (char c : db) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return " --db " + quoted + "'";
}

}  // namespace opevo::cli
