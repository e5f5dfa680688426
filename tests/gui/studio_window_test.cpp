#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <QAction>
#include <QCheckBox>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QRegularExpression>
#include <QSettings>
#include <QSlider>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <algorithm>
#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "common/child_process.h"
#include "gui_test_support.h"
#include "store/store.h"
#include "ui/charts/topology_view.h"
#include "ui/jobs/graph_layout.h"
#include "ui/jobs/qwalk_runner.h"
#include "ui/main_window.h"
#include "ui/pages/networks_page.h"
#include "ui/pages/runs_page.h"
#include "ui/pages/topology_page.h"
#include "ui/widgets/algorithm_panel.h"
#include "ui/widgets/help_window.h"
#include "ui/widgets/network_setup_panel.h"
#include "ui/widgets/race_setup_panel.h"

namespace opevo::ui {
namespace {

using test::waitUntil;

class StudioWindowTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&m_window));
    QApplication::setActiveWindow(&m_window);
    ASSERT_TRUE(QTest::qWaitForWindowActive(&m_window));
  }
  template <typename T>
  T* child(const char* name) {
    return m_window.findChild<T*>(QString::fromLatin1(name));
  }
  void clickRow(const char* table, int row, bool twice = false) {
    auto* view = child<QTableView>(table);
    const QPoint at = view->visualRect(view->model()->index(row, 0)).center();
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, at);
    if (twice) QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, at);
  }

  MainWindow m_window;
};

TEST_F(StudioWindowTest, ChoosingMM1AndAParameterOpensItsTopologyAndQMovesTheDistribution) {
  clickRow("presetTable", 0);           // MM1
  clickRow("parameterTable", 2, true);  // double-click tile_k
  ASSERT_EQ(m_window.pages()->currentWidget(), m_window.topologyPage());
  TopologyPage* page = m_window.topologyPage();
  ASSERT_TRUE(waitUntil([&] { return !page->busy() && page->showingGraph(); }, 60000));
  EXPECT_EQ(page->view()->graphLayout()->graph.size(), 66u);
  const std::vector<double> before = page->view()->probabilities();
  // Keyboard on the slider: five steps of 0.01 up.
  QSlider* slider = page->qSlider();
  slider->setFocus();
  for (int i = 0; i < 5; ++i) QTest::keyClick(slider, Qt::Key_Right);
  EXPECT_EQ(child<QLineEdit>("topologyQ")->text(), "0.55");
  ASSERT_TRUE(waitUntil([&] { return !page->busy(); }, 60000));
  EXPECT_NE(page->view()->probabilities(), before);
  EXPECT_NEAR(page->result()->request.q, 0.55, 1e-12);
}

TEST_F(StudioWindowTest, ShortcutsStartARaceAndSwitchPages) {
  QTest::keyClick(&m_window, Qt::Key_2, Qt::ControlModifier);
  EXPECT_EQ(m_window.pages()->currentWidget(), m_window.topologyPage());
  QTest::keyClick(&m_window, Qt::Key_R, Qt::ControlModifier);  // Run > Start race
  EXPECT_EQ(m_window.pages()->currentWidget(), m_window.runsPage());
  EXPECT_TRUE(m_window.runsPage()->message().contains("dataset"));
  EXPECT_EQ(m_window.runsPage()->startAction()->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_R));
  EXPECT_EQ(m_window.runsPage()->stopAction()->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_Period));
}

TEST_F(StudioWindowTest, F1OpensTheUserGuide) {
  EXPECT_EQ(m_window.helpWindow(), nullptr);
  QTest::keyClick(&m_window, Qt::Key_F1);
  ASSERT_NE(m_window.helpWindow(), nullptr);
  EXPECT_TRUE(m_window.helpWindow()->isVisible());
  EXPECT_EQ(m_window.helpWindow()->currentPage(), QStringLiteral("README.md"));
  // Again: the same window, not a second one.
  HelpWindow* first = m_window.helpWindow();
  m_window.helpWindow()->close();
  QApplication::setActiveWindow(&m_window);
  QTest::keyClick(&m_window, Qt::Key_F1);
  EXPECT_EQ(m_window.helpWindow(), first);
  EXPECT_TRUE(first->isVisible());
  first->close();
}

TEST_F(StudioWindowTest, AboutNamesQtXGBoostAndTheGpuRuntimes) {
  ASSERT_TRUE(waitUntil([&] { return !m_window.runtimesText().isEmpty(); }, 60000));
  const QString text = m_window.aboutText();
  EXPECT_TRUE(text.contains(QString::fromLatin1(qVersion())));
  EXPECT_TRUE(
      text.contains(QRegularExpression(QStringLiteral("XGBoost</td><td>\\d+\\.\\d+\\.\\d+"))))
      << text.toStdString();
  // One row per backend, each with what the probe found, under the best one.
  for (const char* runtime : {"cuda", "hip", "cpu"})
    EXPECT_TRUE(text.contains(QStringLiteral("<td>&nbsp;&nbsp;%1</td><td>").arg(runtime)))
        << runtime << ": " << text.toStdString();
  EXPECT_TRUE(text.contains(QStringLiteral("<td>Best backend</td><td>")));
  EXPECT_TRUE(m_window.runtimesText().contains("cpu: ")) << m_window.runtimesText().toStdString();
  m_window.showAbout();
  auto* box = m_window.findChild<QMessageBox*>(QStringLiteral("aboutBox"));
  ASSERT_NE(box, nullptr);
  EXPECT_TRUE(box->isVisible());
  box->close();
}

TEST_F(StudioWindowTest, TheRaceFormAndLayoutSurviveARestart) {
  RaceSetupPanel* setup = m_window.runsPage()->setup();
  setup->setRepeats(7);
  setup->setTrials(123);
  setup->algorithmPanel()->setChecked({QStringLiteral("random"), QStringLiteral("ansor")});
  m_window.pages()->setCurrentWidget(m_window.runsPage());
  m_window.saveSettings();

  MainWindow again;
  again.restoreSettings();
  EXPECT_EQ(again.findChild<QSpinBox*>(QStringLiteral("repeatsSpin"))->value(), 7);
  EXPECT_EQ(again.findChild<QSpinBox*>(QStringLiteral("trialsSpin"))->value(), 123);
  EXPECT_EQ(again.runsPage()->setup()->algorithmPanel()->checkedNames(),
            (QStringList{QStringLiteral("random"), QStringLiteral("ansor")}));
  EXPECT_EQ(again.pages()->currentWidget(), again.runsPage());
}

// The Networks page's form too (README: the window keeps its race form between sessions): its
// trials were back at 60 after a restart.
TEST_F(StudioWindowTest, TheNetworkFormSurvivesARestart) {
  NetworkSetupPanel* setup = m_window.networksPage()->setup();
  setup->setTrials(32);
  ASSERT_TRUE(setup->setSchedulers({QStringLiteral("round-robin")}));
  m_window.saveSettings();

  MainWindow again;
  again.restoreSettings();
  EXPECT_EQ(again.networksPage()->setup()->trialsBox()->value(), 32);
  EXPECT_TRUE(again.networksPage()->setup()->roundRobinBox()->isChecked());
  EXPECT_FALSE(again.networksPage()->setup()->gradientBox()->isChecked());
}

// opevo-studio itself, started as a user starts it: its command line applied over the form a
// previous session saved (its own config folder, so the saved form is the test's), racing into
// its own database.
class StudioProcessTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(m_home.isValid()); }
  void TearDown() override {
    if (m_studio > 0) {
      kill(-m_studio, SIGKILL);  // its process group: any worker too
      waitChild(m_studio);
    }
  }
  QString db() const { return m_home.filePath(QStringLiteral("a.db")); }
  // The form a session left, in the studio's own settings file (organization "opevo").
  QSettings savedForm() {
    return QSettings(m_home.filePath(QStringLiteral("config/opevo/OpEvo Studio.conf")),
                     QSettings::IniFormat);
  }
  void start(const QStringList& args) {
    std::vector<std::string> argv{OPEVO_STUDIO, "-platform", "offscreen", "--db",
                                  db().toStdString()};
    for (const QString& a : args) argv.push_back(a.toStdString());
    const QByteArray config = qgetenv("XDG_CONFIG_HOME");
    qputenv("XDG_CONFIG_HOME", m_home.filePath(QStringLiteral("config")).toLocal8Bit());
    ChildStreams streams;
    streams.stdoutToNull = true;
    streams.stderrToNull = true;
    m_studio = startChild(argv, streams);
    qputenv("XDG_CONFIG_HOME", config);
  }
  std::vector<RunRecord> runs() {
    if (!QFileInfo::exists(db())) return {};
    return Store(db().toStdString()).runs();
  }
  std::size_t trialCount() {
    std::size_t n = 0;
    if (!QFileInfo::exists(db())) return n;
    Store store(db().toStdString());
    for (const RunRecord& r : store.runs()) n += store.trials(r.id).size();
    return n;
  }
  // Waits (for at most a minute) until pred holds, failing if the studio ends meanwhile.
  bool waitFor(const std::function<bool()>& pred) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    while (!pred()) {
      int status = 0;
      if (waitpid(m_studio, &status, WNOHANG) != 0) {
        ADD_FAILURE() << "opevo-studio ended early";
        m_studio = -1;
        return false;
      }
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return true;
  }

  QTemporaryDir m_home;
  pid_t m_studio = -1;
};

// The user's report: a saved CPU form with "Time 5 s" ticked turned --dataset ... --trials 20
// --start into a real CPU race of MM1 that ended after 13 trials.
TEST_F(StudioProcessTest, CommandLineRaceOptionsReplaceTheSavedForm) {
  {
    QSettings saved = savedForm();
    saved.setValue(QStringLiteral("race/backend"), QStringLiteral("cpu"));
    saved.setValue(QStringLiteral("race/useSeconds"), true);
    saved.setValue(QStringLiteral("race/seconds"), 0.2);
    saved.setValue(QStringLiteral("race/useTrials"), false);
    saved.setValue(QStringLiteral("race/repeats"), 4);
  }
  start({QStringLiteral("--page"), QStringLiteral("runs"), QStringLiteral("--dataset"),
         QStringLiteral(OPEVO_DATASETS_DIR "/convolution_milo/A4000.json.gz"),
         QStringLiteral("--algos"), QStringLiteral("opevo-m,random"), QStringLiteral("--repeats"),
         QStringLiteral("1"), QStringLiteral("--trials"), QStringLiteral("20"),
         QStringLiteral("--pace"), QStringLiteral("20"), QStringLiteral("--start")});
  ASSERT_TRUE(waitFor([&] {
    const std::vector<RunRecord> r = runs();
    return r.size() == 2 && std::all_of(r.begin(), r.end(), [](const RunRecord& run) {
             return run.status != RunStatus::Running;
           });
  }));
  Store store(db().toStdString());
  for (const RunRecord& run : store.runs()) {
    EXPECT_EQ(run.backend, "replay") << run.algorithm;
    EXPECT_NE(run.operatorJson.find("A4000.json.gz"), std::string::npos) << run.operatorJson;
    const QJsonObject budget =
        QJsonDocument::fromJson(QByteArray::fromStdString(run.budgetJson)).object();
    EXPECT_EQ(budget.value(QStringLiteral("trials")).toInt(), 20) << run.budgetJson;
    EXPECT_FALSE(budget.contains(QStringLiteral("seconds"))) << run.budgetJson;
    EXPECT_EQ(store.trials(run.id).size(), 20u) << run.algorithm;
  }
}

// SIGTERM (a logout, systemd, kill) ends the window as Quit does: the race stops and its runs
// are stored as stopped, not left 'running' by a process that is gone.
TEST_F(StudioProcessTest, SigtermStopsTheRaceAndStoresItsRunsBeforeExiting) {
  start({QStringLiteral("--no-restore"), QStringLiteral("--dataset"),
         QStringLiteral(OPEVO_DATASETS_DIR "/gemm/RTX_2080_Ti.json.gz"), QStringLiteral("--algos"),
         QStringLiteral("opevo,random"), QStringLiteral("--repeats"), QStringLiteral("2"),
         QStringLiteral("--trials"), QStringLiteral("5000"), QStringLiteral("--pace"),
         QStringLiteral("10"), QStringLiteral("--start")});
  ASSERT_TRUE(waitFor([&] { return trialCount() >= 20; }));
  ASSERT_EQ(kill(m_studio, SIGTERM), 0);
  bool timedOut = false;
  EXPECT_EQ(waitChild(m_studio, 30, &timedOut), 0);
  EXPECT_FALSE(timedOut);
  m_studio = -1;
  const std::vector<RunRecord> stored = runs();
  ASSERT_EQ(stored.size(), 4u);
  for (const RunRecord& run : stored)
    EXPECT_NE(run.status, RunStatus::Running) << "run " << run.id << " left running";
}

// --no-restore is a one-off session: it leaves the saved form as it found it (another
// database's session once brought its repeats 10 and trials 300 back into the next one).
TEST_F(StudioProcessTest, NoRestoreLeavesTheSavedFormAlone) {
  {
    QSettings saved = savedForm();
    saved.setValue(QStringLiteral("race/repeats"), 4);
  }
  start({QStringLiteral("--no-restore"), QStringLiteral("--repeats"), QStringLiteral("9"),
         QStringLiteral("--page"), QStringLiteral("runs")});
  ASSERT_TRUE(waitFor([&] { return QFileInfo::exists(db()); }));  // the window is up
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ASSERT_EQ(kill(m_studio, SIGTERM), 0);
  bool timedOut = false;
  EXPECT_EQ(waitChild(m_studio, 30, &timedOut), 0);
  m_studio = -1;
  QSettings saved = savedForm();
  EXPECT_EQ(saved.value(QStringLiteral("race/repeats")).toInt(), 4);
  EXPECT_FALSE(saved.contains(QStringLiteral("window/geometry")));
}

}  // namespace
}  // namespace opevo::ui
