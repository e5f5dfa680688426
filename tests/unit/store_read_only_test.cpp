// A database this process cannot write (a colleague's copy, a read-only share) is read by what
// only reads runs (Store::Opening::ExistingOnly: opevo runs, show, export, the window's History),
// and refused by name by what stores runs. Each check runs where the file is genuinely read-only:
// in a child process that is not root (root writes anyway), or as this user with write permission
// taken away when the tests are not root.

#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>

#include "common/error.h"
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

std::string bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
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

// What `f` answers, run in a child process that cannot write `folder` (uid 65534 when this is
// root). Empty with `skipped` set where no such process can be made here.
std::string inReadOnlyChild(const fs::path& folder, const std::function<std::string()>& f,
                            std::string* skipped) {
  int out[2];
  if (::pipe(out) != 0) {
    *skipped = "no pipe";
    return {};
  }
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(out[0]);
    std::string answer;
    if (::geteuid() == 0 &&
        (::setgroups(0, nullptr) != 0 || ::setresgid(kNobody, kNobody, kNobody) != 0 ||
         ::setresuid(kNobody, kNobody, kNobody) != 0))
      answer = "SKIP: cannot become uid 65534 (setresuid refused)";
    else if (::access(folder.c_str(), W_OK) == 0)
      answer = "SKIP: the folder is still writable to this user";
    else if (::access(folder.c_str(), R_OK | X_OK) != 0)
      answer = "SKIP: the folder cannot be read by uid 65534 (a parent folder is closed)";
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
  const std::string before = bytes(path);
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
  EXPECT_EQ(bytes(path), before);
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
  const std::string before = bytes(path);
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
  EXPECT_EQ(bytes(path), before);
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

}  // namespace
}  // namespace opevo
