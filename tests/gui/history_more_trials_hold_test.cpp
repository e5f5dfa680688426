// History's More trials… holds the run from the moment its new total is stored to the run's end:
// no other program can take it in between. A real SQLite store and a paced replay of the RTX
// 2080 Ti GEMM dataset, resumed by the window's engine.
#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "engine/budget.h"
#include "gui_test_support.h"
#include "io/replay_dataset.h"
#include "store/run_lock.h"
#include "store/store.h"
#include "ui/controller/engine_controller.h"
#include "ui/controller/race_data.h"
#include "ui/main_window.h"
#include "ui/models/history_model.h"
#include "ui/pages/history_page.h"
#include "ui/pages/runs_page.h"
#include "ui/widgets/more_trials_dialog.h"

namespace opevo::ui {
namespace {

using test::waitUntil;

const std::string kDataset = OPEVO_DATASETS_DIR "/gemm/RTX_2080_Ti.json.gz";

// One finished run of the replay, paced (its resume is then paced too: the pace is stored).
std::int64_t finishedPacedRun(const std::string& storePath, int trials) {
  RaceSpec spec;
  spec.backend = "replay";
  spec.dataset = std::make_shared<const ReplayDataset>(loadReplayDataset(kDataset));
  spec.algorithms.push_back({"random", {}});
  spec.trials = trials;
  spec.seed = 11;
  spec.paceMs = 10;
  spec.storePath = storePath;
  EngineController controller;
  EXPECT_TRUE(controller.start(std::move(spec)));
  EXPECT_TRUE(waitUntil([&] { return !controller.busy(); }, 60000));
  std::int64_t id = 0;
  for (const RunRecord& r : Store(storePath).runs()) id = std::max(id, r.id);
  return id;
}

int rowOf(HistoryPage& page, std::int64_t runId) {
  for (int r = 0; r < page.model()->rowCount(); ++r)
    if (page.model()->row(r).run.id == runId) return r;
  return -1;
}

// The run as the store has it now: stored running with the new total (what another program would
// take for an interrupted run, were it not held).
bool storedGoingOnTo(const std::string& path, std::int64_t id, int total) {
  const auto run = Store(path, Store::Opening::ExistingOnly).run(id);
  return run && run->status == RunStatus::Running &&
         Budget::fromJson(run->budgetJson).trials == total;
}

class HistoryMoreTrialsHold : public ::testing::Test {
 protected:
  void SetUp() override {
    m_window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&m_window));
  }
  void TearDown() override {
    m_window.runsPage()->stop();
    waitUntil([&] { return !m_window.runsPage()->controller()->busy(); }, 60000);
  }
  MainWindow m_window;
};

// From Continue to the engine's first new trial, whenever the store says the run goes on to its
// new total, the run is held: another program's lock on it is refused. (The total was once stored
// and its locks let go, to be taken again by the window's resume a moment later.)
TEST_F(HistoryMoreTrialsHold, TheRunIsHeldFromItsNewTotalToItsFirstTrial) {
  const std::string path = Store::defaultPath();
  const std::int64_t id = finishedPacedRun(path, 4);
  ASSERT_GT(id, 0);
  HistoryPage* history = m_window.historyPage();
  m_window.pages()->setCurrentWidget(history);
  history->reload();
  ASSERT_TRUE(waitUntil([&] { return !history->busy() && rowOf(*history, id) >= 0; }, 20000));
  history->view()->setCurrentIndex(history->model()->index(rowOf(*history, id), 0));
  ASSERT_TRUE(history->moreTrialsButton()->isEnabled());
  MoreTrialsDialog* dialog = history->moreTrialsForSelected();
  ASSERT_NE(dialog, nullptr);
  auto* edit = dialog->totalBox()->findChild<QLineEdit*>();
  ASSERT_NE(edit, nullptr);
  edit->selectAll();
  QTest::keyClicks(dialog->totalBox(), QStringLiteral("40"));
  ASSERT_TRUE(dialog->continueButton()->isEnabled()) << dialog->message().toStdString();
  dialog->continueButton()->click();

  // Events run between two looks, with no pause: a gap of a few hundred microseconds is seen.
  int unheld = 0;
  int heldSeen = 0;
  bool triedToTake = false;
  QElapsedTimer clock;
  clock.start();
  const auto newTrial = [&] { return m_window.runsPage()->data()->trials().size() > 4u; };
  while (!newTrial() && clock.elapsed() < 30000) {
    QCoreApplication::processEvents();
    if (!storedGoingOnTo(path, id, 40)) continue;
    if (RunLock::isHeld(path, LockedKind::Run, id) == true) {
      ++heldSeen;
      if (!triedToTake) {
        // As another program resuming it would: refused.
        triedToTake = true;
        EXPECT_THROW(RunLock(path, LockedKind::Run, id), InputError);
      }
      continue;
    }
    // Not held: a fault only while the store still says it goes on (its end is stored before
    // its lock goes).
    if (storedGoingOnTo(path, id, 40)) ++unheld;
  }
  EXPECT_EQ(unheld, 0) << "run " << id << " stored going on to 40 trials, held by no one";
  EXPECT_TRUE(newTrial()) << m_window.runsPage()->message().toStdString();
  EXPECT_GT(heldSeen, 0);
  EXPECT_TRUE(triedToTake);
  ASSERT_TRUE(waitUntil([&] { return !m_window.runsPage()->controller()->busy(); }, 60000));
  EXPECT_TRUE(m_window.runsPage()->message().isEmpty())
      << m_window.runsPage()->message().toStdString();
  const Store store(path);
  EXPECT_EQ(store.run(id)->status, RunStatus::Finished);
  EXPECT_EQ(store.trials(id).size(), 40u);
}

}  // namespace
}  // namespace opevo::ui
