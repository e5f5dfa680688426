// History on a database this user cannot write (a colleague's file, a read-only share): the store
// opens it read-only, and Delete… and More trials… stayed on, asked "Delete run 2? This cannot be
// undone." and only then said the file was read-only. Every button that writes is off, its
// tooltip saying why and what to do; reading (the curves, Export kernel…) goes on. The other
// pages that read stored work read it too: the Kernels page said "The kernel searches cannot be
// read: ... is read-only" and the Networks page's stored runs were an empty list (both opened the
// file to write); listed, the network run's Resume and Delete… are off and say why.
//
// As root a file's permissions do not stop a write, so the page is checked in a child that is
// uid 65534 (this test's binary again, run as that user on the database); as another user, in a
// child that is that user, with the folder's write permission taken away.

#include <grp.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QTest>
#include <QThreadPool>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "gui_test_support.h"
#include "kas/kas_search.h"
#include "store/store.h"
#include "support/file_bytes.h"
#include "ui/models/history_model.h"
#include "ui/pages/history_page.h"
#include "ui/pages/kernels_page.h"
#include "ui/widgets/network_setup_panel.h"
#include "unit/temp_dir.h"

namespace opevo::ui {
namespace {

namespace fs = std::filesystem;
using test::waitUntil;

constexpr uid_t kNobody = 65534;
// Set in the child: the database it opens, read-only to it.
constexpr const char* kChildDb = "OPEVO_TEST_HISTORY_READ_ONLY_DB";
constexpr const char* kTestName = "HistoryReadOnly.EveryButtonThatWritesIsOffAndSaysWhy";

std::int64_t addRun(Store& store, RunStatus status) {
  RunRecord r;
  r.operatorName = "mm";
  r.operatorJson = R"({"replay": "/nowhere/A100_T4.json.gz"})";
  r.algorithm = "random";
  r.backend = "replay";
  r.device = "A100";
  r.budgetJson = R"({"trials": 10})";
  r.speedUnit = "GFLOP/s";
  std::vector<TrialRow> rows;
  for (int i = 1; i <= 4; ++i) {
    TrialRow t;
    t.seq = i;
    t.config = "x=" + std::to_string(i);
    t.speed = i;
    rows.push_back(t);
  }
  const std::int64_t id = store.createRunWithTrials(r, rows);
  store.setRunStatus(id, status);
  return id;
}

// The child's side: the page on the read-only database.
void checkPage(const QString& db) {
  HistoryPage page;
  page.resize(1200, 700);
  page.show();
  page.setStorePath(db);
  ASSERT_TRUE(waitUntil([&] { return !page.busy() && page.model()->rowCount() == 2; }));
  EXPECT_TRUE(page.title().contains(QStringLiteral("read-only"))) << page.title().toStdString();
  EXPECT_FALSE(page.title().contains(QStringLiteral("can be resumed")));
  // Rows by id, whatever the sort: run 1 finished (More trials…), run 2 interrupted (Resume).
  const auto select = [&](std::int64_t id) {
    for (int r = 0; r < page.model()->rowCount(); ++r)
      if (page.model()->row(r).run.id == id) page.view()->selectRow(r);
  };
  const auto saysWhy = [](const QPushButton* b) {
    const QString tip = b->toolTip();
    EXPECT_TRUE(tip.contains(QStringLiteral("read-only for you")) &&
                tip.contains(QStringLiteral("copy it")) && tip.contains(QStringLiteral("owner")))
        << b->objectName().toStdString() << ": " << tip.toStdString();
  };
  select(1);
  ASSERT_TRUE(waitUntil([&] { return !page.busy(); }));
  EXPECT_FALSE(page.moreTrialsButton()->isEnabled());
  EXPECT_FALSE(page.deleteButton()->isEnabled());
  EXPECT_TRUE(page.exportButton()->isEnabled()) << "reading goes on";
  saysWhy(page.moreTrialsButton());
  saysWhy(page.deleteButton());
  select(2);
  ASSERT_TRUE(waitUntil([&] { return !page.busy(); }));
  EXPECT_FALSE(page.resumeButton()->isEnabled());
  saysWhy(page.resumeButton());
  EXPECT_EQ(page.moreTrialsForSelected(), nullptr);
  // The Delete key asks nothing and says why at once.
  page.view()->setFocus();
  QTest::keyClick(page.view(), Qt::Key_Delete);
  EXPECT_EQ(page.findChild<QWidget*>(QStringLiteral("deleteRunsBox")), nullptr);
  const auto* error = page.findChild<QLabel*>(QStringLiteral("historyError"));
  ASSERT_NE(error, nullptr);
  EXPECT_TRUE(error->text().contains(QStringLiteral("Nothing deleted")))
      << error->text().toStdString();
  // The kernel search and the network run stored beside the runs are listed.
  KernelsPage kernels;
  QString kernelsSaid;
  QObject::connect(&kernels, &KernelsPage::statusMessage,
                   [&](const QString& text) { kernelsSaid = text; });
  kernels.setStorePath(db);
  EXPECT_TRUE(waitUntil([&] { return kernels.shownSearch() > 0 && !kernels.loading(); }))
      << kernelsSaid.toStdString();
  EXPECT_FALSE(kernelsSaid.contains(QStringLiteral("cannot be read"))) << kernelsSaid.toStdString();
  NetworkSetupPanel networks;
  networks.setStorePath(db);
  EXPECT_TRUE(waitUntil([&] { return networks.storedRuns().size() == 1; }));
  // The network run is interrupted: Resume would be on, and Delete…, on a file it could write.
  for (const char* name : {"resumeButton", "deleteNetworkRun"}) {
    const auto* b = networks.findChild<QPushButton*>(QString::fromLatin1(name));
    ASSERT_NE(b, nullptr) << name;
    EXPECT_FALSE(b->isEnabled()) << name;
    saysWhy(b);
  }
  QThreadPool::globalInstance()->waitForDone();
}

// Runs this test again in a child that cannot write `folder`: uid 65534 when this is root, else
// this user. Its gtest output in *out; the reason in *skipped where no such child can be made.
int runChild(const fs::path& folder, const fs::path& db, std::string* out, std::string* skipped) {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);  // before the child loses /proc
  if (ec) {
    *skipped = "no /proc/self/exe";
    return -1;
  }
  int pipeFds[2];
  if (::pipe(pipeFds) != 0) {
    *skipped = "no pipe";
    return -1;
  }
  // Everything the child needs is made before the fork: between fork and exec a child of a
  // process with threads (Qt's pool) may call only what is async-signal-safe (no malloc).
  const std::string filter = std::string("--gtest_filter=") + kTestName;
  std::vector<std::string> env = {std::string(kChildDb) + "=" + db.string(), "HOME=/tmp"};
  for (char** e = environ; *e; ++e)
    if (std::string(*e).rfind("HOME=", 0) != 0) env.emplace_back(*e);
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(pipeFds[0]);
    ::dup2(pipeFds[1], STDOUT_FILENO);
    ::dup2(pipeFds[1], STDERR_FILENO);
    const auto skip = [](const char* why) {
      [[maybe_unused]] const auto n = ::write(STDOUT_FILENO, why, std::strlen(why));
      ::_exit(0);
    };
    if (::geteuid() == 0 &&
        (::setgroups(0, nullptr) != 0 || ::setresgid(kNobody, kNobody, kNobody) != 0 ||
         ::setresuid(kNobody, kNobody, kNobody) != 0))
      skip("SKIP: cannot become uid 65534 (setresuid refused)");
    if (::access(folder.c_str(), W_OK) == 0)
      skip("SKIP: the folder is still writable to this user");
    if (::access(db.c_str(), R_OK) != 0) skip("SKIP: the database cannot be read by uid 65534");
    if (::access(self.c_str(), X_OK) != 0)
      skip("SKIP: uid 65534 cannot run this test's binary (a parent folder is closed)");
    ::execle(self.c_str(), self.c_str(), filter.c_str(), static_cast<char*>(nullptr), envp.data());
    skip("SKIP: cannot run this test's binary");
  }
  ::close(pipeFds[1]);
  char buffer[4096];
  ssize_t n = 0;
  while ((n = ::read(pipeFds[0], buffer, sizeof buffer)) > 0)
    out->append(buffer, static_cast<std::size_t>(n));
  ::close(pipeFds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (out->rfind("SKIP: ", 0) == 0) *skipped = out->substr(6);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(HistoryReadOnly, EveryButtonThatWritesIsOffAndSaysWhy) {
  if (const char* db = std::getenv(kChildDb)) {
    checkPage(QString::fromLocal8Bit(db));
    return;
  }
  const opevo::test::TempDir dir;
  const fs::path share = dir.path / "share";
  const fs::path db = share / "colleague.db";
  fs::create_directory(share);
  {
    Store store(db.string());
    addRun(store, RunStatus::Finished);
    addRun(store, RunStatus::Interrupted);
    const kas::KasSearchSettings settings;
    KasSearchRecord search;
    search.network = settings.network;
    search.settingsJson = settings.toJson().dump();
    store.setKasSearchStatus(store.createKasSearch(search), RunStatus::Finished);
    NetworkRecord network;
    network.name = network.source = "alexnet";
    network.networkJson = network.paramsJson = network.planJson = "{}";
    network.backend = "cpu";
    network.status = RunStatus::Interrupted;
    store.createNetwork(network);
  }
  // Readable by all, writable by none but root: a colleague's share.
  const auto readable = fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read;
  const auto enterable = fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec;
  for (const auto& f : fs::directory_iterator(share)) fs::permissions(f.path(), readable);
  fs::permissions(share, readable | enterable);
  fs::permissions(dir.path, fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
  const std::string before = opevo::test::fileBytes(db);
  ASSERT_FALSE(before.empty()) << "the database did not read";

  std::string out, skipped;
  const int status = runChild(share, db, &out, &skipped);
  fs::permissions(share, fs::perms::owner_all, fs::perm_options::add);
  if (!skipped.empty()) GTEST_SKIP() << "no read-only condition: " << skipped;
  EXPECT_EQ(status, 0) << out;
  EXPECT_NE(out.find("[  PASSED  ] 1 test"), std::string::npos) << out;
  EXPECT_TRUE(opevo::test::fileBytes(db) == before) << "the database was written";
  EXPECT_FALSE(fs::exists(db.string() + "-wal")) << "nothing is made beside it";
}

}  // namespace
}  // namespace opevo::ui
