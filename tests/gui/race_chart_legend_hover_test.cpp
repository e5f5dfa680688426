// The race chart's legend after "Each repeat" is toggled, and the figures its lines show under
// the pointer, as the walk of the window with a 327-run database found them.

#include <gtest/gtest.h>

#include <QAreaSeries>
#include <QChart>
#include <QCheckBox>
#include <QCursor>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QToolTip>
#include <algorithm>
#include <vector>

#include "gui_test_support.h"
#include "ui/charts/race_chart_view.h"
#include "ui/charts/race_results_widget.h"
#include "ui/controller/race_data.h"

namespace opevo::ui {
namespace {

using test::waitUntil;

// A race of `algorithms` with `repeats` runs each, over `trials` trials, on a dataset whose
// optimum is 100.
void fill(RaceData& data, const QStringList& algorithms, int repeats, int trials) {
  RaceData::Info info;
  info.algorithms = algorithms;
  info.repeats = repeats;
  info.speedUnit = QStringLiteral("GFLOP/s");
  info.optimum = 100;
  data.reset(info);
  std::vector<TrialPoint> points;
  for (int a = 0; a < algorithms.size(); ++a)
    for (int r = 0; r < repeats; ++r)
      for (int seq = 1; seq <= trials; ++seq) {
        TrialPoint t;
        t.algorithm = a;
        t.repeat = r;
        t.seq = seq;
        t.order = seq;
        t.config = QStringLiteral("x=%1").arg(seq);
        t.speed = t.best = 10.0 + 5 * a + r + 60.0 * seq / trials;
        t.seconds = 0.1 * seq;
        points.push_back(t);
      }
  data.append(points);
  data.finishAll();
}

// The labels of the legend's entries, in order: the ones shown.
QStringList legendEntries(RaceChartView& chart) {
  QStringList labels;
  for (QLegendMarker* m : chart.chart()->legend()->markers())
    if (m->isVisible()) labels << m->label();
  return labels;
}

// "Each repeat" ticked on a chart already drawn gave every repeat a legend entry ("opevo repeat
// 1", 55 of them for a 50-run race) and the algorithms' names were elided away; the same chart
// drawn with the box ticked had one entry per algorithm and the optimum.
TEST(RaceChartLegend, EachRepeatToggledGivesTheLegendOfAChartDrawnWithIt) {
  const QStringList algorithms = {"opevo-m", "opevo", "autotvm", "ansor", "random"};
  RaceData data;
  fill(data, algorithms, 10, 30);
  RaceResultsWidget toggled(&data);
  toggled.resize(1000, 600);
  toggled.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&toggled));
  toggled.refreshNow();
  const QStringList entries = legendEntries(*toggled.trialsChart());
  ASSERT_EQ(entries.size(), algorithms.size() + 1) << entries.join(" | ").toStdString();
  const QString before = entries.join(QStringLiteral(" | "));

  // The box ticked, then the race drawn, as History draws a selection.
  RaceData sameData;
  RaceResultsWidget fresh(&sameData);
  fresh.setShowRepeats(true);
  fill(sameData, algorithms, 10, 30);
  fresh.resize(1000, 600);
  fresh.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&fresh));
  fresh.refreshNow();
  const QString drawnWith = legendEntries(*fresh.trialsChart()).join(QStringLiteral(" | "));

  // Ticked, off, and on again: as drawn afresh every time, on both charts.
  for (const bool on : {true, false, true}) {
    toggled.findChild<QCheckBox*>(QStringLiteral("showRepeats"))->setChecked(on);
    QTest::qWait(20);
    for (RaceChartView* chart : {toggled.trialsChart(), toggled.timeChart()}) {
      const QStringList now = legendEntries(*chart);
      EXPECT_EQ(now.size(), algorithms.size() + 1) << "Each repeat " << on;
      EXPECT_EQ(now.join(QStringLiteral(" | ")), on ? drawnWith : before);
    }
  }
  EXPECT_EQ(drawnWith, before);  // the repeats have no entries of their own
  // Six entries fit below the plot at 1000 pixels, as they did before the box was ticked.
  EXPECT_EQ(toggled.trialsChart()->legendAlignment(), Qt::AlignBottom);
}

// Where a point of `series` is on the chart view's viewport.
QPoint onScreen(RaceChartView& chart, QAbstractSeries* series, QPointF value) {
  const QPointF scene = chart.chart()->mapToScene(chart.chart()->mapToPosition(value, series));
  return chart.mapFromScene(scene);
}

// The line whose legend entry starts with `name` and that has points (a hidden repeat has none).
QLineSeries* seriesNamed(RaceChartView& chart, const QString& name) {
  for (QAbstractSeries* s : chart.chart()->series())
    if (s->name().startsWith(name) && !s->name().contains(QStringLiteral(" repeat ")))
      if (auto* line = qobject_cast<QLineSeries*>(s); line && line->count() > 0) return line;
  return nullptr;
}

QAreaSeries* bandOf(RaceChartView& chart, const QString& algorithm) {
  for (QAbstractSeries* s : chart.chart()->series())
    if (s->name().startsWith(algorithm))
      if (auto* band = qobject_cast<QAreaSeries*>(s)) return band;
  return nullptr;
}

// Moves the pointer over the viewport to `to`, in small steps from a point above the plot, as a
// hand does: a hover is a move into an item.
void moveTo(RaceChartView& chart, QPoint to) {
  QPoint from(to.x(), std::max(0, to.y() - 40));
  for (int i = 0; i <= 8; ++i) {
    const QPoint p = from + (to - from) * i / 8;
    QCursor::setPos(chart.viewport()->mapToGlobal(p));
    QTest::mouseMove(chart.viewport(), p);
    QTest::qWait(5);
  }
}

// README says "hover for the figures": the pointer on the mean line, its band and the dataset's
// optimum showed nothing under Xvfb.
TEST(RaceChartHover, TheMeanItsBandAndTheOptimumSayTheirFiguresUnderThePointer) {
  RaceData data;
  fill(data, {"opevo-m"}, 3, 40);
  RaceChartView chart(&data, RaceChartView::XAxis::Trials);
  chart.resize(900, 560);
  chart.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&chart));
  chart.refresh(true);
  QTest::qWait(50);

  QLineSeries* mean = seriesNamed(chart, QStringLiteral("opevo-m"));
  ASSERT_NE(mean, nullptr);
  const QPointF middle = mean->at(mean->count() / 2);
  moveTo(chart, onScreen(chart, mean, middle));
  ASSERT_TRUE(waitUntil([] { return QToolTip::isVisible(); }, 2000)) << "no tip on the mean";
  EXPECT_TRUE(QToolTip::text().contains(QStringLiteral("mean best")))
      << QToolTip::text().toStdString();

  QToolTip::hideText();
  ASSERT_TRUE(waitUntil([] { return !QToolTip::isVisible(); }, 2000));
  QLineSeries* optimum = seriesNamed(chart, QStringLiteral("dataset optimum"));
  ASSERT_NE(optimum, nullptr);
  moveTo(chart, onScreen(chart, optimum, {20, 100}));
  ASSERT_TRUE(waitUntil([] { return QToolTip::isVisible(); }, 2000)) << "no tip on the optimum";
  EXPECT_TRUE(QToolTip::text().contains(QStringLiteral("optimum")))
      << QToolTip::text().toStdString();

  // Inside the band, off the mean line: the band's own figures.
  QToolTip::hideText();
  ASSERT_TRUE(waitUntil([] { return !QToolTip::isVisible(); }, 2000));
  QAreaSeries* band = bandOf(chart, QStringLiteral("opevo-m"));
  ASSERT_NE(band, nullptr);
  const QPointF low = band->lowerSeries()->at(band->lowerSeries()->count() / 2);
  const QPointF high = band->upperSeries()->at(band->upperSeries()->count() / 2);
  const QPoint lowOnScreen = onScreen(chart, band, low), highOnScreen = onScreen(chart, band, high);
  ASSERT_GT(lowOnScreen.y() - highOnScreen.y(), 8) << "the band is too thin to point into";
  moveTo(chart, {lowOnScreen.x(), lowOnScreen.y() - 3});
  ASSERT_TRUE(waitUntil([] { return QToolTip::isVisible(); }, 2000)) << "no tip in the band";
  EXPECT_TRUE(QToolTip::text().contains(QStringLiteral("mean best")))
      << QToolTip::text().toStdString();
}

// The tip showed only while the pointer was on the 2.5-pixel stroke itself, and went a pixel off
// it: moving a hand along the line under Xvfb showed nothing. Near the line is enough now, and
// away from every line the tip goes.
TEST(RaceChartHover, ALineSaysItsFiguresANearbyPointerToo) {
  RaceData data;
  fill(data, {"opevo-m"}, 1, 40);  // one run: no band around the line
  RaceChartView chart(&data, RaceChartView::XAxis::Trials);
  chart.resize(900, 560);
  chart.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&chart));
  chart.refresh(true);
  QTest::qWait(50);
  QLineSeries* mean = seriesNamed(chart, QStringLiteral("opevo-m"));
  ASSERT_NE(mean, nullptr);
  const QPoint on = onScreen(chart, mean, mean->at(mean->count() / 2));
  moveTo(chart, on + QPoint(0, -4));
  ASSERT_TRUE(waitUntil([] { return QToolTip::isVisible(); }, 2000)) << "no tip 4 px off the line";
  EXPECT_TRUE(QToolTip::text().contains(QStringLiteral("opevo-m at trial")))
      << QToolTip::text().toStdString();
  // One run: its best, without a spread of one.
  EXPECT_FALSE(QToolTip::text().contains(QStringLiteral("±"))) << QToolTip::text().toStdString();
  QTest::mouseMove(chart.viewport(), on + QPoint(0, 60));
  EXPECT_TRUE(waitUntil([] { return !QToolTip::isVisible(); }, 2000)) << "the tip stayed";
}

}  // namespace
}  // namespace opevo::ui
