#include <gtest/gtest.h>
#include <signal.h>

#include <QFile>
#include <QItemSelectionModel>
#include <QPushButton>
#include <QTableView>
#include <QTemporaryDir>
#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <thread>

#include "common/child_process.h"
#include "gui_test_support.h"
#include "store/store.h"
#include "ui/controller/engine_controller.h"
#include "ui/main_window.h"
#include "ui/models/history_model.h"
#include "ui/pages/history_page.h"
#include "ui/pages/runs_page.h"
#include "ui/widgets/algorithm_panel.h"
#include "ui/widgets/dataset_picker.h"
#include "ui/widgets/race_setup_panel.h"

namespace opevo::ui {
namespace {

using test::waitUntil;

// The window killed with SIGKILL in the middle of a race (no chance to write anything more), then
// every unfinished run resumed from the History page of a new window on the same store: each run
// ends with exactly its budget, no configuration measured twice, and every trial committed
// before the kill still there unchanged. The killed window is a real opevo-studio process on the
// offscreen platform; the store is the user's (this test binary's XDG_DATA_HOME, which the child
// inherits).
class KillResumeTest : public ::testing::Test {
 protected:
  struct Committed {
    std::string config;
    double medianMs = 0;
  };
  using Snapshot = std::map<std::int64_t, std::map<int, Committed>>;  // run -> seq -> trial

  void TearDown() override {
    if (m_studio > 0) {
      kill(-m_studio, SIGKILL);  // the window's process group: its workers too
      waitChild(m_studio);
    }
    m_window.runsPage()->stop();
    waitUntil([&] { return !m_window.runsPage()->controller()->busy(); }, 60000);
  }

  // Runs of the store that a window race started after `since` (run ids above it).
  std::vector<RunRecord> racesRuns(std::int64_t since) {
    std::vector<RunRecord> out;
    for (const RunRecord& r : Store(Store::defaultPath()).runs())
      if (r.id > since) out.push_back(r);
    return out;
  }
  std::int64_t newestRunId() {
    std::int64_t id = 0;
    for (const RunRecord& r : Store(Store::defaultPath()).runs()) id = std::max(id, r.id);
    return id;
  }
  Snapshot snapshot(std::int64_t since) {
    Snapshot s;
    Store store(Store::defaultPath());
    for (const RunRecord& r : store.runs())
      if (r.id > since)
        for (const TrialRow& t : store.trials(r.id)) s[r.id][t.seq] = {t.config, t.medianMs};
    return s;
  }
  static std::size_t trialsIn(const Snapshot& s) {
    std::size_t n = 0;
    for (const auto& [run, trials] : s) n += trials.size();
    return n;
  }

  // Starts opevo-studio with these arguments, waits until at least `trials` trials of its race
  // are committed, and kills it with SIGKILL.
  void startAndKill(const QStringList& args, std::size_t trials, std::int64_t since) {
    std::vector<std::string> argv{OPEVO_STUDIO, "-platform", "offscreen", "--no-restore"};
    for (const QString& a : args) argv.push_back(a.toStdString());
    ChildStreams streams;
    streams.stdoutToNull = true;
    streams.stderrToNull = true;
    m_studio = startChild(argv, streams);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(3);
    while (trialsIn(snapshot(since)) < trials && std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      ASSERT_EQ(waitpid(m_studio, &status, WNOHANG), 0) << "opevo-studio ended before the kill";
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_GE(trialsIn(snapshot(since)), trials) << "the window's race did not get going";
    ASSERT_EQ(kill(m_studio, SIGKILL), 0);
    EXPECT_EQ(waitChild(m_studio), 128 + SIGKILL);
    kill(-m_studio, SIGKILL);  // a worker it left behind would only idle; not part of the test
    m_studio = -1;
  }

  int historyRowOf(std::int64_t runId) {
    HistoryPage* history = m_window.historyPage();
    for (int r = 0; r < history->model()->rowCount(); ++r)
      if (history->model()->row(r).run.id == runId) return r;
    return -1;
  }

  // Resumes every unfinished run of the race from History, one after the other, as a user would.
  void resumeAllFromHistory(std::int64_t since) {
    HistoryPage* history = m_window.historyPage();
    RunsPage* runs = m_window.runsPage();
    for (const RunRecord& r : racesRuns(since)) {
      if (r.status == RunStatus::Finished) continue;
      m_window.pages()->setCurrentWidget(history);
      history->reload();
      ASSERT_TRUE(waitUntil([&] { return !history->busy() && historyRowOf(r.id) >= 0; }, 20000));
      history->view()->setCurrentIndex(history->model()->index(historyRowOf(r.id), 0));
      // Stored running by the killed window, held by no process now: it reads interrupted.
      EXPECT_EQ(
          history->model()->index(historyRowOf(r.id), HistoryModel::StatusColumn).data().toString(),
          QStringLiteral("interrupted"))
          << "run " << r.id;
      ASSERT_TRUE(history->resumeButton()->isEnabled()) << "run " << r.id;
      history->resumeButton()->click();
      ASSERT_TRUE(runs->controller()->busy()) << runs->message().toStdString();
      ASSERT_TRUE(waitUntil([&] { return !runs->controller()->busy(); }, 240000));
      EXPECT_TRUE(runs->message().isEmpty()) << runs->message().toStdString();
    }
  }

  // Resumes every unfinished run of the race at once from History, as a user does after a kill:
  // the race's runs selected together, one Resume.
  void resumeRaceFromHistory(std::int64_t since) {
    HistoryPage* history = m_window.historyPage();
    RunsPage* runs = m_window.runsPage();
    m_window.pages()->setCurrentWidget(history);
    history->reload();
    const std::vector<RunRecord> race = racesRuns(since);
    ASSERT_TRUE(
        waitUntil([&] { return !history->busy() && historyRowOf(race.back().id) >= 0; }, 20000));
    QItemSelectionModel* selection = history->view()->selectionModel();
    selection->clearSelection();
    int unfinished = 0;
    for (const RunRecord& r : race) {
      if (r.status == RunStatus::Finished) continue;
      ++unfinished;
      selection->select(history->model()->index(historyRowOf(r.id), 0),
                        QItemSelectionModel::Select | QItemSelectionModel::Rows);
    }
    ASSERT_GT(unfinished, 1);
    ASSERT_TRUE(history->resumeButton()->isEnabled());
    history->resumeButton()->click();
    ASSERT_TRUE(runs->controller()->busy()) << runs->message().toStdString();
    EXPECT_EQ(m_window.pages()->currentWidget(), runs);
    ASSERT_TRUE(waitUntil([&] { return !runs->controller()->busy(); }, 240000));
    EXPECT_TRUE(runs->message().isEmpty()) << runs->message().toStdString();
  }

  // Every run of the race: finished, exactly `budget` trials numbered 1..budget, no
  // configuration twice, and the trials committed before the kill unchanged.
  void expectWholeAndUnchanged(std::int64_t since, std::size_t runs, int budget,
                               const Snapshot& beforeKill) {
    Store store(Store::defaultPath());
    const std::vector<RunRecord> race = racesRuns(since);
    ASSERT_EQ(race.size(), runs);
    std::size_t kept = 0;
    for (const RunRecord& r : race) {
      EXPECT_EQ(r.status, RunStatus::Finished) << "run " << r.id;
      const std::vector<TrialRow> trials = store.trials(r.id);
      ASSERT_EQ(trials.size(), static_cast<std::size_t>(budget)) << "run " << r.id;
      std::set<std::string> configs;
      for (std::size_t i = 0; i < trials.size(); ++i) {
        EXPECT_EQ(trials[i].seq, static_cast<int>(i + 1)) << "run " << r.id;
        EXPECT_TRUE(configs.insert(trials[i].config).second)
            << "run " << r.id << " measured " << trials[i].config << " twice";
      }
      const auto old = beforeKill.find(r.id);
      if (old == beforeKill.end()) continue;
      for (const auto& [seq, c] : old->second) {
        ASSERT_LE(seq, budget);
        EXPECT_EQ(trials[static_cast<std::size_t>(seq - 1)].config, c.config);
        EXPECT_EQ(trials[static_cast<std::size_t>(seq - 1)].medianMs, c.medianMs);
        ++kept;
      }
    }
    const std::size_t before = trialsIn(beforeKill);
    EXPECT_EQ(kept, before);
    std::printf(
        "[ kill     ] %zu trials committed before SIGKILL, all kept; %zu runs resumed to "
        "%d trials each\n",
        before, runs, budget);
  }

  MainWindow m_window;
  pid_t m_studio = -1;
};

TEST_F(KillResumeTest, AReplayRaceKilledMidwayResumesFromHistoryLosingNothing) {
  const std::int64_t since = newestRunId();
  const int budget = 150;
  startAndKill(
      {QStringLiteral("--page"), QStringLiteral("runs"), QStringLiteral("--backend"),
       QStringLiteral("replay"), QStringLiteral("--dataset"),
       QStringLiteral(OPEVO_DATASETS_DIR "/gemm/RTX_2080_Ti.json.gz"), QStringLiteral("--algos"),
       QStringLiteral("opevo,random"), QStringLiteral("--repeats"), QStringLiteral("2"),
       QStringLiteral("--trials"), QString::number(budget), QStringLiteral("--pace"),
       QStringLiteral("10"), QStringLiteral("--start")},
      120, since);
  const Snapshot beforeKill = snapshot(since);
  ASSERT_EQ(racesRuns(since).size(), 4u);
  ASSERT_LT(trialsIn(beforeKill), 4u * budget) << "the race ended before the kill";
  resumeRaceFromHistory(since);
  expectWholeAndUnchanged(since, 4, budget, beforeKill);
}

TEST_F(KillResumeTest, ACpuRaceKilledMidwayResumesFromHistoryLosingNothing) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  // Small enough that a trial (compile, verify against OpenBLAS, time) takes about a second.
  const QString op = dir.filePath(QStringLiteral("mm96.json"));
  QFile file(op);
  ASSERT_TRUE(file.open(QIODevice::WriteOnly));
  file.write(R"({"name": "mm96", "kind": "matmul", "shape": {"n": 96, "m": 128, "k": 64}})");
  file.close();
  const std::int64_t since = newestRunId();
  const int budget = 8;
  startAndKill(
      {QStringLiteral("--page"), QStringLiteral("runs"), QStringLiteral("--backend"),
       QStringLiteral("cpu"), QStringLiteral("--race-operator"), op, QStringLiteral("--algos"),
       QStringLiteral("opevo,random"), QStringLiteral("--repeats"), QStringLiteral("1"),
       QStringLiteral("--trials"), QString::number(budget), QStringLiteral("--start")},
      3, since);
  const Snapshot beforeKill = snapshot(since);
  ASSERT_EQ(racesRuns(since).size(), 2u);
  ASSERT_LT(trialsIn(beforeKill), 2u * budget) << "the race ended before the kill";
  resumeAllFromHistory(since);
  expectWholeAndUnchanged(since, 2, budget, beforeKill);
}

// The user's data folder cannot be written (here: a path under /proc, which not even root can
// create): the window opens, and Start refuses a race it could not record, naming the folder at
// fault, before any trial (a whole race once ran and was lost at its end).
TEST(DataFolderTest, StartRefusesARaceWhenTheDataFolderCannotBeWrittenAndNamesIt) {
  const QByteArray saved = qgetenv("XDG_DATA_HOME");
  qputenv("XDG_DATA_HOME", "/proc/opevo-unwritable");
  {
    MainWindow window;
    window.show();
    RunsPage* runs = window.runsPage();
    window.pages()->setCurrentWidget(runs);
    runs->setup()->datasetPicker()->load(
        QStringLiteral(OPEVO_DATASETS_DIR "/gemm/RTX_2080_Ti.json.gz"));
    // Generous: under ThreadSanitizer the window's first jobs (layouts, q-walk, history) share
    // the thread pool with this one and the dataset took over 10 s to arrive.
    ASSERT_TRUE(
        waitUntil([&] { return runs->setup()->datasetPicker()->dataset() != nullptr; }, 60000));
    ASSERT_TRUE(waitUntil([&] { return !runs->checkingStore(); }, 60000));
    runs->setup()->algorithmPanel()->setChecked({QStringLiteral("opevo")});
    runs->setup()->setRepeats(1);
    runs->setup()->setTrials(20);
    EXPECT_FALSE(runs->start());
    EXPECT_FALSE(runs->controller()->busy());
    EXPECT_TRUE(runs->data()->trials().empty());
    EXPECT_TRUE(runs->message().contains(QStringLiteral("/proc/opevo-unwritable")))
        << runs->message().toStdString();
  }
  qputenv("XDG_DATA_HOME", saved);
}

}  // namespace
}  // namespace opevo::ui
