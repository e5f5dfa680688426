// History on a big database: the window must answer while the selection moves, as the walk of a
// 327-run, 98k-trial database found it did not.

#include <gtest/gtest.h>

#include <QLabel>
#include <QTableView>
#include <QTemporaryDir>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gui_test_support.h"
#include "store/store.h"
#include "ui/models/history_model.h"
#include "ui/pages/history_page.h"

namespace opevo::ui {
namespace {

using test::waitUntil;

// Ten Down presses froze the window for 3 s, and a selection extended by 24 rows for 7 s: every
// change started a read of the selected runs (and of their dataset, for its optimum), and the
// reads filled the thread pool whose threads Qt's painting waits for. The selection is read once
// it rests, one read at a time, and a dataset's optimum once.
TEST(HistorySelectionLag, MovingTheSelectionDoesNotFreezeTheWindow) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const std::string path = dir.filePath(QStringLiteral("runs.db")).toStdString();
  {
    // Runs replaying the GEMM dataset (a third of a second to read), 300 trials each.
    Store store(path);
    for (int r = 0; r < 40; ++r) {
      RunRecord run;
      run.operatorName = "Xgemm";
      run.operatorJson =
          nlohmann::json{{"replay", OPEVO_DATASETS_DIR "/gemm/RTX_2080_Ti.json.gz"}}.dump();
      run.algorithm = r % 2 ? "opevo-m" : "random";
      run.backend = "replay";
      run.device = "replay of RTX_2080_Ti.json.gz";
      run.budgetJson = R"({"trials": 300})";
      run.speedUnit = "GFLOP/s";
      std::vector<TrialRow> trials;
      for (int seq = 1; seq <= 300; ++seq) {
        TrialRow t;
        t.seq = seq;
        t.order = seq;
        t.config = "x=" + std::to_string(seq);
        t.speed = seq + r;
        t.medianMs = 1;
        t.seconds = 0.1 * seq;
        trials.push_back(t);
      }
      store.setRunStatus(store.createRunWithTrials(run, trials), RunStatus::Finished);
    }
  }
  HistoryPage page;
  page.resize(1200, 900);
  page.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&page));
  page.setStorePath(QString::fromStdString(path));
  ASSERT_TRUE(waitUntil([&] { return !page.busy() && page.model()->rowCount() == 40; }));
  page.view()->setFocus();
  page.view()->selectRow(0);
  ASSERT_TRUE(waitUntil([&] { return !page.busy(); }));

  // The mechanism, not a timing (this machine is shared): a moving selection is read once it
  // rests, not once a step. Before, each step started a read: 10 and 24 of them, and their
  // window froze 3.1 s and 8.8 s (figures of the walk's 327-run database).
  const auto settle = [&](const char* what, auto keys) {
    const int before = page.curvesReads();
    keys();
    ASSERT_TRUE(waitUntil([&] { return !page.busy(); }, 30000)) << what;
    EXPECT_EQ(page.curvesReads() - before, 1) << what;
  };
  settle("ten Down presses", [&] {
    for (int i = 0; i < 10; ++i) {
      QTest::keyClick(page.view(), Qt::Key_Down);
    }
  });
  settle("24 rows added to the selection", [&] {
    for (int i = 0; i < 24; ++i) {
      QTest::keyClick(page.view(), Qt::Key_Down, Qt::ShiftModifier);
    }
  });
  EXPECT_EQ(page.view()->selectionModel()->selectedRows().size(), 25);
  const QString caption = page.findChild<QLabel*>(QStringLiteral("historyInfo"))->text();
  EXPECT_TRUE(caption.contains(QStringLiteral("7500 trials of 25 runs"))) << caption.toStdString();
}

}  // namespace
}  // namespace opevo::ui
