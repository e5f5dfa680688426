// A database the store refuses keeps nothing beside it that opening it made: the check of an
// existing file reads it through a read-only SQLite connection, which makes a -wal and a -shm
// where a WAL file has none and cannot remove them as it closes; every refusal of a damaged file,
// another application's, a newer one's, left a new empty -wal and a 32 KiB -shm beside it. What
// was there before stays, and so does what another process holds.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "common/error.h"
#include "file_bytes.h"
#include "store/files_beside.h"
#include "store/store.h"
#include "temp_dir.h"

namespace opevo {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

void writeBytes(const fs::path& path, const std::string& content) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
}

// A database of ours as the store leaves it (WAL mode, its -wal and -shm gone with its
// connection).
std::string ourDatabase(const TempDir& dir) {
  const fs::path path = dir.path / "ours.db";
  { Store store(path.string()); }
  EXPECT_FALSE(fs::exists(path.string() + "-wal"));
  const std::string content = test::fileBytes(path);
  fs::remove(path);
  return content;
}

std::string refusal(const fs::path& path) {
  try {
    Store store(path.string());
  } catch (const InputError& e) {
    return e.what();
  }
  return "opened";
}

void runSql(const fs::path& path, const char* sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  sqlite3_close(db);
}

TEST(StoreLeftovers, ARefusedFileKeepsNothingTheCheckMade) {
  TempDir dir;
  const std::string ours = ourDatabase(dir);
  ASSERT_GT(ours.size(), 3 * 4096u);
  std::string damaged = ours;
  for (std::size_t i = 2 * 4096; i < 2 * 4096 + 200; ++i) damaged[i] = '\xff';
  const fs::path foreign = dir.path / "foreign.db", newer = dir.path / "newer.db";
  runSql(foreign, "PRAGMA journal_mode=WAL; CREATE TABLE invoices(id INTEGER)");
  { Store store(newer.string()); }
  runSql(newer, "PRAGMA user_version=99");
  ASSERT_FALSE(fs::exists(foreign.string() + "-wal"));
  ASSERT_FALSE(fs::exists(newer.string() + "-wal"));
  struct Case {
    fs::path path;
    std::string says;
  };
  std::vector<Case> cases = {
      {dir.path / "text.db", "is not an SQLite file"}, {dir.path / "cut.db", "is damaged"},
      {dir.path / "header.db", "is damaged"},          {dir.path / "damaged.db", "is corrupt"},
      {foreign, "belongs to another application"},     {newer, "has schema version 99"}};
  writeBytes(cases[0].path, "my notes, not a database\n");
  writeBytes(cases[1].path, ours.substr(0, 3 * 4096 + 100));
  writeBytes(cases[2].path, ours.substr(0, 50));
  writeBytes(cases[3].path, damaged);
  for (const Case& c : cases) {
    const std::string before = test::fileBytes(c.path);
    const std::string message = refusal(c.path);
    EXPECT_NE(message.find(c.says), std::string::npos) << c.path << ": " << message;
    EXPECT_FALSE(fs::exists(c.path.string() + "-wal")) << c.path;
    EXPECT_FALSE(fs::exists(c.path.string() + "-shm")) << c.path;
    EXPECT_EQ(test::fileBytes(c.path), before) << c.path;
  }
  // A refused read (opevo runs, the window's History) alike.
  try {
    Store store(cases[3].path.string(), Store::Opening::ExistingOnly);
    ADD_FAILURE() << "opened";
  } catch (const InputError&) {
  }
  EXPECT_FALSE(fs::exists(cases[3].path.string() + "-wal"));
  EXPECT_FALSE(fs::exists(cases[3].path.string() + "-shm"));
}

// A -wal or -shm that was there before may be another program's: it stays, whatever happened.
TEST(StoreLeftovers, WhatWasThereBeforeStays) {
  TempDir dir;
  std::string damaged = ourDatabase(dir);
  for (std::size_t i = 2 * 4096; i < 2 * 4096 + 200; ++i) damaged[i] = '\xff';
  const fs::path both = dir.path / "both.db", walOnly = dir.path / "wal.db";
  writeBytes(both, damaged);
  writeBytes(walOnly, damaged);
  writeBytes(both.string() + "-wal", "");
  writeBytes(both.string() + "-shm", "");
  writeBytes(walOnly.string() + "-wal", "");
  EXPECT_NE(refusal(both).find("is corrupt"), std::string::npos);
  EXPECT_TRUE(fs::exists(both.string() + "-wal"));
  EXPECT_TRUE(fs::exists(both.string() + "-shm"));
  EXPECT_NE(refusal(walOnly).find("is corrupt"), std::string::npos);
  EXPECT_TRUE(fs::exists(walOnly.string() + "-wal"));
  EXPECT_FALSE(fs::exists(walOnly.string() + "-shm")) << "made by the check";
}

// Made after the note, yet held by another process (it opened the file meanwhile, as SQLite
// does: a read lock on the -shm's byte 128 for as long as it has it mapped), or a -wal with
// commits in it: they stay. Let go, they are removed.
TEST(StoreLeftovers, WhatAnotherProcessHoldsStays) {
  TempDir dir;
  const std::string path = dir.file("x.db");
  writeBytes(path, "");
  const FilesBeside before(path);
  writeBytes(path + "-wal", "");
  writeBytes(path + "-shm", std::string(32768, '\0'));
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t holder = fork();
  ASSERT_GE(holder, 0);
  if (holder == 0) {
    const int fd = open((path + "-shm").c_str(), O_RDWR);
    struct flock lock {};
    lock.l_type = F_RDLCK;
    lock.l_whence = SEEK_SET;
    lock.l_start = 128;
    lock.l_len = 1;
    const char ok = fd >= 0 && fcntl(fd, F_SETLK, &lock) == 0 ? 'y' : 'n';
    (void)!write(ready[1], &ok, 1);
    pause();
    _exit(0);
  }
  char ok = 0;
  ASSERT_EQ(read(ready[0], &ok, 1), 1);
  ASSERT_EQ(ok, 'y');
  before.removeWhatWasMade();
  EXPECT_TRUE(fs::exists(path + "-shm"));
  EXPECT_TRUE(fs::exists(path + "-wal"));
  EXPECT_TRUE(fs::exists(path)) << "there when noted";
  kill(holder, SIGKILL);
  waitpid(holder, nullptr, 0);
  close(ready[0]);
  close(ready[1]);
  writeBytes(path + "-wal", "commits");
  before.removeWhatWasMade();
  EXPECT_FALSE(fs::exists(path + "-shm"));
  EXPECT_TRUE(fs::exists(path + "-wal")) << "a log with something in it";
  writeBytes(path + "-wal", "");
  before.removeWhatWasMade();
  EXPECT_FALSE(fs::exists(path + "-wal"));
  EXPECT_TRUE(fs::exists(path));
}

}  // namespace
}  // namespace opevo
