// History after a read of the store that failed (the database deleted and something else put in
// its place, a file that is no longer a database): the table kept the rows of the last read that
// worked, the title still said "2 runs can be resumed", and Resume, More trials… and Delete… stayed
// on for runs the file no longer held, read-only or not as the file was then. Now nothing is shown
// that the failed read did not find, the failure is said, and the next read that works lists the
// runs again with the selection as it was. It said it three times (the error line, the title and
// the line under the table): now once, in the error line under the title, with its reason.
#include <gtest/gtest.h>

#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QTemporaryDir>
#include <QThreadPool>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gui_test_support.h"
#include "store/store.h"
#include "ui/controller/race_data.h"
#include "ui/models/history_model.h"
#include "ui/pages/history_page.h"

namespace opevo::ui {
namespace {

namespace fs = std::filesystem;
using test::waitUntil;

std::int64_t addRun(const std::string& db, RunStatus status) {
  Store store(db);
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
    t.order = i;
    t.config = "x=" + std::to_string(i);
    t.speed = i;
    rows.push_back(t);
  }
  const std::int64_t id = store.createRunWithTrials(r, rows);
  store.setRunStatus(id, status);
  return id;
}

std::vector<std::int64_t> selectedIds(const HistoryPage& page) {
  std::vector<std::int64_t> ids;
  for (const QModelIndex& index : page.view()->selectionModel()->selectedRows())
    ids.push_back(page.model()->row(index.row()).run.id);
  return ids;
}

TEST(HistoryFailedRead, NothingTheReadDidNotFindIsShownAndTheFailureIsSaid) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const fs::path db = dir.filePath(QStringLiteral("runs.db")).toStdString();
  addRun(db.string(), RunStatus::Interrupted);
  const std::int64_t interrupted = addRun(db.string(), RunStatus::Interrupted);

  HistoryPage page;
  page.resize(1200, 700);
  page.show();
  page.setStorePath(QString::fromStdString(db.string()));
  ASSERT_TRUE(waitUntil([&] { return !page.busy() && page.model()->rowCount() == 2; }));
  EXPECT_TRUE(page.title().contains(QStringLiteral("2 runs can be resumed")))
      << page.title().toStdString();
  for (int r = 0; r < page.model()->rowCount(); ++r)
    if (page.model()->row(r).run.id == interrupted) page.view()->selectRow(r);
  ASSERT_TRUE(waitUntil([&] { return !page.busy() && !page.data()->trials().empty(); }));
  ASSERT_TRUE(page.resumeButton()->isEnabled());
  ASSERT_TRUE(page.deleteButton()->isEnabled());
  ASSERT_TRUE(page.exportButton()->isEnabled());

  // The database is replaced by a file that is no database (kept aside to come back).
  QThreadPool::globalInstance()->waitForDone();  // no read holds it open
  const fs::path kept = db.string() + ".kept";
  fs::copy_file(db, kept);
  for (const char* suffix : {"-wal", "-shm"}) fs::remove(db.string() + suffix);
  {
    std::ofstream garbage(db, std::ios::binary | std::ios::trunc);
    for (int i = 0; i < 64; ++i) garbage << "this file is not a database any more\n";
  }
  page.reload();
  ASSERT_TRUE(waitUntil([&] { return !page.busy(); }));
  const auto* error = page.findChild<QLabel*>(QStringLiteral("historyError"));
  ASSERT_NE(error, nullptr);
  EXPECT_TRUE(error->isVisible());
  EXPECT_TRUE(error->text().contains(QStringLiteral("The history cannot be read")))
      << error->text().toStdString();
  EXPECT_TRUE(error->text().contains(QStringLiteral("not an SQLite file")))
      << error->text().toStdString();
  EXPECT_TRUE(error->text().contains(QStringLiteral("Reload"))) << error->text().toStdString();
  // Said once: no other line of the page says it again.
  const auto saidIn = [&] {
    QStringList names;
    for (const QLabel* label : page.findChildren<QLabel*>())
      if (label->isVisible() && label->text().contains(QStringLiteral("cannot be read")))
        names << label->objectName();
    return names.join(QStringLiteral(", ")).toStdString();
  };
  EXPECT_EQ(saidIn(), "historyError");
  EXPECT_EQ(page.model()->rowCount(), 0) << "the rows of the last read that worked stayed";
  EXPECT_FALSE(page.title().contains(QStringLiteral("can be resumed")))
      << page.title().toStdString();
  for (const QPushButton* b : {page.resumeButton(), page.moreTrialsButton(), page.deleteButton(),
                               page.exportButton(), page.selectRaceButton()})
    EXPECT_FALSE(b->isEnabled()) << b->objectName().toStdString();
  EXPECT_TRUE(page.data()->trials().empty()) << "the curves of runs it could not read are drawn";
  const auto* info = page.findChild<QLabel*>(QStringLiteral("historyInfo"));
  ASSERT_NE(info, nullptr);
  EXPECT_FALSE(info->text().contains(QStringLiteral("No runs yet"))) << info->text().toStdString();
  // The Delete key deletes nothing: there is nothing selected to delete.
  page.deleteSelected();
  EXPECT_EQ(page.findChild<QWidget*>(QStringLiteral("deleteRunsBox")), nullptr);

  // A second failure keeps what the first one kept; then the file comes back.
  page.reload();
  ASSERT_TRUE(waitUntil([&] { return !page.busy(); }));
  EXPECT_EQ(page.model()->rowCount(), 0);
  EXPECT_EQ(saidIn(), "historyError");
  fs::remove(db);
  fs::copy_file(kept, db);
  page.reload();
  ASSERT_TRUE(waitUntil([&] { return !page.busy() && page.model()->rowCount() == 2; }));
  EXPECT_TRUE(error->text().isEmpty()) << error->text().toStdString();
  EXPECT_TRUE(page.title().contains(QStringLiteral("2 runs can be resumed")))
      << page.title().toStdString();
  EXPECT_EQ(selectedIds(page), std::vector<std::int64_t>{interrupted});
  ASSERT_TRUE(waitUntil([&] { return !page.busy() && !page.data()->trials().empty(); }));
  EXPECT_TRUE(page.resumeButton()->isEnabled());
  EXPECT_TRUE(page.deleteButton()->isEnabled());
  QThreadPool::globalInstance()->waitForDone();
}

}  // namespace
}  // namespace opevo::ui
