#include "ui/pages/topology_page.h"

#include <gtest/gtest.h>

#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSlider>
#include <QTabWidget>
#include <algorithm>
#include <numeric>

#include "gui_test_support.h"
#include "space/param_spec.h"
#include "ui/charts/distance_chart_view.h"
#include "ui/charts/topology_view.h"
#include "ui/jobs/graph_layout.h"
#include "ui/jobs/qwalk_runner.h"
#include "ui/main_window.h"

namespace opevo::ui {
namespace {

using test::waitUntil;

class TopologyPageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&m_window));
    m_window.pages()->setCurrentWidget(page());
  }
  TopologyPage* page() { return m_window.topologyPage(); }
  TopologyView* view() { return page()->view(); }
  bool settled() {
    return waitUntil([&] { return !page()->busy(); }, 60000);
  }
  QString shown(const char* name) {
    auto* label = m_window.findChild<QLabel*>(QString::fromLatin1(name));
    return label && label->isVisible() ? label->text() : QString();
  }
  // The layout index of a vertex, by its text.
  std::size_t indexOf(const QString& vertex) {
    const GraphLayout* layout = view()->graphLayout();
    for (std::size_t i = 0; i < layout->graph.size(); ++i)
      if (QString::fromStdString(
              page()->result()->request.param->format(layout->graph.vertices[i])) == vertex)
        return i;
    ADD_FAILURE() << vertex.toStdString();
    return 0;
  }
  void openMM1TileK() {
    ASSERT_TRUE(page()->selectOperator(QStringLiteral("MM1")));
    ASSERT_TRUE(page()->selectParameter(QStringLiteral("tile_k")));
    ASSERT_TRUE(settled());
    ASSERT_TRUE(page()->showingGraph());
  }

  MainWindow m_window;
};

TEST_F(TopologyPageTest, MM1ParameterIsDrawnAndMovingQUpdatesTheDistribution) {
  openMM1TileK();
  ASSERT_EQ(view()->graphLayout()->graph.size(), 66u);
  const std::vector<double> atHalf = view()->probabilities();
  ASSERT_EQ(atHalf.size(), 66u);
  EXPECT_NEAR(std::accumulate(atHalf.begin(), atHalf.end(), 0.0), 1.0, 1e-9);
  const std::size_t start = indexOf(QStringLiteral("1024,1,1"));
  EXPECT_NEAR(atHalf[start], 0.54069, 1e-4);  // as `opevo qwalk` computes it
  const double radiusAtHalf = view()->radiusOf(start);
  // Every vertex has a place from Graphviz, and the graph fits the view.
  for (std::size_t i = 0; i < 66; ++i)
    EXPECT_TRUE(view()->viewport()->rect().contains(view()->viewPositionOf(i))) << i;

  page()->qSlider()->setValue(90);  // as dragging the slider does
  ASSERT_TRUE(settled());
  const std::vector<double> atNine = view()->probabilities();
  EXPECT_NEAR(std::accumulate(atNine.begin(), atNine.end(), 0.0), 1.0, 1e-9);
  EXPECT_LT(atNine[start], atHalf[start] - 0.3);
  EXPECT_NEAR(view()->radiusOf(start), radiusAtHalf, 1e-9);  // still the likeliest: same size
  const std::size_t far = indexOf(QStringLiteral("1,1,1024"));
  EXPECT_GT(atNine[far], atHalf[far]);
  EXPECT_NE(view()->colorOf(far), QColor());
  EXPECT_EQ(m_window.findChild<QLineEdit*>(QStringLiteral("topologyQ"))->text(), "0.9");
}

// The operator's parameters come from the chosen template's space: Winograd's tile_e on C2, none
// on C1 (stride 4), where the page keeps the loops.
TEST_F(TopologyPageTest, AWinogradParameterIsDrawnWhereTheTemplateTakesTheOperator) {
  ASSERT_TRUE(page()->selectOperator(QStringLiteral("C1")));
  EXPECT_FALSE(page()->selectTemplate(SpaceTemplate::Winograd));
  EXPECT_FALSE(page()->selectParameter(QStringLiteral("tile_e")));
  ASSERT_TRUE(page()->selectOperator(QStringLiteral("C2")));
  ASSERT_TRUE(page()->selectTemplate(SpaceTemplate::Winograd));
  ASSERT_TRUE(page()->selectParameter(QStringLiteral("tile_e")));
  ASSERT_TRUE(settled());
  ASSERT_TRUE(page()->showingGraph());
  EXPECT_EQ(view()->graphLayout()->graph.size(), 7u);  // factor:64:2
  EXPECT_FALSE(page()->selectParameter(QStringLiteral("tile_ry")));
  // A custom spec has no template to choose.
  page()->setCustomSpec(QStringLiteral("factor:8:3"));
  EXPECT_FALSE(page()->templateBox()->isEnabled());
  // and the template chosen before comes back with the next operator.
  ASSERT_TRUE(page()->selectOperator(QStringLiteral("resnet18_conv2_b1")));
  EXPECT_EQ(page()->templateBox()->current(), SpaceTemplate::Winograd);
  EXPECT_TRUE(page()->selectParameter(QStringLiteral("tile_e")));
  // Operator and template in one call, as a double-click on Spaces asks for them.
  EXPECT_TRUE(page()->selectOperator(QStringLiteral("MM1"), SpaceTemplate::GpuLoops));
  EXPECT_TRUE(page()->selectParameter(QStringLiteral("split_k")));
  EXPECT_FALSE(page()->selectOperator(QStringLiteral("C1"), SpaceTemplate::Winograd));
  EXPECT_EQ(page()->templateBox()->current(), SpaceTemplate::CpuLoops);
}

// The matrix-vector template's parameters on a dense layer at batch 1; MM1 (512 rows) is not one
// the template takes.
TEST_F(TopologyPageTest, AMatVecParameterIsDrawnWhereTheTemplateTakesTheOperator) {
  ASSERT_TRUE(page()->selectOperator(QStringLiteral("MM1")));
  EXPECT_FALSE(page()->selectTemplate(SpaceTemplate::MatVec));
  ASSERT_TRUE(page()->selectOperator(QStringLiteral("alexnet_fc8_b1")));
  ASSERT_TRUE(page()->selectTemplate(SpaceTemplate::MatVec));
  ASSERT_TRUE(page()->selectParameter(QStringLiteral("lanes")));
  ASSERT_TRUE(settled());
  ASSERT_TRUE(page()->showingGraph());
  EXPECT_EQ(view()->graphLayout()->graph.size(), 6u);  // 1, 2, 4, 8, 16, 32
  EXPECT_TRUE(page()->selectParameter(QStringLiteral("tile_m")));
}

TEST_F(TopologyPageTest, ClickingAVertexStartsTheWalkThere) {
  openMM1TileK();
  const std::size_t target = indexOf(QStringLiteral("32,32,1"));
  QTest::mouseClick(view()->viewport(), Qt::LeftButton, {}, view()->viewPositionOf(target));
  EXPECT_EQ(m_window.findChild<QLineEdit*>(QStringLiteral("topologyStart"))->text(), "32,32,1");
  ASSERT_TRUE(settled());
  const std::vector<double>& p = view()->probabilities();
  EXPECT_EQ(std::max_element(p.begin(), p.end()) - p.begin(), static_cast<long>(target));
}

TEST_F(TopologyPageTest, SampledWalksAgreeWithTheExactDistribution) {
  openMM1TileK();
  QSignalSpy spy(page(), &TopologyPage::sampleShown);
  ASSERT_TRUE(page()->sampleWalks(40000));
  ASSERT_TRUE(spy.wait(60000));
  const std::size_t start = indexOf(QStringLiteral("1024,1,1"));
  // 40,000 walks: every frequency is within a few standard errors (at most 0.0025) of exact.
  ASSERT_EQ(view()->sampled().size(), 66u);
  for (std::size_t i = 0; i < 66; ++i)
    EXPECT_NEAR(view()->sampled()[i], view()->probabilities()[i], 0.015) << i;
  EXPECT_GT(view()->sampled()[start], 0.5);  // it stops at once half the time, and may come back
  // A new q drops the sample: it no longer describes the picture.
  page()->setQText(QStringLiteral("0.3"));
  ASSERT_TRUE(settled());
  EXPECT_EQ(spy.count(), 1);
  EXPECT_TRUE(view()->sampled().empty());
}

TEST_F(TopologyPageTest, QOfOneIsRefusedWithAMessageAndTheWindowStaysUsable) {
  openMM1TileK();
  page()->setQText(QStringLiteral("1"));
  EXPECT_TRUE(shown("topologyError").contains("strictly between 0 and 1"))
      << shown("topologyError").toStdString();
  EXPECT_FALSE(page()->errors().isEmpty());
  page()->setQText(QStringLiteral("0.4"));
  ASSERT_TRUE(settled());
  EXPECT_TRUE(shown("topologyError").isEmpty());
  EXPECT_TRUE(page()->showingGraph());
}

TEST_F(TopologyPageTest, ABadSpecIsRefusedWithAMessage) {
  page()->setCustomSpec(QStringLiteral("factor:8"));
  EXPECT_TRUE(shown("topologyError").contains("factor:8")) << shown("topologyError").toStdString();
  page()->setCustomSpec(QStringLiteral("factor:8:3"));
  ASSERT_TRUE(settled());
  EXPECT_TRUE(shown("topologyError").isEmpty());
  EXPECT_EQ(view()->graphLayout()->graph.size(), 10u);
}

// The walk: the colours spanned six decades below the likeliest vertex whatever the walk, so
// perm:4's 24 vertices, within 1.4 decades of each other at q = 0.7, were nearly one colour.
TEST_F(TopologyPageTest, TheColoursSpanTheDecadesTheWalkHas) {
  page()->setCustomSpec(QStringLiteral("perm:4"));
  page()->qSlider()->setValue(70);
  ASSERT_TRUE(settled());
  const std::vector<double>& p = view()->probabilities();
  ASSERT_EQ(p.size(), 24u);
  const auto [least, most] = std::minmax_element(p.begin(), p.end());
  EXPECT_LT(*most / *least, 100.0);
  EXPECT_EQ(view()->decades(), 2);
  const QColor top = view()->colorOf(static_cast<std::size_t>(most - p.begin()));
  const QColor bottom = view()->colorOf(static_cast<std::size_t>(least - p.begin()));
  // The ends of the ramp: far apart, where six decades drew them a shade apart.
  const int distance = std::abs(top.red() - bottom.red()) + std::abs(top.green() - bottom.green()) +
                       std::abs(top.blue() - bottom.blue());
  EXPECT_GT(distance, 200) << top.name().toStdString() << " " << bottom.name().toStdString();
  // A factor walk over several decades keeps a wider scale.
  page()->setCustomSpec(QStringLiteral("factor:1024:3"));
  ASSERT_TRUE(settled());
  EXPECT_GT(view()->decades(), 3);
}

TEST_F(TopologyPageTest, AGraphTooLargeToDrawShowsProbabilityByDistanceAndSaysWhy) {
  page()->setCustomSpec(QStringLiteral("perm:7"));  // 5,040 vertices
  ASSERT_TRUE(settled());
  EXPECT_TRUE(shown("topologyNote").contains("5,040")) << shown("topologyNote").toStdString();
  EXPECT_TRUE(shown("topologyNote").contains("by distance"));
  const std::vector<double>& bars = page()->distanceChart()->exact();
  ASSERT_EQ(bars.size(), 7u);  // any order is at most 6 swaps from another
  EXPECT_NEAR(std::accumulate(bars.begin(), bars.end(), 0.0), 1.0, 1e-9);
  QSignalSpy spy(page(), &TopologyPage::sampleShown);
  ASSERT_TRUE(page()->sampleWalks(20000));
  ASSERT_TRUE(spy.wait(60000));
  ASSERT_EQ(page()->distanceChart()->sampled().size(), 7u);
  EXPECT_NEAR(page()->distanceChart()->sampled()[0], bars[0], 0.03);
}

TEST(GraphLayout, NeatoAndDotPlaceEveryVertexOfTheGraph) {
  const ParameterPtr param = makeParameter("", "factor:8:3");
  for (const QString engine : {"neato", "dot"}) {
    const auto layout = layoutParameter(*param, engine, 100);
    ASSERT_EQ(layout->positions.size(), 10u);
    // Distinct places: no two vertices drawn on top of each other.
    for (std::size_t i = 0; i < 10; ++i)
      for (std::size_t j = i + 1; j < 10; ++j)
        EXPECT_GT(QLineF(layout->positions[i], layout->positions[j]).length(), 1.0)
            << engine.toStdString();
    EXPECT_EQ(layout->indexOf.size(), 10u);
  }
}

}  // namespace
}  // namespace opevo::ui
