// The History page sorted by its headers (numbers as numbers, starts as dates), its Seed column,
// and deleting runs from it, on a real store: the buttons and the race selection keep acting on
// the runs shown where they are shown.

#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <QThreadPool>
#include <map>
#include <string>
#include <vector>

#include "gui_test_support.h"
#include "store/run_lock.h"
#include "store/store.h"
#include "ui/models/history_model.h"
#include "ui/pages/history_page.h"
#include "unit/temp_dir.h"

namespace opevo::ui {
namespace {

using opevo::test::TempDir;
using test::waitUntil;

class HistorySortDelete : public ::testing::Test {
 protected:
  // The page's last reads may still run on Qt's pool after it is gone (a stale job is dropped,
  // not stopped): they end before the folder is removed under them.
  void TearDown() override { QThreadPool::globalInstance()->waitForDone(); }

  std::string path() const { return m_dir.file("runs.db"); }

  std::int64_t addRun(int trials, std::uint64_t seed, const std::string& started,
                      std::int64_t race = 0, RunStatus status = RunStatus::Interrupted) {
    Store store(path());
    RunRecord r;
    r.operatorName = "mm";
    r.operatorJson = R"({"replay": "/nowhere/A100_T4.json.gz"})";
    r.algorithm = "random";
    r.backend = "replay";
    r.device = "A100";
    r.budgetJson = R"({"trials": 100})";
    r.speedUnit = "GFLOP/s";
    r.seed = seed;
    r.started = started;
    r.raceId = race;
    std::vector<TrialRow> rows;
    for (int i = 1; i <= trials; ++i) {
      TrialRow t;
      t.seq = i;
      t.config = "x=" + std::to_string(i);
      t.speed = i;
      rows.push_back(t);
    }
    const std::int64_t id = store.createRunWithTrials(r, rows);
    if (status != RunStatus::Running) store.setRunStatus(id, status);
    return id;
  }
  bool open(HistoryPage& page, int runs) {
    page.setStorePath(QString::fromStdString(path()));
    return waitUntil([&] { return !page.busy() && page.model()->rowCount() == runs; });
  }
  // The run ids from the top row down, as the table shows them.
  static std::vector<std::int64_t> shown(HistoryPage& page) {
    std::vector<std::int64_t> ids;
    for (int r = 0; r < page.model()->rowCount(); ++r)
      ids.push_back(page.view()->model()->index(r, HistoryModel::IdColumn).data().toLongLong());
    return ids;
  }
  static std::vector<std::int64_t> selected(HistoryPage& page) {
    std::vector<std::int64_t> ids;
    for (const QModelIndex& index : page.view()->selectionModel()->selectedRows())
      ids.push_back(page.model()->row(index.row()).run.id);
    std::sort(ids.begin(), ids.end());
    return ids;
  }
  static void clickHeader(HistoryPage& page, int column) {
    QHeaderView* header = page.view()->horizontalHeader();
    QTest::mouseClick(header->viewport(), Qt::LeftButton, {},
                      QPoint(header->sectionViewportPosition(column) + 4, header->height() / 2));
  }
  static QMessageBox* confirmation(HistoryPage& page) {
    QMessageBox* box = nullptr;
    waitUntil([&] {
      box = page.findChild<QMessageBox*>(QStringLiteral("deleteRunsBox"));
      return box && box->isVisible();
    });
    return box;
  }

  TempDir m_dir;
};

TEST_F(HistorySortDelete, HeadersSortNumbersAsNumbersAndStartsAsDates) {
  // Trials 3, 100, 12 and seeds 20, 3, 100: as text they would sort 100 < 12 < 3.
  const std::int64_t a = addRun(3, 20, "2026-01-01T23:00:00.000Z");
  // 00:30 at +02:00 is 22:30 UTC: started before a, though its text sorts after.
  const std::int64_t b = addRun(100, 3, "2026-01-02T00:30:00.000+02:00");
  const std::int64_t c = addRun(12, 100, "2026-01-03T08:00:00.000Z");
  HistoryPage page;
  page.resize(1000, 600);
  page.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&page));
  ASSERT_TRUE(open(page, 3));
  EXPECT_EQ(shown(page), (std::vector<std::int64_t>{c, b, a}));  // newest first, as before

  EXPECT_EQ(page.model()->headerData(HistoryModel::SeedColumn, Qt::Horizontal).toString(),
            QStringLiteral("Seed"));
  EXPECT_EQ(page.model()->index(0, HistoryModel::SeedColumn).data().toULongLong(), 100u);

  clickHeader(page, HistoryModel::TrialsColumn);
  const Qt::SortOrder first = page.view()->horizontalHeader()->sortIndicatorOrder();
  const std::vector<std::int64_t> fewFirst{a, c, b};
  const std::vector<std::int64_t> manyFirst{b, c, a};
  EXPECT_EQ(shown(page), first == Qt::AscendingOrder ? fewFirst : manyFirst);
  clickHeader(page, HistoryModel::TrialsColumn);  // and the other way
  EXPECT_EQ(shown(page), first == Qt::AscendingOrder ? manyFirst : fewFirst);

  page.view()->sortByColumn(HistoryModel::SeedColumn, Qt::AscendingOrder);
  EXPECT_EQ(shown(page), (std::vector<std::int64_t>{b, a, c}));
  page.view()->sortByColumn(HistoryModel::StartedColumn, Qt::AscendingOrder);
  EXPECT_EQ(shown(page), (std::vector<std::int64_t>{b, a, c}));

  // A reload keeps the order asked for.
  page.reload();
  ASSERT_TRUE(waitUntil([&] { return !page.busy(); }));
  EXPECT_EQ(shown(page), (std::vector<std::int64_t>{b, a, c}));
}

// Sorted by seed, a race's runs lie apart: the selection follows its runs through a sort, the
// whole race is selected from any of its rows, and Resume asks for the runs selected.
TEST_F(HistorySortDelete, SelectionRaceAndResumeFollowTheRunsThroughASort) {
  const std::int64_t race = Store(path()).createRace(Schedule::RoundRobin, 1);
  const std::int64_t r1 = addRun(3, 1, "2026-01-01T10:00:00.000Z", race);
  const std::int64_t lone = addRun(5, 2, "2026-01-01T11:00:00.000Z");
  const std::int64_t r2 = addRun(4, 3, "2026-01-01T12:00:00.000Z", race);
  HistoryPage page;
  std::vector<std::vector<RunRecord>> asked;
  QObject::connect(&page, &HistoryPage::resumeRaceRequested, &page,
                   [&](const std::vector<RunRecord>& runs) { asked.push_back(runs); });
  ASSERT_TRUE(open(page, 3));
  ASSERT_TRUE(page.selectRuns({lone}).empty());
  page.view()->sortByColumn(HistoryModel::SeedColumn, Qt::AscendingOrder);
  EXPECT_EQ(shown(page), (std::vector<std::int64_t>{r1, lone, r2}));
  EXPECT_EQ(selected(page), std::vector<std::int64_t>{lone});

  page.view()->setCurrentIndex(page.view()->model()->index(2, 0));  // r2, at the bottom
  page.selectRace(2);
  EXPECT_EQ(selected(page), (std::vector<std::int64_t>{r1, r2}));
  ASSERT_TRUE(page.resumeButton()->isEnabled());
  EXPECT_EQ(page.resumeButton()->text(), QStringLiteral("Resume 2 runs"));
  page.resumeButton()->click();
  ASSERT_EQ(asked.size(), 1u);
  ASSERT_EQ(asked[0].size(), 2u);
  EXPECT_EQ(asked[0][0].id, r1);
  EXPECT_EQ(asked[0][1].id, r2);
  // Sorted the other way, the same runs stay selected and current.
  page.view()->sortByColumn(HistoryModel::SeedColumn, Qt::DescendingOrder);
  EXPECT_EQ(selected(page), (std::vector<std::int64_t>{r1, r2}));
  EXPECT_EQ(page.model()->row(page.view()->currentIndex().row()).run.id, r2);
}

// Two runs selected in a sorted table and deleted with the Delete key: the dialog names them and
// their trials, and after it only the third is left, in the store and in the table.
TEST_F(HistorySortDelete, TheDeleteKeyDeletesTheSelectedRunsAfterAsking) {
  const std::int64_t a = addRun(3, 30, "2026-01-01T10:00:00.000Z");
  const std::int64_t b = addRun(5, 10, "2026-01-01T11:00:00.000Z");
  const std::int64_t c = addRun(4, 20, "2026-01-01T12:00:00.000Z");
  HistoryPage page;
  QSignalSpy said(&page, &HistoryPage::statusMessage);
  ASSERT_TRUE(open(page, 3));
  EXPECT_FALSE(page.deleteButton()->isEnabled());  // nothing selected
  page.view()->sortByColumn(HistoryModel::SeedColumn, Qt::AscendingOrder);
  ASSERT_EQ(shown(page), (std::vector<std::int64_t>{b, c, a}));
  // Rows 0 and 2 of the view: b and a, not the newest two.
  page.view()->selectionModel()->select(page.view()->model()->index(0, 0),
                                        QItemSelectionModel::Select | QItemSelectionModel::Rows);
  page.view()->selectionModel()->select(page.view()->model()->index(2, 0),
                                        QItemSelectionModel::Select | QItemSelectionModel::Rows);
  ASSERT_TRUE(page.deleteButton()->isEnabled());

  // Cancelled: nothing goes.
  QTest::keyClick(page.view(), Qt::Key_Delete);
  QMessageBox* box = confirmation(page);
  ASSERT_NE(box, nullptr);
  EXPECT_EQ(box->text(), QStringLiteral("Delete 2 runs and their 8 trials from runs.db?"));
  EXPECT_TRUE(
      box->informativeText().contains(QStringLiteral("run %1 (mm, random, 3 trials)").arg(a)))
      << box->informativeText().toStdString();
  box->button(QMessageBox::Cancel)->click();
  ASSERT_TRUE(
      waitUntil([&] { return !page.findChild<QMessageBox*>(QStringLiteral("deleteRunsBox")); }));
  EXPECT_EQ(Store(path()).runs().size(), 3u);

  QTest::keyClick(page.view(), Qt::Key_Delete);
  box = confirmation(page);
  ASSERT_NE(box, nullptr);
  box->findChild<QPushButton*>(QStringLiteral("confirmDelete"))->click();
  ASSERT_TRUE(waitUntil([&] { return !page.busy() && page.model()->rowCount() == 1; }));
  EXPECT_EQ(shown(page), std::vector<std::int64_t>{c});
  const Store store(path());
  ASSERT_EQ(store.runs().size(), 1u);
  EXPECT_EQ(store.runs()[0].id, c);
  EXPECT_TRUE(store.trials(a).empty());
  EXPECT_TRUE(store.trials(b).empty());
  EXPECT_EQ(store.trials(c).size(), 4u);
  ASSERT_GE(said.count(), 1);
  EXPECT_EQ(said.last().at(0).toString(), QStringLiteral("Deleted 2 runs and their 8 trials."));
}

// A run being tuned (here: this process holds it, as the Runs page would) is not deleted, and
// the page says why; nothing else of the selection goes either.
TEST_F(HistorySortDelete, ARunBeingTunedIsRefusedWithTheReason) {
  const std::int64_t done = addRun(3, 1, "2026-01-01T10:00:00.000Z");
  const std::int64_t live = addRun(2, 2, "2026-01-01T11:00:00.000Z", 0, RunStatus::Running);
  RunLock held(path(), LockedKind::Run, live);
  HistoryPage page;
  ASSERT_TRUE(open(page, 2));
  ASSERT_TRUE(page.selectRuns({done, live}).empty());
  page.deleteButton()->click();
  auto* error = page.findChild<QLabel*>(QStringLiteral("historyError"));
  ASSERT_TRUE(waitUntil([&] { return !page.busy() && !error->text().isEmpty(); }));
  EXPECT_TRUE(error->text().startsWith(QStringLiteral("Run %1 is being tuned now").arg(live)))
      << error->text().toStdString();
  EXPECT_TRUE(error->text().endsWith(QStringLiteral("nothing was deleted.")));
  EXPECT_EQ(page.findChild<QMessageBox*>(QStringLiteral("deleteRunsBox")), nullptr);
  EXPECT_EQ(Store(path()).runs().size(), 2u);
  // The page reads the store again every 2 s while a run is going on: the reason stays.
  page.reload();
  ASSERT_TRUE(waitUntil([&] { return !page.busy(); }));
  EXPECT_TRUE(error->text().startsWith(QStringLiteral("Run %1 is being tuned now").arg(live)));
}

// Every column sorts both ways under Qt's model tester, a persistent index follows its run, and
// runs without a working trial (no best) or outside a race (no repeat) sort first, not as 0.
TEST(HistoryModelSort, EveryColumnSortsAndPersistentIndexesFollowTheirRuns) {
  HistoryModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  std::vector<RunRecord> runs(3);
  std::map<std::int64_t, RunTally> tallies;
  for (int i = 0; i < 3; ++i) {
    runs[i].id = i + 1;
    runs[i].seed = static_cast<std::uint64_t>(9 - i);
    runs[i].started = "2026-01-0" + std::to_string(i + 1) + "T00:00:00.000Z";
    runs[i].budgetJson = i == 0 ? R"({"trials": 1000})" : R"({"trials": 200})";
  }
  runs[2].raceId = 5;
  tallies[1] = {4, 2.5};
  tallies[2] = {2, std::nullopt};
  model.setRuns(runs, tallies);
  const QPersistentModelIndex second(model.index(1, 0));  // run 2, newest first
  ASSERT_EQ(model.row(second.row()).run.id, 2);
  for (int column = 0; column < HistoryModel::ColumnCount; ++column)
    for (const Qt::SortOrder order : {Qt::AscendingOrder, Qt::DescendingOrder}) {
      model.sort(column, order);
      EXPECT_EQ(model.row(second.row()).run.id, 2) << "column " << column;
    }
  model.sort(HistoryModel::BestColumn, Qt::AscendingOrder);
  EXPECT_EQ(model.row(0).run.id, 3);  // no trials: no best
  EXPECT_EQ(model.row(1).run.id, 2);  // trials, none worked
  EXPECT_EQ(model.row(2).run.id, 1);
  model.sort(HistoryModel::BudgetColumn, Qt::AscendingOrder);  // 200 trials before 1000 trials
  EXPECT_EQ(model.row(2).run.id, 1);
  model.sort(HistoryModel::RepeatColumn, Qt::DescendingOrder);
  EXPECT_EQ(model.row(0).run.id, 3);  // the only run of a race
  // The newest run with trials wherever the sort put it: run 2 (run 3 has none).
  ASSERT_GE(model.newestWithTrials(), 0);
  EXPECT_EQ(model.row(model.newestWithTrials()).run.id, 2);

  // Bests in two units sort by what they measure: 12 TFLOPS above 40 GFLOP/s.
  runs[0].speedUnit = "TFLOPS";
  runs[1].speedUnit = "GFLOP/s";
  tallies[1] = {4, 12.0};
  tallies[2] = {4, 40.0};
  model.setRuns(runs, tallies);
  model.sort(HistoryModel::BestColumn, Qt::DescendingOrder);
  EXPECT_EQ(model.row(0).run.id, 1);
  EXPECT_EQ(model.row(1).run.id, 2);
}

}  // namespace
}  // namespace opevo::ui
