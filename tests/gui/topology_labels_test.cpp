// The Topology page's labels and key, as a reader of the OpEvo paper found them at 1024x700.
#include <gtest/gtest.h>

#include <QFontMetrics>
#include <algorithm>
#include <vector>

#include "first_run_fixture.h"
#include "ui/charts/probability_legend.h"
#include "ui/charts/topology_view.h"
#include "ui/jobs/graph_layout.h"
#include "ui/jobs/qwalk_runner.h"

namespace opevo::ui {
namespace {

using test::FirstRunTest;
using test::waitUntil;

// MM1's tile_n at 1024x700: the outlined start vertex 512,1,1,1 and its likeliest neighbours had
// no label (their discs blocked the one place a label was tried, below), while vertices of 1e-7
// far away were labelled.
TEST_F(FirstRunTest, TheStartVertexAndTheLikeliestAreLabelledFirst) {
  open();
  m_window->pages()->setCurrentWidget(m_window->topologyPage());
  TopologyPage* page = m_window->topologyPage();
  ASSERT_TRUE(page->selectOperator(QStringLiteral("MM1")));
  ASSERT_TRUE(page->selectParameter(QStringLiteral("tile_n")));
  page->setStartText(QStringLiteral("512,1,1,1"));
  ASSERT_TRUE(topologySettled());
  ASSERT_TRUE(page->showingGraph());
  QCoreApplication::processEvents();
  TopologyView* view = page->view();
  const GraphLayout& layout = *view->graphLayout();
  ASSERT_EQ(layout.graph.size(), 220u);
  const std::size_t start = view->startIndex();
  EXPECT_EQ(layout.graph.vertices[start], page->result()->request.start);
  const std::vector<std::size_t> labelled = view->labelledVertices();
  ASSERT_FALSE(labelled.empty());
  EXPECT_EQ(labelled.front(), start);
  // Of the four likeliest vertices (the start and its three neighbours at 0.11 each), at least
  // three are named.
  std::vector<std::size_t> order(layout.graph.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const std::vector<double>& p = view->probabilities();
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] > p[b]; });
  int named = 0;
  for (int i = 0; i < 4; ++i)
    named += std::count(labelled.begin(), labelled.end(), order[static_cast<std::size_t>(i)]) > 0;
  EXPECT_GE(named, 3);
  // No two labels overlap, and none covers another vertex's disc centre.
  const auto boxes = view->placedLabels();
  for (std::size_t a = 0; a < boxes.size(); ++a)
    for (std::size_t b = a + 1; b < boxes.size(); ++b)
      EXPECT_FALSE(boxes[a].second.intersects(boxes[b].second));
}

// Zoomed out until no label has room, the start vertex is still named.
TEST_F(FirstRunTest, TheStartVertexIsNamedEvenWhereNoOtherLabelFits) {
  open();
  m_window->pages()->setCurrentWidget(m_window->topologyPage());
  TopologyPage* page = m_window->topologyPage();
  page->setCustomSpec(QStringLiteral("factor:64:3"));
  ASSERT_TRUE(topologySettled());
  ASSERT_TRUE(page->showingGraph());
  TopologyView* view = page->view();
  view->zoomAt(QPointF(view->viewport()->rect().center()), 0.2);
  EXPECT_EQ(view->labelledVertices(), std::vector<std::size_t>{view->startIndex()});
}

// "Area ∝ probability" showed three circles with no values.
TEST_F(FirstRunTest, TheLegendsDiscsSayWhatProbabilityTheyStandFor) {
  ProbabilityLegend legend;
  EXPECT_EQ(legend.sizeValues(), (QStringList{"max", "max/4", "max/25"}));
  legend.setScale(0.527, 6);
  EXPECT_EQ(legend.sizeValues(), (QStringList{"0.527", "0.132", "0.0211"}));
  // Drawn in the legend's width, each under its disc.
  legend.resize(legend.sizeHint());
  const QFontMetrics fm = legend.fontMetrics();
  int widest = 0;
  for (const QString& v : legend.sizeValues()) widest = std::max(widest, fm.horizontalAdvance(v));
  EXPECT_LE(3 * (widest + 8) + 8, legend.width());
}

}  // namespace
}  // namespace opevo::ui
