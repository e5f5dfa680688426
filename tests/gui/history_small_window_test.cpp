// History at the smallest window supported (1024x700, the app often runs on laptops), with GPU
// runs drawn against cuDNN: the chart was squeezed to a strip, its x-axis title cut in half, and
// the library lines' legend entries elided ("246 TFLOPS: cuDNN convolution forward, algorithm 5
// (t...").
#include <gtest/gtest.h>

#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QLegend>
#include <QLegendMarker>
#include <QTabBar>
#include <QTabWidget>
#include <QTest>
#include <QTextDocument>
#include <cstdint>
#include <vector>

#include "gui_test_support.h"
#include "io/run_restore.h"
#include "store/store.h"
#include "ui/charts/race_chart_view.h"
#include "ui/charts/race_results_widget.h"
#include "ui/controller/race_data.h"
#include "ui/main_window.h"
#include "ui/models/history_model.h"
#include "ui/pages/history_page.h"

namespace opevo::ui {
namespace {

using test::waitUntil;

const std::string kMeasurements = OPEVO_DATASETS_DIR "/../measurements/";

std::int64_t restore(const std::string& file) {
  Store store(Store::defaultPath());
  // The suite's tests share one database: a copy each.
  return storeRestoredRun(store, readRestoreFile(kMeasurements + file), true).runId;
}

// The texts the chart draws (title, tick labels, axis titles, legend entries), as drawn.
std::vector<QGraphicsTextItem*> drawnTexts(RaceChartView& chart) {
  std::vector<QGraphicsTextItem*> texts;
  for (QGraphicsItem* item : chart.scene()->items())
    if (auto* text = qgraphicsitem_cast<QGraphicsTextItem*>(item); text && text->isVisible())
      texts.push_back(text);
  return texts;
}

// Every text whole and inside the chart's frame: none elided ("algorithm 5 (t..."), the x axis's
// title not cut by the frame's bottom edge.
void expectReadable(RaceChartView& chart, const QString& xTitle) {
  SCOPED_TRACE(chart.objectName().toStdString());
  const QRectF frame = chart.chart()->mapRectToScene(chart.chart()->rect());
  bool titleSeen = false;
  for (QGraphicsTextItem* text : drawnTexts(chart)) {
    const QString shown = text->toPlainText();
    EXPECT_FALSE(shown.endsWith(QStringLiteral("...")) || shown.endsWith(QChar(0x2026)))
        << shown.toStdString();
    EXPECT_TRUE(frame.contains(text->sceneBoundingRect())) << shown.toStdString();
    titleSeen = titleSeen || shown == xTitle;
  }
  EXPECT_TRUE(titleSeen) << xTitle.toStdString();
  // The legend below the plot, which has the chart's width: on the right it took 40% of it.
  EXPECT_EQ(chart.legendAlignment(), Qt::AlignBottom);
  EXPECT_GT(chart.chart()->plotArea().width(), 0.8 * chart.width());
  // Tall enough to read: eight lines of text or more between the plot's top and bottom (the
  // chart's title, axes, legend and the note under it take the rest of the splitter's share).
  EXPECT_GE(chart.chart()->plotArea().height(), 8 * chart.fontMetrics().height());
}

// Two runs of C2 on an H200 against cuDNN (whose fastest, the tiled FFT, skips multiply-adds: a
// second line, its implicit precomputed GEMM), and one on an H100 not drawn with them.
class HistorySmallWindow : public ::testing::Test {
 protected:
  void draw(QSize size) {
    runs = {restore("h200/2026-11-29/C2_opevo-m_seed201.json.gz"),
            restore("h200/2026-11-29/C2_autotvm_seed201.json.gz"),
            restore("h100/2026-11-27/C2_opevo_seed1.json.gz")};
    window.resize(size);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    window.pages()->setCurrentWidget(window.historyPage());
    HistoryPage* history = window.historyPage();
    ASSERT_TRUE(waitUntil([&] { return !history->busy() && history->model()->rowCount() >= 3; }));
    ASSERT_TRUE(history->selectRuns(runs).empty());
    ASSERT_TRUE(
        waitUntil([&] { return !history->busy() && history->data()->trials().size() == 600; }));
    ASSERT_TRUE(history->data()->info().reference.has_value());
  }
  RaceResultsWidget& results() { return *window.historyPage()->results(); }

  MainWindow window;
  std::vector<std::int64_t> runs;
};

// The window a 1024x700 screen leaves (MainWindow::fitToScreen allows 16x40 for the frame).
TEST_F(HistorySmallWindow, EveryChartReadsWholeAt1024x700) {
  ASSERT_NO_FATAL_FAILURE(draw({1008, 660}));
  RaceResultsWidget& r = results();
  for (const bool repeats : {false, true}) {
    r.setShowRepeats(repeats);
    for (RaceChartView* chart : {r.trialsChart(), r.timeChart()}) {
      SCOPED_TRACE(repeats ? "each repeat" : "means");
      r.tabs()->setCurrentWidget(chart);
      QTest::qWait(50);
      expectReadable(*chart, chart == r.trialsChart() ? QStringLiteral("Trials")
                                                      : QStringLiteral("Tuning time (s)"));
      // The library's name and both figures stay in the legend; the whole descriptions are the
      // lines' tooltips and the note under the chart.
      EXPECT_TRUE(chart->shortLegend());
      EXPECT_EQ(chart->referenceLegend(), QStringLiteral("246 TFLOPS: cuDNN"));
      EXPECT_EQ(chart->everyMultiplyAddLegend(),
                QStringLiteral("45.72 TFLOPS: cuDNN, every multiply-add"));
      EXPECT_TRUE(chart->referenceTip().contains(QStringLiteral("algorithm 5 (tiled FFT)")));
      EXPECT_TRUE(chart->everyMultiplyAddTip().contains(
          QStringLiteral("algorithm 1 (implicit precomputed GEMM)")));
    }
  }
  const QString note = r.referenceNote();
  EXPECT_TRUE(note.contains(QStringLiteral("cuDNN convolution forward, algorithm 5 (tiled FFT)")))
      << note.toStdString();
  EXPECT_TRUE(
      note.contains(QStringLiteral("The dotted line is algorithm 1 (implicit precomputed "
                                   "GEMM), the library's fastest algorithm doing every "
                                   "multiply-add")))
      << note.toStdString();
}

// With room, the legend names each library line whole, as before.
TEST_F(HistorySmallWindow, AWiderWindowsLegendNamesTheLibraryLinesWhole) {
  ASSERT_NO_FATAL_FAILURE(draw({1280, 800}));
  RaceChartView* chart = results().trialsChart();
  expectReadable(*chart, QStringLiteral("Trials"));
  EXPECT_FALSE(chart->shortLegend());
  EXPECT_EQ(chart->referenceLegend(),
            QStringLiteral("246 TFLOPS: cuDNN convolution forward, algorithm 5 (tiled FFT) "
                           "(libcudnn.so.9)"));
  EXPECT_EQ(
      chart->everyMultiplyAddLegend(),
      QStringLiteral("45.72 TFLOPS: algorithm 1 (implicit precomputed GEMM), every multiply-add"));
}

// The chart's options sit beside its tabs (a row of height for the chart at 1024x700) where both
// fit; on the Runs page at 800x600 beside them the second tab read "vs tu…": on a row of their
// own there.
TEST(RaceResultsOptions, BesideTheTabsWhereBothFitElseAboveThem) {
  RaceData data;
  RaceResultsWidget results(&data);
  QWidget* options = results.findChild<QWidget*>(QStringLiteral("chartOptions"));
  ASSERT_NE(options, nullptr);
  results.resize(1000, 500);
  results.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&results));
  ASSERT_TRUE(waitUntil([&] { return results.tabs()->cornerWidget() == options; }));
  EXPECT_TRUE(options->isVisible());
  results.resize(430, 500);  // what an 800-pixel window leaves the Runs page's charts
  ASSERT_TRUE(waitUntil([&] { return results.tabs()->cornerWidget() == nullptr; }));
  EXPECT_TRUE(options->isVisible());
  QTabBar* tabs = results.tabs()->tabBar();
  // Every tab whole: the bar as wide as it asks, with no scroll buttons.
  EXPECT_GE(tabs->width(), tabs->sizeHint().width());
  EXPECT_LE(options->geometry().bottom(), results.tabs()->geometry().top());
  results.resize(1000, 500);
  ASSERT_TRUE(waitUntil([&] { return results.tabs()->cornerWidget() == options; }));
}

}  // namespace
}  // namespace opevo::ui
