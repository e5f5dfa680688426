#include <gtest/gtest.h>

#include <QAction>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QRegularExpression>
#include <QSlider>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>

#include "gui_test_support.h"
#include "ui/charts/topology_view.h"
#include "ui/jobs/graph_layout.h"
#include "ui/jobs/qwalk_runner.h"
#include "ui/main_window.h"
#include "ui/pages/runs_page.h"
#include "ui/pages/topology_page.h"
#include "ui/widgets/algorithm_panel.h"
#include "ui/widgets/help_window.h"
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

}  // namespace
}  // namespace opevo::ui
