// A loop order's vertices on the Spaces and Topology pages, as a reader of the OpEvo paper found
// them.
#include <gtest/gtest.h>

#include <QLabel>

#include "first_run_fixture.h"
#include "ui/pages/presets_panel.h"
#include "ui/pages/qwalk_panel.h"

namespace opevo::ui {
namespace {

using test::FirstRunTest;

// A loop order's vertices (2,0,1) never said which loop each index is.
TEST_F(FirstRunTest, ALoopOrdersIndicesAreNamedOnSpacesAndTopology) {
  open();
  PresetsPanel* panel = m_window->presetsPanel();
  ASSERT_TRUE(panel->selectPreset(QStringLiteral("C2")));
  ASSERT_TRUE(panel->templateBox()->select(SpaceTemplate::Joint));
  ASSERT_TRUE(m_window->qwalkPanel()->selectParameter(QStringLiteral("reduce_order")));
  const QString spaces = child<QLabel>("paramInfo")->text();
  EXPECT_TRUE(spaces.contains(
      QStringLiteral("0 = rc (input-channel blocks), 1 = ry (kernel rows), 2 = rx (kernel "
                     "columns)")))
      << spaces.toStdString();
  m_window->showTopology(QStringLiteral("C2"), QStringLiteral("tile_order"));
  const QString topology = child<QLabel>("topologyInfo")->text();
  EXPECT_TRUE(topology.contains(QStringLiteral("0 = f (output-channel tiles)")))
      << topology.toStdString();
  // MatMul's: rows and columns of C.
  ASSERT_TRUE(panel->selectPreset(QStringLiteral("MM1")));
  ASSERT_TRUE(m_window->qwalkPanel()->selectParameter(QStringLiteral("tile_order")));
  EXPECT_TRUE(child<QLabel>("paramInfo")->text().contains(QStringLiteral("0 = n (row tiles)")));
  // Not a loop order: nothing added; nor for a permutation typed as a spec.
  ASSERT_TRUE(m_window->qwalkPanel()->selectParameter(QStringLiteral("tile_n")));
  EXPECT_FALSE(child<QLabel>("paramInfo")->text().contains(QStringLiteral("outermost")));
  m_window->qwalkPanel()->setCustomSpec(QStringLiteral("perm:3"));
  EXPECT_FALSE(child<QLabel>("paramInfo")->text().contains(QStringLiteral("outermost")));
  ASSERT_TRUE(topologySettled());
}

}  // namespace
}  // namespace opevo::ui
