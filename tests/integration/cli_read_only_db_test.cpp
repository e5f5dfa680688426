// A colleague's database on a read-only share: `opevo runs`, `opevo show` and `opevo export` (and
// the network and kernel search readers: net runs, net export, net archive, kas searches) read
// it (they were refused: "it or its folder is not writable, and SQLite writes its journal files
// beside it even to read it"), and what writes to it (tune, runs delete, import) is refused naming
// the file. Run as a user who genuinely cannot write there: uid 65534 through setpriv when the
// tests run as root (root writes anyway), else this user with write permission taken away.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "file_bytes.h"
#include "run_process.h"

namespace opevo::test {
namespace {

namespace fs = std::filesystem;

const std::string kReplay =
    std::string("replay:") + OPEVO_DATASETS_DIR + "/gemm/RTX_2080_Ti.json.gz";

// The CLI as a user who cannot write the share; empty where no such user can be had here.
struct Reader {
  std::string program;
  std::vector<std::string> prefix;
  std::string unavailable;
  Reader() {
    if (::geteuid() != 0) {
      program = OPEVO_CLI;
      return;
    }
    for (const char* setpriv : {"/usr/bin/setpriv", "/bin/setpriv"})
      if (::access(setpriv, X_OK) == 0) program = setpriv;
    if (program.empty()) {
      unavailable = "running as root, and setpriv (util-linux) is missing to run as uid 65534";
      return;
    }
    prefix = {"--reuid=65534", "--regid=65534", "--clear-groups", OPEVO_CLI};
    const ProcessResult reach = run({"--help"});
    if (reach.status != 0)
      unavailable = "uid 65534 cannot run " + std::string(OPEVO_CLI) + " (setpriv, or a folder " +
                    "on its path closed to others): " + reach.err;
    // The programs beside it too (a build inside a folder of mode 700, as mktemp -d makes it:
    // setpriv starts the CLI, whose worker that user then cannot reach).
    else if (runProcess(program, {"--reuid=65534", "--regid=65534", "--clear-groups", "/bin/sh",
                                  "-c", "test -x \"$0\"", OPEVO_WORKER})
                 .status != 0)
      unavailable = "uid 65534 cannot reach " + std::string(OPEVO_WORKER) +
                    " (a folder on its path is closed to others)";
  }
  ProcessResult run(std::vector<std::string> args) const {
    args.insert(args.begin(), prefix.begin(), prefix.end());
    return runProcess(program, args);
  }
};

struct Share {
  fs::path dir, db, out;
  Share() {
    char pattern[] = "/tmp/opevo-read-only-XXXXXX";
    dir = mkdtemp(pattern);
    db = dir / "share" / "colleague.db";
    out = dir / "out";
    fs::create_directory(dir / "share");
    fs::create_directory(out);
    fs::permissions(dir, fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
    fs::permissions(out, fs::perms::all);
  }
  // Read-only from here on, for its owner too when that is not root.
  void close() const {
    for (const auto& f : fs::directory_iterator(db.parent_path()))
      fs::permissions(f.path(),
                      fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    fs::permissions(db.parent_path(), fs::perms::owner_read | fs::perms::owner_exec |
                                          fs::perms::group_read | fs::perms::group_exec |
                                          fs::perms::others_read | fs::perms::others_exec);
  }
  ~Share() {
    std::error_code ec;
    fs::permissions(db.parent_path(), fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(dir, ec);
  }
};

TEST(CliReadOnlyDb, ReadingCommandsReadAReadOnlyShareAndWritingOnesNameIt) {
  const Reader reader;
  if (!reader.unavailable.empty()) GTEST_SKIP() << "no read-only condition: " << reader.unavailable;
  const Share share;
  const std::string db = share.db.string();
  for (const char* algo : {"random", "opevo"}) {
    const ProcessResult tuned = runProcess(
        OPEVO_CLI, {"tune", "--backend", kReplay, "--algo", algo, "--trials", "4", "--db", db});
    ASSERT_EQ(tuned.status, 0) << tuned.err;
  }
  share.close();
  const std::string before = fileBytes(share.db);
  ASSERT_FALSE(before.empty()) << "the database did not read";

  const ProcessResult listed = reader.run({"runs", "--db", db});
  EXPECT_EQ(listed.status, 0) << listed.err;
  EXPECT_NE(listed.out.find("opevo"), std::string::npos) << listed.out;
  const ProcessResult json = reader.run({"runs", "--db", db, "--json"});
  ASSERT_EQ(json.status, 0) << json.err;
  EXPECT_EQ(nlohmann::json::parse(json.out).size(), 2u) << json.out;
  const ProcessResult shown = reader.run({"show", "2", "--db", db});
  EXPECT_EQ(shown.status, 0) << shown.err;
  EXPECT_NE(shown.out.find("4 trials, best"), std::string::npos) << shown.out;
  const ProcessResult exported =
      reader.run({"export", "1", "--db", db, "--out", (share.out / "run1").string()});
  EXPECT_EQ(exported.status, 0) << exported.err;
  EXPECT_TRUE(fs::exists(share.out / "run1" / "record.json")) << exported.out << exported.err;

  for (const std::vector<std::string>& writes :
       {std::vector<std::string>{"tune", "--backend", kReplay, "--algo", "random", "--trials", "2",
                                 "--db", db},
        std::vector<std::string>{"tune", "--resume", "1", "--trials", "6", "--db", db},
        std::vector<std::string>{"runs", "delete", "1", "--db", db}}) {
    const ProcessResult refused = reader.run(writes);
    EXPECT_EQ(refused.status, 2) << writes[0] << " " << writes[1] << ": " << refused.err;
    EXPECT_NE(refused.err.find("database '" + db +
                               "' cannot be written: it or its folder is "
                               "read-only"),
              std::string::npos)
        << refused.err;
  }
  EXPECT_EQ(fileBytes(share.db), before) << "the file was changed";
  EXPECT_FALSE(fs::exists(db + "-wal"));
  EXPECT_FALSE(fs::exists(db + "-shm"));
}

// A network run and the kernel searches on a read-only share: `net runs`, `net runs ID`, `net
// export`, `net archive` and `kas searches` read it as `opevo runs` does (they opened it for
// writing and were refused), and `net tune --resume` and `net delete` name the file.
TEST(CliReadOnlyDb, NetworkAndKernelSearchReadersReadAReadOnlyShare) {
  const Reader reader;
  if (!reader.unavailable.empty()) GTEST_SKIP() << "no read-only condition: " << reader.unavailable;
  const Share share;
  const std::string db = share.db.string();
  const std::string net = std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_dense_pair.json";
  const ProcessResult tuned = runProcess(OPEVO_CLI, {"net", "tune", net, "--trials", "4", "--unit",
                                                     "2", "--no-reference", "--db", db});
  ASSERT_EQ(tuned.status, 0) << tuned.err;
  share.close();
  const std::string before = fileBytes(share.db);
  ASSERT_FALSE(before.empty()) << "the database did not read";

  const ProcessResult listed = reader.run({"net", "runs", "--db", db, "--json"});
  ASSERT_EQ(listed.status, 0) << listed.err;
  ASSERT_EQ(nlohmann::json::parse(listed.out).size(), 1u) << listed.out;
  EXPECT_EQ(nlohmann::json::parse(listed.out)[0]["network"], "dense_pair") << listed.out;
  const ProcessResult shown = reader.run({"net", "runs", "1", "--db", db});
  EXPECT_EQ(shown.status, 0) << shown.err;
  EXPECT_NE(shown.out.find("dense_pair"), std::string::npos) << shown.out;
  const ProcessResult exported =
      reader.run({"net", "export", "1", "--db", db, "--out", (share.out / "net1").string()});
  EXPECT_EQ(exported.status, 0) << exported.err;
  EXPECT_TRUE(fs::exists(share.out / "net1")) << exported.out << exported.err;
  const ProcessResult archived =
      reader.run({"net", "archive", "1", "--db", db, "--out", (share.out / "net1.json").string()});
  EXPECT_EQ(archived.status, 0) << archived.err;
  EXPECT_TRUE(fs::exists(share.out / "net1.json")) << archived.out << archived.err;
  const ProcessResult searches = reader.run({"kas", "searches", "--db", db, "--json"});
  EXPECT_EQ(searches.status, 0) << searches.err;
  EXPECT_EQ(nlohmann::json::parse(searches.out), nlohmann::json::array()) << searches.out;

  for (const std::vector<std::string>& writes :
       {std::vector<std::string>{"net", "tune", "--resume", "1", "--db", db},
        std::vector<std::string>{"net", "delete", "1", "--db", db}}) {
    const ProcessResult refused = reader.run(writes);
    EXPECT_EQ(refused.status, 2) << writes[1] << ": " << refused.err;
    EXPECT_NE(refused.err.find("database '" + db + "' cannot be written"), std::string::npos)
        << writes[1] << ": " << refused.err;
  }
  EXPECT_EQ(fileBytes(share.db), before) << "the file was changed";
  EXPECT_FALSE(fs::exists(db + "-wal"));
  EXPECT_FALSE(fs::exists(db + "-shm"));
}

}  // namespace
}  // namespace opevo::test
