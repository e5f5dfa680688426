// What the Topology page and the status bar show as the user goes from page to page.
#include <gtest/gtest.h>

#include <QLabel>
#include <QLineEdit>
#include <QTabWidget>

#include "first_run_fixture.h"
#include "ui/pages/networks_page.h"
#include "ui/pages/presets_panel.h"
#include "ui/pages/qwalk_panel.h"
#include "ui/pages/runs_page.h"

namespace opevo::ui {
namespace {

using test::FirstRunTest;

// Topology did not follow Spaces: C2's reduce_order chosen there, Topology showed MM1's tile_n.
TEST_F(FirstRunTest, TopologyShowsWhatWasChosenOnSpaces) {
  open();
  PresetsPanel* panel = m_window->presetsPanel();
  ASSERT_TRUE(panel->selectPreset(QStringLiteral("C2")));
  ASSERT_TRUE(panel->templateBox()->select(SpaceTemplate::Joint));
  ASSERT_TRUE(m_window->qwalkPanel()->selectParameter(QStringLiteral("reduce_order")));
  QTest::keyClick(m_window.get(), Qt::Key_2, Qt::ControlModifier);
  ASSERT_EQ(m_window->pages()->currentWidget(), m_window->topologyPage());
  EXPECT_EQ(topologyOperator(), "C2");
  EXPECT_EQ(m_window->topologyPage()->templateBox()->current(), SpaceTemplate::Joint);
  EXPECT_EQ(topologyParameter(), "reduce_order");
  ASSERT_TRUE(topologySettled());

  // A choice made on Topology stays while Spaces changes nothing...
  ASSERT_TRUE(m_window->topologyPage()->selectOperator(QStringLiteral("MM2")));
  QTest::keyClick(m_window.get(), Qt::Key_1, Qt::ControlModifier);
  QTest::keyClick(m_window.get(), Qt::Key_2, Qt::ControlModifier);
  EXPECT_EQ(topologyOperator(), "MM2");
  // ... and a spec typed on Spaces is the one Topology draws next.
  QTest::keyClick(m_window.get(), Qt::Key_1, Qt::ControlModifier);
  m_window->qwalkPanel()->setCustomSpec(QStringLiteral("perm:4"));
  QTest::keyClick(m_window.get(), Qt::Key_2, Qt::ControlModifier);
  EXPECT_EQ(child<QLineEdit>("topologySpec")->text().toStdString(), "perm:4");
  EXPECT_EQ(topologyOperator(), "Custom spec…");
  ASSERT_TRUE(topologySettled());
}

// The status bar showed the Runs page's dataset on every page, Networks included while a
// network was tuned on the CPU.
TEST_F(FirstRunTest, TheRunsPagesDatasetShowsOnlyWhereItApplies) {
  open();
  QLabel* dataset = m_window->runsPage()->datasetStatus();
  const auto shownOn = [&](QWidget* page) {
    m_window->pages()->setCurrentWidget(page);
    return dataset->isVisible();
  };
  EXPECT_TRUE(shownOn(m_window->runsPage()));
  EXPECT_TRUE(shownOn(m_window->historyPage()));
  EXPECT_FALSE(shownOn(m_window->networksPage()));
  EXPECT_FALSE(shownOn(m_window->topologyPage()));
  m_window->pages()->setCurrentIndex(MainWindow::SpacesPage);
  EXPECT_FALSE(dataset->isVisible());
}

}  // namespace
}  // namespace opevo::ui
