// What a new user found on the Topology page, the Spaces q-walk panel and the operator editor:
// each finding as the behaviour that fixes it.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <fstream>

#include "gui_test_support.h"
#include "space/graph_limit.h"
#include "ui/charts/distance_chart_view.h"
#include "ui/charts/topology_view.h"
#include "ui/jobs/graph_layout.h"
#include "ui/jobs/qwalk_runner.h"
#include "ui/main_window.h"
#include "ui/models/qwalk_model.h"
#include "ui/pages/operator_editor.h"
#include "ui/pages/presets_panel.h"
#include "ui/pages/qwalk_panel.h"
#include "ui/pages/topology_page.h"

namespace opevo::ui {
namespace {

using test::waitUntil;

class TopologyFindingsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(m_dir.isValid());
    qputenv("OPEVO_OPERATORS_DIR", m_dir.path().toLocal8Bit());
    m_window = std::make_unique<MainWindow>();
    m_window->resize(1024, 700);
    m_window->show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(m_window.get()));
  }
  void TearDown() override {
    m_window.reset();
    qunsetenv("OPEVO_OPERATORS_DIR");
  }
  void showTopology() { m_window->pages()->setCurrentWidget(page()); }
  TopologyPage* page() { return m_window->topologyPage(); }
  TopologyView* view() { return page()->view(); }
  bool settled(int ms = 60000) {
    return waitUntil([&] { return !page()->busy(); }, ms);
  }
  QString shown(const char* name) {
    auto* label = m_window->findChild<QLabel*>(QString::fromLatin1(name));
    return label && label->isVisible() ? label->text() : QString();
  }
  void drawn(const QString& spec, const QString& engine) {
    page()->setLayoutEngine(engine);
    page()->setCustomSpec(spec);
    ASSERT_TRUE(settled());
    ASSERT_TRUE(page()->showingGraph()) << spec.toStdString();
    QCoreApplication::processEvents();
  }

  QTemporaryDir m_dir;
  std::unique_ptr<MainWindow> m_window;
};

TEST_F(TopologyFindingsTest, DotSpreadsACategoricalParametersVerticesApart) {
  showTopology();
  drawn(QStringLiteral("choice:relu,gelu,tanh,silu"), QStringLiteral("dot"));
  ASSERT_EQ(view()->graphLayout()->graph.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t j = i + 1; j < 4; ++j) {
      const QPointF d = view()->viewPositionOf(i) - view()->viewPositionOf(j);
      // Further apart than two of the largest discs as drawn: none covers another.
      EXPECT_GT(std::hypot(d.x(), d.y()), 2 * 13 * view()->transform().m11() * 0.99) << i << j;
    }
  // Every label shows, "relu" (the start) first.
  EXPECT_EQ(view()->labelledVertices().size(), 4u);
}

TEST_F(TopologyFindingsTest, ASmallGraphFillsTheViewAndItsLabelsDoNotOverlap) {
  showTopology();
  for (const QString engine : {"neato", "dot"}) {
    drawn(QStringLiteral("perm:4"), engine);
    QRect extent;
    for (std::size_t i = 0; i < 24; ++i) extent |= QRect(view()->viewPositionOf(i), QSize(1, 1));
    const QRect area = view()->viewport()->rect();
    // Fitted: the graph spans most of the view one way or the other (it filled a third before).
    EXPECT_TRUE(extent.width() > area.width() * 0.7 || extent.height() > area.height() * 0.7)
        << engine.toStdString() << " " << extent.width() << "x" << extent.height();
    EXPECT_TRUE(area.contains(extent)) << engine.toStdString();
    const auto labels = view()->placedLabels();
    EXPECT_GE(labels.size(), 12u) << engine.toStdString();
    for (std::size_t a = 0; a < labels.size(); ++a)
      for (std::size_t b = a + 1; b < labels.size(); ++b)
        EXPECT_FALSE(labels[a].second.intersects(labels[b].second)) << engine.toStdString();
  }
}

TEST_F(TopologyFindingsTest, TheWheelZoomsAboutThePointer) {
  showTopology();
  page()->selectOperator(QStringLiteral("MM1"));
  ASSERT_TRUE(page()->selectParameter(QStringLiteral("tile_n")));
  page()->setStartText(QStringLiteral("1,1,1,512"));
  ASSERT_TRUE(settled());
  QCoreApplication::processEvents();
  const std::size_t start = view()->graphLayout()->indexOf.at(page()->result()->request.start);
  const QPoint before = view()->viewPositionOf(start);
  // Wheel notches over the start vertex, wherever it sits (a corner of the graph here).
  for (int i = 0; i < 4; ++i) {
    QWheelEvent wheel(QPointF(before), view()->viewport()->mapToGlobal(QPointF(before)), {},
                      {0, 240}, Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QCoreApplication::sendEvent(view()->viewport(), &wheel);
  }
  EXPECT_GT(view()->transform().m11(), 1.5);
  const QPoint after = view()->viewPositionOf(start);
  // Within a pixel of rounding per notch.
  EXPECT_LE((after - before).manhattanLength(), 6) << after.x() << "," << after.y();
}

TEST_F(TopologyFindingsTest, TheLargestWalkIsCoresLimitAndARefusalClearsTheBars) {
  showTopology();
  page()->setCustomSpec(QStringLiteral("perm:7"));
  ASSERT_TRUE(settled());
  ASSERT_EQ(page()->distanceChart()->exact().size(), 7u);
  page()->setCustomSpec(QStringLiteral("perm:10"));  // over kMaxGraphVertices
  ASSERT_TRUE(settled());
  EXPECT_TRUE(shown("topologyNote").contains("1,000,000")) << shown("topologyNote").toStdString();
  EXPECT_TRUE(page()->distanceChart()->exact().empty());
  EXPECT_FALSE(page()->distanceChart()->axesShown());  // no stale 0-6 under an empty plot

  // perm:9 is what `opevo qwalk` computes: so does the window, off its thread.
  test::StallProbe probe;
  QElapsedTimer clock;
  clock.start();
  page()->setCustomSpec(QStringLiteral("perm:9"));
  EXPECT_TRUE(page()->busy());
  EXPECT_TRUE(shown("topologyNote").contains("computing")) << shown("topologyNote").toStdString();
  ASSERT_TRUE(settled(120000));
  std::printf("perm:9 in the window: %lld ms, longest stall %lld ms\n",
              static_cast<long long>(clock.elapsed()), static_cast<long long>(probe.longestMs()));
  ASSERT_EQ(page()->distanceChart()->exact().size(), 9u);  // 0 to 8 swaps
  EXPECT_TRUE(page()->distanceChart()->axesShown());
  EXPECT_LT(probe.longestMs(), 1000);
}

TEST_F(TopologyFindingsTest, TheSpacesPanelTakesPerm9Too) {
  QwalkPanel* panel = m_window->qwalkPanel();
  panel->setCustomSpec(QStringLiteral("perm:9"));
  ASSERT_TRUE(waitUntil([&] { return !panel->busy(); }, 120000));
  EXPECT_TRUE(panel->errors().isEmpty()) << panel->errors().join('\n').toStdString();
  EXPECT_EQ(panel->model()->rowCount(), 362880);
}

TEST_F(TopologyFindingsTest, OperatorFilesAreNamedAsOnTheSpacesPageAndAFailedOneSaysWhy) {
  std::ofstream((m_dir.path() + "/emptyset.json").toStdString())
      << R"({"name": "es", "kind": "matmul", "shape": {"n": 64, "m": 64, "k": 64}})";
  std::ofstream((m_dir.path() + "/bad_json.json").toStdString()) << "{\"name\": ";
  m_window->presetsPanel()->reloadFiles();
  auto* combo = m_window->findChild<QComboBox*>(QStringLiteral("topologyOperator"));
  ASSERT_NE(combo, nullptr);
  EXPECT_GE(combo->findText(QStringLiteral("es")), 0);
  EXPECT_LT(combo->findText(QStringLiteral("emptyset.json")), 0);
  const int bad = combo->findText(QStringLiteral("bad_json.json"));
  ASSERT_GE(bad, 0);  // listed, not left out
  EXPECT_TRUE(combo->itemData(bad, Qt::ToolTipRole).toString().contains("not valid JSON"));
  showTopology();
  combo->setCurrentIndex(bad);
  ASSERT_TRUE(settled());
  ASSERT_FALSE(page()->errors().isEmpty());
  EXPECT_TRUE(page()->errors().join('\n').contains("could not be loaded"));
  EXPECT_FALSE(page()->showingGraph());
}

TEST_F(TopologyFindingsTest, AFailedFileClearsTheSpacesTableInsteadOfKeepingMM1s) {
  std::ofstream((m_dir.path() + "/bad_json.json").toStdString()) << "{\"name\": ";
  m_window->presetsPanel()->reloadFiles();
  QwalkPanel* panel = m_window->qwalkPanel();
  ASSERT_TRUE(waitUntil([&] { return panel->model()->rowCount() > 0; }));  // MM1's first
  ASSERT_FALSE(m_window->presetsPanel()->openFile(m_dir.path() + "/bad_json.json"));
  EXPECT_EQ(panel->model()->rowCount(), 0);
  EXPECT_TRUE(m_window->findChild<QLineEdit*>(QStringLiteral("specEdit"))->text().isEmpty());
  EXPECT_TRUE(shown("noteLabel").contains("no parameters")) << shown("noteLabel").toStdString();
}

TEST_F(TopologyFindingsTest, TheWalkSetInTheSpacesPanelIsTheTopologyPagesForThatParameter) {
  QwalkPanel* panel = m_window->qwalkPanel();
  ASSERT_TRUE(panel->selectParameter(QStringLiteral("tile_n")));
  panel->setQText(QStringLiteral("0.7"));
  panel->setStartText(QStringLiteral("1,1,1,512"));
  page()->selectOperator(QStringLiteral("MM1"));
  ASSERT_TRUE(page()->selectParameter(QStringLiteral("tile_n")));
  showTopology();
  ASSERT_TRUE(settled());
  ASSERT_NE(page()->result(), nullptr);
  EXPECT_DOUBLE_EQ(page()->result()->request.q, 0.7);
  EXPECT_EQ(page()->result()->request.param->format(page()->result()->request.start), "1,1,1,512");
  EXPECT_EQ(page()->qSlider()->value(), 70);
}

TEST_F(TopologyFindingsTest, TheEditorMarksEveryInvalidFieldAtOnce) {
  PresetsPanel* presets = m_window->presetsPanel();
  presets->newOperator(OpKind::Conv2D);  // C1: 3 -> 64 channels, 227x227, an 11x11 kernel
  auto type = [&](const char* field, const QString& text) {
    auto* edit = m_window->findChild<QLineEdit*>(QString::fromLatin1(field));
    ASSERT_NE(edit, nullptr) << field;
    edit->setText(text);
  };
  type("shape_groups", QStringLiteral("7"));
  type("shape_width", QStringLiteral("5"));
  const QStringList marked = presets->editor()->markedFields();
  EXPECT_TRUE(marked.contains("groups")) << marked.join(',').toStdString();
  EXPECT_TRUE(marked.contains("width")) << marked.join(',').toStdString();
  EXPECT_TRUE(marked.contains("kernel_w")) << marked.join(',').toStdString();
  EXPECT_FALSE(marked.contains("height")) << marked.join(',').toStdString();
  const QString error = shown("editorError");
  EXPECT_TRUE(error.contains("groups 7 must divide")) << error.toStdString();
  EXPECT_TRUE(error.contains("output would be empty")) << error.toStdString();
}

TEST_F(TopologyFindingsTest, TheParameterBoxShowsALongNameWhole) {
  showTopology();
  ASSERT_TRUE(page()->selectOperator(QStringLiteral("C1")));  // auto_unroll_max_step among them
  auto* combo = m_window->findChild<QComboBox*>(QStringLiteral("topologyParam"));
  QString longest;
  for (int i = 0; i < combo->count(); ++i)
    if (combo->itemText(i).size() > longest.size()) longest = combo->itemText(i);
  ASSERT_GE(longest.size(), 12) << longest.toStdString();
  ASSERT_TRUE(page()->selectParameter(longest));
  QCoreApplication::processEvents();
  EXPECT_GE(combo->width(), combo->fontMetrics().horizontalAdvance(longest))
      << longest.toStdString();
}

}  // namespace
}  // namespace opevo::ui
