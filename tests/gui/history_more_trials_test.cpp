#include <gtest/gtest.h>

#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "backends/stored_run.h"
#include "common/error.h"
#include "engine/budget.h"
#include "gui_test_support.h"
#include "io/replay_dataset.h"
#include "store/run_lock.h"
#include "store/store.h"
#include "ui/controller/engine_controller.h"
#include "ui/controller/race_data.h"
#include "ui/controller/resumed_race.h"
#include "ui/main_window.h"
#include "ui/models/history_model.h"
#include "ui/pages/history_page.h"
#include "ui/pages/runs_page.h"
#include "ui/widgets/more_trials_dialog.h"

// History's More trials…: a finished run of a real SQLite store (a replay of the RTX 2080 Ti GEMM
// dataset) given a new total of trials in the window, as `opevo tune --resume N --trials M`
// gives one on the command line.
namespace opevo::ui {
namespace {

using test::waitUntil;

const std::string kDataset = OPEVO_DATASETS_DIR "/gemm/RTX_2080_Ti.json.gz";

// Races of the replay stored where `storePath` says, run to their budget by an engine of their
// own (as the Runs page's would): finished runs to give more trials.
std::vector<RunRecord> finishedRace(const std::string& storePath,
                                    const std::vector<std::string>& algorithms, int trials) {
  std::int64_t since = 0;
  for (const RunRecord& r : Store(storePath).runs()) since = std::max(since, r.id);
  RaceSpec spec;
  spec.backend = "replay";
  spec.dataset = std::make_shared<const ReplayDataset>(loadReplayDataset(kDataset));
  for (const std::string& a : algorithms) spec.algorithms.push_back({a, {}});
  spec.trials = trials;
  spec.seed = 7;
  spec.storePath = storePath;
  EngineController controller;
  EXPECT_TRUE(controller.start(std::move(spec)));
  EXPECT_TRUE(waitUntil([&] { return !controller.busy(); }, 60000));
  std::vector<RunRecord> runs;
  for (const RunRecord& r : Store(storePath).runs())
    if (r.id > since) runs.push_back(r);
  return runs;
}

int rowOf(HistoryPage& page, std::int64_t runId) {
  for (int r = 0; r < page.model()->rowCount(); ++r)
    if (page.model()->row(r).run.id == runId) return r;
  return -1;
}

// Reads the store again and selects these runs, as a user's clicks do.
bool selectRuns(HistoryPage& page, const std::vector<std::int64_t>& ids) {
  page.reload();
  if (!waitUntil([&] { return !page.busy() && rowOf(page, ids.back()) >= 0; }, 20000)) return false;
  page.view()->setCurrentIndex(page.model()->index(rowOf(page, ids.front()), 0));
  for (const std::int64_t id : ids)
    page.view()->selectionModel()->select(page.model()->index(rowOf(page, id), 0),
                                          QItemSelectionModel::Select | QItemSelectionModel::Rows);
  return page.moreTrialsButton()->isEnabled();
}

// Types into the dialog's total as a user does: what was there is replaced.
void typeTotal(MoreTrialsDialog* dialog, const QString& text) {
  auto* edit = dialog->totalBox()->findChild<QLineEdit*>();
  ASSERT_NE(edit, nullptr);
  edit->selectAll();
  QTest::keyClicks(dialog->totalBox(), text);
}

void expectWhole(const Store& store, std::int64_t runId, int total,
                 const std::vector<TrialRow>& before) {
  const auto run = store.run(runId);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->status, RunStatus::Finished);
  EXPECT_EQ(Budget::fromJson(run->budgetJson).trials, total) << run->budgetJson;
  const std::vector<TrialRow> trials = store.trials(runId);
  ASSERT_EQ(trials.size(), static_cast<std::size_t>(total)) << "run " << runId;
  std::set<std::string> configs;
  for (std::size_t i = 0; i < trials.size(); ++i) {
    EXPECT_EQ(trials[i].seq, static_cast<int>(i) + 1);
    EXPECT_TRUE(configs.insert(trials[i].config).second) << trials[i].config << " twice";
    // The trials it had are kept as they were; the new ones come after them.
    if (i < before.size()) {
      EXPECT_EQ(trials[i].config, before[i].config);
    }
  }
}

class HistoryMoreTrialsWindow : public ::testing::Test {
 protected:
  void SetUp() override {
    m_window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&m_window));
    m_window.pages()->setCurrentWidget(history());
  }
  void TearDown() override {
    runs()->stop();
    waitUntil([&] { return !runs()->controller()->busy(); }, 60000);
  }
  HistoryPage* history() { return m_window.historyPage(); }
  RunsPage* runs() { return m_window.runsPage(); }

  // More trials… on the selected runs, the total typed, Continue; true once the window's resume
  // of them has ended.
  bool giveMoreTrials(int total) {
    m_window.pages()->setCurrentWidget(history());
    MoreTrialsDialog* dialog = history()->moreTrialsForSelected();
    if (!dialog) return false;
    typeTotal(dialog, QString::number(total));
    EXPECT_TRUE(dialog->message().isEmpty()) << dialog->message().toStdString();
    if (!dialog->continueButton()->isEnabled()) return false;
    dialog->continueButton()->click();
    // The store takes the total off the GUI thread; then the Runs page resumes the runs.
    if (!waitUntil([&] { return runs()->controller()->busy(); }, 20000)) return false;
    EXPECT_EQ(m_window.pages()->currentWidget(), runs());
    return waitUntil([&] { return !runs()->controller()->busy(); }, 60000);
  }

  MainWindow m_window;
};

TEST_F(HistoryMoreTrialsWindow, AFinishedRunGoesOnToItsNewTotalInTheSameRun) {
  const std::vector<RunRecord> race = finishedRace(Store::defaultPath(), {"opevo"}, 6);
  ASSERT_EQ(race.size(), 1u);
  const std::int64_t id = race.front().id;
  const std::size_t runsBefore = Store(Store::defaultPath()).runs().size();
  const std::vector<TrialRow> before = Store(Store::defaultPath()).trials(id);
  ASSERT_EQ(before.size(), 6u);
  ASSERT_TRUE(selectRuns(*history(), {id}));
  // Finished: nothing to resume, more trials to give.
  EXPECT_FALSE(history()->resumeButton()->isEnabled());

  MoreTrialsDialog* dialog = history()->moreTrialsForSelected();
  ASSERT_NE(dialog, nullptr);
  EXPECT_EQ(dialog->spent(), 6);
  EXPECT_EQ(dialog->totalBox()->value(), 12);  // twice its trials, offered
  dialog->reject();

  ASSERT_TRUE(giveMoreTrials(15)) << runs()->message().toStdString();
  EXPECT_TRUE(runs()->message().isEmpty()) << runs()->message().toStdString();
  // It grew live in the window as a resumed run does: its stored six, then the nine new ones.
  EXPECT_EQ(runs()->data()->trials().size(), 15u);
  EXPECT_EQ(runs()->data()->curve(0, 0).run, id);
  EXPECT_TRUE(runs()->data()->curve(0, 0).finished);
  {
    const Store store(Store::defaultPath());
    EXPECT_EQ(store.runs().size(), runsBefore);  // the same run, no new one
    expectWhole(store, id, 15, before);
  }

  // Finished again, and can be given more again.
  const std::vector<TrialRow> fifteen = Store(Store::defaultPath()).trials(id);
  ASSERT_TRUE(selectRuns(*history(), {id}));
  EXPECT_FALSE(history()->resumeButton()->isEnabled());
  ASSERT_TRUE(giveMoreTrials(20)) << runs()->message().toStdString();
  expectWhole(Store(Store::defaultPath()), id, 20, fifteen);
}

// A whole finished race selected goes on together as that race, each run to the new total, as
// Resume takes a race's unfinished runs together.
TEST_F(HistoryMoreTrialsWindow, AFinishedRaceGoesOnTogetherEachRunToTheTotal) {
  const std::vector<RunRecord> race = finishedRace(Store::defaultPath(), {"random", "opevo"}, 5);
  ASSERT_EQ(race.size(), 2u);
  const Store store(Store::defaultPath());
  const std::vector<TrialRow> first = store.trials(race[0].id);
  const std::vector<TrialRow> second = store.trials(race[1].id);
  ASSERT_TRUE(selectRuns(*history(), {race[0].id, race[1].id}));
  ASSERT_TRUE(giveMoreTrials(11)) << runs()->message().toStdString();
  EXPECT_TRUE(runs()->message().isEmpty()) << runs()->message().toStdString();
  EXPECT_EQ(runs()->data()->trials().size(), 22u);
  expectWhole(store, race[0].id, 11, first);
  expectWhole(store, race[1].id, 11, second);
}

// While the window's engine runs a race the resume would be refused: so is the total, before the
// store is changed (a finished run stored running with its new total, and nothing to resume it).
TEST_F(HistoryMoreTrialsWindow, ARaceRunningInTheWindowRefusesTheTotalBeforeStoringIt) {
  const std::vector<RunRecord> race = finishedRace(Store::defaultPath(), {"random"}, 4);
  ASSERT_EQ(race.size(), 1u);
  const std::int64_t id = race.front().id;
  RaceSpec spec;
  spec.backend = "replay";
  spec.dataset = std::make_shared<const ReplayDataset>(loadReplayDataset(kDataset));
  spec.algorithms.push_back({"random", {}});
  spec.trials = 2000;
  spec.paceMs = 20;
  ASSERT_TRUE(runs()->controller()->start(std::move(spec)));
  ASSERT_TRUE(selectRuns(*history(), {id}));
  MoreTrialsDialog* dialog = history()->moreTrialsForSelected();
  ASSERT_NE(dialog, nullptr);
  typeTotal(dialog, QStringLiteral("9"));
  dialog->continueButton()->click();
  EXPECT_EQ(dialog->message(),
            QStringLiteral("A race is running on the Runs page: stop it or wait for its end, then "
                           "continue run %1.")
                .arg(id));
  EXPECT_TRUE(dialog->isVisible());
  EXPECT_EQ(dialog->totalBox()->value(), 9);
  EXPECT_FALSE(dialog->busy());
  const Store store(Store::defaultPath());
  EXPECT_EQ(store.run(id)->status, RunStatus::Finished);
  EXPECT_EQ(store.run(id)->budgetJson, race.front().budgetJson);
  dialog->reject();
}

// Above what it spent, but the resume refuses: the run is held by another program. The dialog
// waits for the engine's answer, stays with the total and says why; nothing was stored.
TEST_F(HistoryMoreTrialsWindow, ARefusalOfTheResumeIsSaidInTheDialogAndChangesNothing) {
  const std::vector<RunRecord> race = finishedRace(Store::defaultPath(), {"random"}, 6);
  ASSERT_EQ(race.size(), 1u);
  const std::int64_t id = race.front().id;
  ASSERT_TRUE(selectRuns(*history(), {id}));
  const std::vector<TrialRow> six = Store(Store::defaultPath()).trials(id);
  // Closed once the runs go on, and deleted.
  const QPointer<MoreTrialsDialog> dialog = history()->moreTrialsForSelected();
  ASSERT_NE(dialog, nullptr);
  typeTotal(dialog, QStringLiteral("10"));
  ASSERT_TRUE(dialog->continueButton()->isEnabled());
  {
    RunLock held(Store::defaultPath(), LockedKind::Run, id);
    dialog->continueButton()->click();
    EXPECT_TRUE(dialog->busy());
    ASSERT_TRUE(waitUntil([&] { return !dialog->busy(); }, 20000));
  }
  EXPECT_TRUE(dialog->isVisible());
  EXPECT_EQ(dialog->totalBox()->value(), 10);
  EXPECT_TRUE(dialog->continueButton()->isEnabled());
  EXPECT_TRUE(dialog->message().contains(QStringLiteral("being tuned")))
      << dialog->message().toStdString();
  EXPECT_TRUE(dialog->message().endsWith(QStringLiteral(". Nothing was changed.")))
      << dialog->message().toStdString();
  const Store store(Store::defaultPath());
  EXPECT_EQ(store.run(id)->status, RunStatus::Finished);
  EXPECT_EQ(store.run(id)->budgetJson, race.front().budgetJson);
  EXPECT_EQ(store.trials(id).size(), 6u);
  // Let go, the same total goes on from the same dialog.
  dialog->continueButton()->click();
  ASSERT_TRUE(waitUntil([&] { return !runs()->controller()->busy() && !dialog; }, 60000));
  EXPECT_TRUE(runs()->message().isEmpty()) << runs()->message().toStdString();
  expectWhole(store, id, 10, six);
}

// A total the run has spent reaching the Runs page (the store's check, not the dialog's) is
// refused there in the window's words, not the command line's.
TEST_F(HistoryMoreTrialsWindow, ASpentTotalIsRefusedOnTheRunsPageInItsWords) {
  const std::vector<RunRecord> race = finishedRace(Store::defaultPath(), {"random"}, 4);
  ASSERT_EQ(race.size(), 1u);
  const std::int64_t id = race.front().id;
  m_window.pages()->setCurrentWidget(runs());
  ASSERT_TRUE(runs()->resumeRun(
      goingOnTo(race, Budget{4, std::nullopt, std::nullopt, std::nullopt}).front()));
  ASSERT_TRUE(waitUntil([&] { return !runs()->controller()->busy(); }, 20000));
  EXPECT_EQ(runs()->message().toStdString(),
            QStringLiteral("Run %1 not resumed: run %1 has 4 trials already: the new total counts "
                           "them, so give more than 4")
                .arg(id)
                .toStdString())
      << runs()->note().toStdString();
  const Store store(Store::defaultPath());
  EXPECT_EQ(store.run(id)->status, RunStatus::Finished);
  EXPECT_EQ(store.run(id)->budgetJson, race.front().budgetJson);
}

class HistoryMoreTrialsPage : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(m_dir.isValid());
    m_path = m_dir.filePath(QStringLiteral("runs.db")).toStdString();
    m_page.setStorePath(QString::fromStdString(m_path));
  }
  QTemporaryDir m_dir;
  std::string m_path;
  HistoryPage m_page;
};

// A total the run has already spent is refused as it is typed, in the dialog, and what was typed
// stays; a total above it is handed on to the resume, the store left as it was.
TEST_F(HistoryMoreTrialsPage, ATotalTheRunHasSpentIsRefusedAndTheTypedTotalStays) {
  const std::vector<RunRecord> race = finishedRace(m_path, {"random"}, 6);
  ASSERT_EQ(race.size(), 1u);
  const std::int64_t id = race.front().id;
  std::vector<RunRecord> resumed;
  QObject::connect(&m_page, &HistoryPage::resumeRequested, &m_page,
                   [&](const RunRecord& run) { resumed.push_back(run); });
  ASSERT_TRUE(selectRuns(m_page, {id}));
  MoreTrialsDialog* dialog = m_page.moreTrialsForSelected();
  ASSERT_NE(dialog, nullptr);
  ASSERT_TRUE(dialog->isVisible());

  for (const QString& total : {QStringLiteral("6"), QStringLiteral("4")}) {
    typeTotal(dialog, total);
    EXPECT_EQ(dialog->totalBox()->text(), total);
    EXPECT_FALSE(dialog->continueButton()->isEnabled());
    EXPECT_EQ(dialog->message(),
              QStringLiteral("Run %1 has 6 trials already: the new total counts them, so give "
                             "more than 6.")
                  .arg(id));
    // Enter (the default button) neither closes the dialog nor loses the total.
    QTest::keyClick(dialog->totalBox(), Qt::Key_Return);
    dialog->extend();
    EXPECT_TRUE(dialog->isVisible());
    EXPECT_EQ(dialog->totalBox()->text(), total);
  }

  // Above what it spent: handed on with the total (no engine here to wait for), nothing stored
  // by the dialog: the resume stores it once it holds the run.
  typeTotal(dialog, QStringLiteral("10"));
  EXPECT_TRUE(dialog->message().isEmpty()) << dialog->message().toStdString();
  ASSERT_TRUE(dialog->continueButton()->isEnabled());
  dialog->continueButton()->click();
  EXPECT_FALSE(dialog->isVisible());
  ASSERT_EQ(resumed.size(), 1u);
  EXPECT_EQ(resumed.front().id, id);
  EXPECT_EQ(resumed.front().status, RunStatus::Finished);
  EXPECT_EQ(Budget::fromJson(resumed.front().budgetJson).trials, 10);
  EXPECT_EQ(newBudgetOf(resumed)->trials, 10);
  const Store store(m_path);
  EXPECT_EQ(store.run(id)->status, RunStatus::Finished);
  EXPECT_EQ(store.run(id)->budgetJson, race.front().budgetJson);
  EXPECT_EQ(store.trials(id).size(), 6u);
}

// Runs of two races are not one race: refused on the page, before any dialog.
TEST_F(HistoryMoreTrialsPage, RunsOfTwoRacesAreRefusedTogether) {
  const std::vector<RunRecord> one = finishedRace(m_path, {"random"}, 3);
  const std::vector<RunRecord> two = finishedRace(m_path, {"random"}, 3);
  ASSERT_EQ(one.size(), 1u);
  ASSERT_EQ(two.size(), 1u);
  QObject::connect(&m_page, &HistoryPage::resumeRaceRequested, &m_page,
                   [](const std::vector<RunRecord>&) {});
  ASSERT_TRUE(selectRuns(m_page, {one.front().id, two.front().id}));
  EXPECT_EQ(m_page.moreTrialsForSelected(), nullptr);
  const auto* error = m_page.findChild<QLabel*>(QStringLiteral("historyError"));
  ASSERT_NE(error, nullptr);
  EXPECT_TRUE(error->text().startsWith(
      QStringLiteral("The selected runs cannot be given more trials together: ")))
      << error->text().toStdString();
  EXPECT_EQ(m_page.findChild<MoreTrialsDialog*>(), nullptr);
}

// A race's runs take the total all or none, as the window's engine resumes them: one held
// elsewhere (a resume in progress) leaves every run as it was, not one stored running alone with
// a new budget. Given, each is held, checked against its own trials and stored with the total.
TEST_F(HistoryMoreTrialsPage, ARaceTakesTheTotalWholeOrNotAtAll) {
  const std::vector<RunRecord> race = finishedRace(m_path, {"random", "opevo"}, 4);
  ASSERT_EQ(race.size(), 2u);
  Store store(m_path);
  const std::vector<std::int64_t> ids{race[0].id, race[1].id};
  const Budget nine{9, std::nullopt, std::nullopt, std::nullopt};
  {
    RunLock held(m_path, LockedKind::Run, race[1].id);
    EXPECT_THROW(resumeStoredRace(store, ids, {}, nine, BudgetAskedBy::Window), InputError);
  }
  const auto unchanged = [&] {
    for (const RunRecord& r : race) {
      EXPECT_EQ(store.run(r.id)->status, RunStatus::Finished) << "run " << r.id;
      EXPECT_EQ(store.run(r.id)->endReason, r.endReason) << "run " << r.id;
      EXPECT_EQ(store.run(r.id)->budgetJson, r.budgetJson) << "run " << r.id;
    }
  };
  unchanged();
  // A finished race without a new total has nothing to go on to.
  EXPECT_THROW(resumeStoredRace(store, ids), InputError);
  unchanged();
  {
    const std::vector<ResumedRun> resumed =
        resumeStoredRace(store, ids, {}, nine, BudgetAskedBy::Window);
    ASSERT_EQ(resumed.size(), 2u);
    for (const ResumedRun& r : resumed) {
      EXPECT_EQ(r.plan.budget.trials, 9);
      EXPECT_EQ(r.rows.size(), 4u);
      EXPECT_EQ(Budget::fromJson(store.run(r.run.id)->budgetJson).trials, 9);
      EXPECT_EQ(store.run(r.run.id)->status, RunStatus::Running);
      // Held while they go on: another program is refused.
      EXPECT_THROW(RunLock(m_path, LockedKind::Run, r.run.id), InputError);
    }
  }
}

// A total a run has spent, refused by the store's check in the words of who asks: the window's
// total, or the command line's --trials (its text is the CLI's, CliExtendRun.*).
TEST_F(HistoryMoreTrialsPage, ASpentTotalIsRefusedInTheWordsOfWhoAsks) {
  const std::vector<RunRecord> race = finishedRace(m_path, {"random"}, 5);
  ASSERT_EQ(race.size(), 1u);
  const std::int64_t id = race.front().id;
  Store store(m_path);
  const Budget five{5, std::nullopt, std::nullopt, std::nullopt};
  const auto refusal = [&](BudgetAskedBy by) {
    try {
      resumeStoredRace(store, {id}, {}, five, by);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("not refused");
  };
  EXPECT_EQ(refusal(BudgetAskedBy::Window),
            "run " + std::to_string(id) +
                " has 5 trials already: the new total counts them, so give more than 5");
  EXPECT_EQ(refusal(BudgetAskedBy::CommandLine),
            "run " + std::to_string(id) +
                " has 5 trials already: --trials is its new total, give more than 5");
  EXPECT_EQ(store.run(id)->status, RunStatus::Finished);
  EXPECT_EQ(store.run(id)->budgetJson, race.front().budgetJson);
}

}  // namespace
}  // namespace opevo::ui
