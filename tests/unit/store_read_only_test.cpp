// A database this process cannot write (a colleague's copy, a read-only share, another user's
// file in a shared writable folder) is read by what only reads runs (Store::Opening::ExistingOnly:
// opevo runs, show, export, History's charts), leaving nothing beside it, and refused by name by
// what stores runs. Each check runs where the file is genuinely read-only: in a child process
// that is not root (root writes anyway), or as this user with write permission taken away when
// the tests are not root; the shared-folder checks need root, to be two other users.

#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <string>

#include "common/error.h"
#include "file_bytes.h"
#include "store/store.h"
#include "temp_dir.h"

namespace opevo {
namespace {

namespace fs = std::filesystem;

constexpr uid_t kNobody = 65534;

RunRecord sampleRun() {
  RunRecord r;
  r.operatorName = "mm";
  r.operatorJson = "{}";
  r.algorithm = "random";
  r.settingsJson = "{}";
  r.backend = "replay";
  r.device = "replay";
  r.budgetJson = R"({"trials": 3})";
  r.status = RunStatus::Failed;
  r.endReason = EndReason::Failed;
  r.failure = "the device was lost";
  return r;
}

TrialRow trialOf(std::int64_t run, int seq) {
  TrialRow t;
  t.runId = run;
  t.seq = seq;
  t.config = "tile=" + std::to_string(seq);
  t.speed = seq;
  return t;
}

// Runs, with `trials` trials each.
void fill(Store& store, int runs, int trials) {
  for (int r = 0; r < runs; ++r) {
    const std::int64_t id = store.createRun(sampleRun());
    for (int t = 1; t <= trials; ++t) store.appendTrial(trialOf(id, t));
  }
}

// A folder whose files the child below may read and not write: as root, one the unprivileged
// child can enter; else one whose write permission is taken away (given back at the end).
struct ReadOnlyFolder {
  fs::path path;
  explicit ReadOnlyFolder(const test::TempDir& dir) : path(dir.path / "share") {
    fs::create_directory(path);
    fs::permissions(dir.path,
                    fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
  }
  // Called once its files are in place.
  void close() const {
    for (const auto& f : fs::directory_iterator(path))
      fs::permissions(f.path(),
                      fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    fs::permissions(path, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                              fs::perms::group_exec | fs::perms::others_read |
                              fs::perms::others_exec);
  }
  ~ReadOnlyFolder() {
    std::error_code ec;
    fs::permissions(path, fs::perms::owner_all, fs::perm_options::add, ec);
  }
};

// What `f` answers, run in a forked child as `uid` when this process is root; else as this user
// where `selfWhenNotRoot`, or not at all. `unfit` (in the child, before `f`) says why the child
// cannot make the test's condition, empty when it can. Empty with `skipped` set where no such
// child can be made here.
std::string inChildAs(uid_t uid, bool selfWhenNotRoot, const std::function<std::string()>& unfit,
                      const std::function<std::string()>& f, std::string* skipped) {
  int out[2];
  if (::pipe(out) != 0) {
    *skipped = "no pipe";
    return {};
  }
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(out[0]);
    std::string answer;
    if (::geteuid() == 0 && (::setgroups(0, nullptr) != 0 || ::setresgid(uid, uid, uid) != 0 ||
                             ::setresuid(uid, uid, uid) != 0))
      answer = "SKIP: cannot become uid " + std::to_string(uid) + " (setresuid refused)";
    else if (::geteuid() != uid && !selfWhenNotRoot)
      answer = "SKIP: not root, so no second user (uid " + std::to_string(uid) + ") to be";
    else if (const std::string why = unfit(); !why.empty())
      answer = "SKIP: " + why;
    else
      try {
        answer = f();
      } catch (const std::exception& e) {
        answer = std::string("threw: ") + e.what();
      }
    std::size_t done = 0;
    while (done < answer.size()) {
      const ssize_t n = ::write(out[1], answer.data() + done, answer.size() - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    ::_exit(0);
  }
  ::close(out[1]);
  std::string answer;
  char buffer[4096];
  ssize_t n = 0;
  while ((n = ::read(out[0], buffer, sizeof buffer)) > 0)
    answer.append(buffer, static_cast<std::size_t>(n));
  ::close(out[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (answer.rfind("SKIP: ", 0) == 0) *skipped = answer.substr(6);
  return answer;
}

// What `f` answers, run in a child process that cannot write `folder` (uid 65534 when this is
// root, else this user with the folder's write permission taken away).
std::string inReadOnlyChild(const fs::path& folder, const std::function<std::string()>& f,
                            std::string* skipped) {
  const auto unfit = [&]() -> std::string {
    if (::access(folder.c_str(), W_OK) == 0) return "the folder is still writable to this user";
    if (::access(folder.c_str(), R_OK | X_OK) != 0)
      return "the folder cannot be read by uid 65534 (a parent folder is closed)";
    return {};
  };
  return inChildAs(kNobody, true, unfit, f, skipped);
}

#define READ_ONLY_CHILD(answer, folder, f)                         \
  std::string skipped;                                             \
  const std::string answer = inReadOnlyChild(folder, f, &skipped); \
  if (!skipped.empty()) GTEST_SKIP() << "no read-only condition: " << skipped

// A database in a folder that cannot be written, closed cleanly (no -wal, no -shm beside it): the
// store read it as immutable, every run and trial with it, and wrote nothing there. It was refused:
// "it or its folder is not writable, and SQLite writes its journal files beside it even to read
// it; copy it to a writable folder". A write is refused naming the file, as is opening it to store
// runs.
TEST(StoreReadOnly, ADatabaseInAReadOnlyFolderIsReadAndNeverWritten) {
  const test::TempDir dir;
  const ReadOnlyFolder share(dir);
  const fs::path path = share.path / "colleague.db";
  {
    Store store(path.string());
    fill(store, 2, 5);
  }
  share.close();
  const std::string before = test::fileBytes(path);
  ASSERT_FALSE(before.empty()) << "the database did not read";
  READ_ONLY_CHILD(answer, share.path, [&] {
    Store store(path.string(), Store::Opening::ExistingOnly);
    std::string said = "readOnly=" + std::to_string(store.readOnly()) +
                       " runs=" + std::to_string(store.runs().size()) +
                       " trials=" + std::to_string(store.trials(2).size()) +
                       " failure=" + store.run(1)->failure;
    try {
      store.deleteRuns({1});
      said += " deleted";
    } catch (const InputError& e) {
      said += std::string(" delete: ") + e.what();
    }
    try {
      Store writing(path.string());
      said += " opened for writing";
    } catch (const InputError& e) {
      said += std::string(" writing: ") + e.what();
    }
    return said;
  });
  EXPECT_NE(answer.find("readOnly=1 runs=2 trials=5 failure=the device was lost"),
            std::string::npos)
      << answer;
  EXPECT_NE(answer.find("delete: database '" + path.string() + "' is open read-only"),
            std::string::npos)
      << answer;
  EXPECT_NE(answer.find("writing: database '" + path.string() +
                        "' cannot be written: it or its "
                        "folder is read-only"),
            std::string::npos)
      << answer;
  EXPECT_EQ(test::fileBytes(path), before);
  EXPECT_FALSE(fs::exists(path.string() + "-wal"));
  EXPECT_FALSE(fs::exists(path.string() + "-shm"));
}

// A database of an older schema (tests/data/opevo-v9.db, two finished replay runs) that cannot be
// written is upgraded in memory: it reads as any other, and the file keeps its version and bytes.
TEST(StoreReadOnly, AnOlderSchemaIsUpgradedInMemoryAndTheFileLeftAsItIs) {
  const test::TempDir dir;
  const ReadOnlyFolder share(dir);
  const fs::path path = share.path / "old.db";
  fs::copy_file(fs::path(OPEVO_SOURCE_DIR) / "tests" / "data" / "opevo-v9.db", path);
  share.close();
  const std::string before = test::fileBytes(path);
  ASSERT_FALSE(before.empty()) << "the database did not read";
  READ_ONLY_CHILD(answer, share.path, [&] {
    Store store(path.string(), Store::Opening::ExistingOnly);
    std::string said = "runs=" + std::to_string(store.runs().size()) +
                       " trials=" + std::to_string(store.trials(2).size()) + " failure='" +
                       store.run(1)->failure + "'";
    try {
      store.setRunStatus(1, RunStatus::Failed, EndReason::Failed, "x");
      said += " written";
    } catch (const InputError& e) {
      said += std::string(" write: ") + e.what();
    }
    return said;
  });
  EXPECT_NE(answer.find("runs=2 trials=4 failure=''"), std::string::npos) << answer;
  // The upgraded copy takes no write either, which would be lost with it.
  EXPECT_NE(answer.find("write: "), std::string::npos) << answer;
  EXPECT_NE(answer.find("read-only"), std::string::npos) << answer;
  EXPECT_EQ(test::fileBytes(path), before);
}

// A copy taken while its database was open: the file and its write-ahead log (-wal), which holds
// the latest commits. With the log's shared-memory index (-shm) beside them, everything reads;
// without it, and no way to make it in a read-only folder, the store says what would be missed
// and what to do, instead of reading the file alone without its latest trials.
TEST(StoreReadOnly, ACopyWithItsWriteAheadLogIsReadWholeOrRefusedWithWhatToDo) {
  const test::TempDir dir;
  const ReadOnlyFolder whole(dir);
  const fs::path lacking = dir.path / "lacking";
  fs::create_directory(lacking);
  const fs::path source = dir.path / "live.db";
  Store live(source.string());
  fill(live, 3, 4);
  ASSERT_GT(fs::file_size(source.string() + "-wal"), 0u) << "the commits are in the -wal";
  for (const char* suffix : {"", "-wal", "-shm"})
    fs::copy_file(source.string() + suffix, (whole.path / "copy.db").string() + suffix);
  for (const char* suffix : {"", "-wal"})
    fs::copy_file(source.string() + suffix, (lacking / "copy.db").string() + suffix);
  whole.close();
  fs::permissions(lacking, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::others_read |
                               fs::perms::others_exec);
  for (const char* suffix : {"", "-wal"})
    fs::permissions((lacking / "copy.db").string() + suffix,
                    fs::perms::owner_read | fs::perms::others_read);
  const std::string copy = (whole.path / "copy.db").string();
  const std::string partial = (lacking / "copy.db").string();
  READ_ONLY_CHILD(answer, whole.path, [&] {
    std::string said;
    try {
      Store store(copy, Store::Opening::ExistingOnly);
      said = "whole: runs=" + std::to_string(store.runs().size()) +
             " trials=" + std::to_string(store.trials(3).size());
    } catch (const InputError& e) {
      said = std::string("whole: ") + e.what();
    }
    try {
      Store store(partial, Store::Opening::ExistingOnly);
      said += " partial: runs=" + std::to_string(store.runs().size());
    } catch (const InputError& e) {
      said += std::string(" partial: ") + e.what();
    }
    return said;
  });
  fs::permissions(lacking, fs::perms::owner_all, fs::perm_options::add);
  EXPECT_NE(answer.find("whole: runs=3 trials=4"), std::string::npos) << answer;
  EXPECT_NE(answer.find("partial: database '" + partial + "' cannot be read here"),
            std::string::npos)
      << answer;
  EXPECT_NE(answer.find("copy the file together with its -wal into a writable folder"),
            std::string::npos)
      << answer;
}

constexpr uid_t kOwner = 1001;  // the colleague who stores runs in a shared folder

// A folder everyone may write (1777, as /tmp, or a lab's group-writable share) whose files are
// each their writer's: a reader there can make files beside a database it cannot write.
struct SharedFolder {
  fs::path path;
  explicit SharedFolder(const test::TempDir& dir) : path(dir.path / "lab") {
    fs::create_directory(path);
    fs::permissions(dir.path,
                    fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
    fs::permissions(path, fs::perms::all | fs::perms::sticky_bit);
  }
};

// The names of the files in `folder` that `uid` owns ("" for none).
std::string ownedBy(const fs::path& folder, uid_t uid) {
  std::string names;
  for (const auto& f : fs::directory_iterator(folder)) {
    struct stat st {};
    if (::lstat(f.path().c_str(), &st) == 0 && st.st_uid == uid)
      names += f.path().filename().string() + " ";
  }
  return names;
}

// Why uid 65534 cannot be a reader that may write the folder and not the file (empty: it can).
std::function<std::string()> sharedReaderUnfit(const fs::path& file) {
  return [file]() -> std::string {
    if (::access(file.parent_path().c_str(), W_OK) != 0)
      return "the shared folder is not writable to uid 65534";
    if (::access(file.c_str(), W_OK) == 0) return "the file is writable to uid 65534";
    return {};
  };
}

std::string nothingUnfit() {
  return {};
}

// A colleague's database in a shared writable folder, closed cleanly (no -wal, no -shm): a reader
// who cannot write the file read it and left nothing beside it. It opened it with mode=ro, and
// SQLite made a -wal and a -shm there owned by the reader, which stayed: the owner's next write
// failed ("attempt to write a readonly database") until someone deleted them.
TEST(StoreReadOnly, AReaderInASharedFolderLeavesNothingThereAndTheOwnerWritesOn) {
  const test::TempDir dir;
  const SharedFolder lab(dir);
  const fs::path path = lab.path / "colleague.db";
  std::string skipped;
  const std::string made = inChildAs(
      kOwner, false, nothingUnfit,
      [&] {
        Store store(path.string());
        fill(store, 2, 3);
        return std::string("made");
      },
      &skipped);
  if (!skipped.empty()) GTEST_SKIP() << "no second user: " << skipped;
  ASSERT_EQ(made, "made");
  ASSERT_FALSE(fs::exists(path.string() + "-wal")) << "closed cleanly";
  const std::string read = inChildAs(
      kNobody, false, sharedReaderUnfit(path),
      [&] {
        const Store store(path.string(), Store::Opening::ExistingOnly);
        return "readOnly=" + std::to_string(store.readOnly()) +
               " runs=" + std::to_string(store.runs().size()) +
               " trials=" + std::to_string(store.trials(2).size());
      },
      &skipped);
  if (!skipped.empty()) GTEST_SKIP() << "no shared-folder reader: " << skipped;
  EXPECT_EQ(read, "readOnly=1 runs=2 trials=3");
  EXPECT_EQ(ownedBy(lab.path, kNobody), "") << "left by the reader";
  const std::string wrote = inChildAs(
      kOwner, false, nothingUnfit,
      [&] {
        Store store(path.string());
        const std::int64_t id = store.createRun(sampleRun());
        store.appendTrial(trialOf(id, 1));
        return "runs=" + std::to_string(store.runs().size());
      },
      &skipped);
  EXPECT_EQ(wrote, "runs=3");
}

// The same folder while the owner's program has the database open (its -wal holding the latest
// commits, its -shm index beside it): the reader reads every commit through them and makes nothing
// there. A copy holding a -wal without its -shm is refused with what to do, not read by making a
// -shm there (owned by the reader; it read it so).
TEST(StoreReadOnly, AReaderInASharedFolderUsesALiveIndexAndMakesNone) {
  const test::TempDir dir;
  const SharedFolder lab(dir);
  const fs::path path = lab.path / "live.db";
  Store live(path.string());
  fill(live, 3, 4);
  ASSERT_GT(fs::file_size(path.string() + "-wal"), 0u) << "the commits are in the -wal";
  ASSERT_TRUE(fs::exists(path.string() + "-shm"));
  const fs::path copy = lab.path / "copy.db";
  for (const char* suffix : {"", "-wal"}) {
    fs::copy_file(path.string() + suffix, copy.string() + suffix);
    fs::permissions(copy.string() + suffix, fs::perms::owner_read | fs::perms::owner_write |
                                                fs::perms::group_read | fs::perms::others_read);
  }
  std::string skipped;
  const std::string read = inChildAs(
      kNobody, false, sharedReaderUnfit(path),
      [&] {
        std::string said;
        {
          const Store store(path.string(), Store::Opening::ExistingOnly);
          said = "live: runs=" + std::to_string(store.runs().size()) +
                 " trials=" + std::to_string(store.trials(3).size());
        }
        try {
          const Store store(copy.string(), Store::Opening::ExistingOnly);
          said += " copy: runs=" + std::to_string(store.runs().size());
        } catch (const InputError& e) {
          said += std::string(" copy: ") + e.what();
        }
        return said;
      },
      &skipped);
  if (!skipped.empty()) GTEST_SKIP() << "no shared-folder reader: " << skipped;
  EXPECT_NE(
      read.find("live: runs=3 trials=4 copy: database '" + copy.string() + "' cannot be read here"),
      std::string::npos)
      << read;
  EXPECT_NE(read.find("copy the file together with its -wal into a writable folder"),
            std::string::npos)
      << read;
  EXPECT_EQ(ownedBy(lab.path, kNobody), "") << "left by the reader";
  live.appendTrial(trialOf(3, 5));
  EXPECT_EQ(live.trials(3).size(), 5u);
}

}  // namespace
}  // namespace opevo
