#include <filesystem>

#include "cli/commands.h"
#include "common/error.h"
#include "store/store.h"

namespace opevo::cli {

std::string existingDatabase(const std::string& db) {
  if (db.empty()) return Store::defaultPath();
  std::error_code ec;
  if (!std::filesystem::exists(db, ec))
    throw InputError("database '" + db +
                     "' does not exist (check --db; opevo tune and opevo import create one)");
  return db;
}

}  // namespace opevo::cli
