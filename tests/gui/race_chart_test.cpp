// The race charts' palette, titles and log axis, as the walk of the window found them.

#include <gtest/gtest.h>

#include <QChart>
#include <QGraphicsRectItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <array>
#include <cmath>

#include "gui_test_support.h"
#include "ui/charts/race_chart_view.h"
#include "ui/controller/race_data.h"

namespace opevo::ui {
namespace {

// CIE L*a*b* of an sRGB colour (D65), for the distance the eye sees between two colours.
std::array<double, 3> lab(const QColor& c) {
  const auto linear = [](double v) {
    return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
  };
  const double r = linear(c.redF()), g = linear(c.greenF()), b = linear(c.blueF());
  const double x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
  const double y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  const double z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
  const auto f = [](double t) { return t > 0.008856 ? std::cbrt(t) : 7.787 * t + 16.0 / 116; };
  return {116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))};
}

double distance(const QColor& a, const QColor& b) {
  const auto p = lab(a), q = lab(b);
  return std::hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
}

// autotvm's vermilion and ansor's orange (33 apart) read as one colour once their bands
// overlapped: the algorithms raced most are far apart, every pair of them.
TEST(RaceColors, TheAlgorithmsRacedMostAreFarApart) {
  const QStringList most = {"opevo-m", "opevo", "autotvm", "ansor", "random"};
  const std::vector<QColor> colors = RaceChartView::colorsOf(most);
  for (int i = 0; i < most.size(); ++i)
    for (int j = i + 1; j < most.size(); ++j)
      EXPECT_GE(distance(colors[i], colors[j]), 50)
          << most[i].toStdString() << " " << colors[i].name().toStdString() << " against "
          << most[j].toStdString() << " " << colors[j].name().toStdString();
}

TrialPoint trial(int repeat, int seq, double best) {
  TrialPoint t;
  t.repeat = repeat;
  t.seq = seq;
  t.order = seq;
  t.config = QStringLiteral("x=%1").arg(seq);
  t.speed = t.best = best;
  t.seconds = 0.1 * seq;
  return t;
}

RaceData::Info info(int repeats) {
  RaceData::Info i;
  i.algorithms = {"opevo-m"};
  i.repeats = repeats;
  i.speedUnit = "GFLOP/s";
  return i;
}

// An empty chart says it has no trial yet, over axes that would otherwise read 0 to 1 as a result;
// the note goes with the first trial, and comes back when a new race begins.
TEST(RaceChartView, AnEmptyChartSaysItHasNoTrialYet) {
  RaceData data;
  data.reset(info(1));
  for (const auto axis : {RaceChartView::XAxis::Trials, RaceChartView::XAxis::Seconds}) {
    RaceChartView chart(&data, axis);
    chart.refresh(true);
    EXPECT_EQ(chart.emptyNote(), QStringLiteral("No trials yet"));
  }
  RaceChartView chart(&data, RaceChartView::XAxis::Trials);
  chart.refresh(true);
  data.append({trial(0, 1, 5.0)});
  chart.refresh();
  EXPECT_EQ(chart.emptyNote(), QString());
  data.reset(info(1));
  chart.refresh();
  EXPECT_EQ(chart.emptyNote(), QStringLiteral("No trials yet"));
}

// The note sits on a patch of the chart's background: the dataset optimum's dashed line, drawn
// through the middle of an empty chart, crossed it out ("-No trials yet-").
TEST(RaceChartView, TheEmptyChartsNoteIsNotCrossedByTheOptimumsLine) {
  RaceData data;
  RaceData::Info withOptimum = info(1);
  withOptimum.optimum = 100.0;
  data.reset(withOptimum);
  RaceChartView chart(&data, RaceChartView::XAxis::Trials);
  chart.resize(800, 500);
  chart.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&chart));
  chart.refresh(true);
  QCoreApplication::processEvents();
  QGraphicsScene* scene = chart.chart()->scene();
  QGraphicsSimpleTextItem* note = nullptr;
  for (QGraphicsItem* item : scene->items())
    if (auto* text = qgraphicsitem_cast<QGraphicsSimpleTextItem*>(item);
        text && text->isVisible() && text->text() == QStringLiteral("No trials yet"))
      note = text;
  ASSERT_NE(note, nullptr);
  // Just left of the text, on its middle line, which the optimum's line crosses: the topmost
  // item is an opaque patch of the chart's background, above every series.
  const QRectF box = note->sceneBoundingRect();
  for (const QPointF& p : {QPointF(box.left() - 2, box.center().y()), box.center()}) {
    const QList<QGraphicsItem*> top = scene->items(p, Qt::IntersectsItemShape, Qt::DescendingOrder);
    ASSERT_FALSE(top.isEmpty());
    const QGraphicsItem* over = top.front() == note ? note->parentItem() : top.front();
    const auto* patch = qgraphicsitem_cast<const QGraphicsRectItem*>(over);
    ASSERT_NE(patch, nullptr) << "at " << p.x() << "," << p.y();
    EXPECT_EQ(patch->brush(), chart.chart()->backgroundBrush());
    EXPECT_EQ(patch->brush().color().alpha(), 255);
  }
}

// "mean of the repeats ± 1 sd" was the title of a single run's chart too.
TEST(RaceChartView, SaysMeanAndSdOnlyWhereThereAreRepeats) {
  RaceData data;
  data.reset(info(1));
  RaceChartView chart(&data, RaceChartView::XAxis::Trials);
  EXPECT_FALSE(chart.chart()->title().contains("sd")) << chart.chart()->title().toStdString();
  EXPECT_FALSE(chart.chart()->title().contains("mean")) << chart.chart()->title().toStdString();
  for (QLegendMarker* m : chart.chart()->legend()->markers())
    EXPECT_FALSE(m->isVisible() && m->label().contains("sd")) << m->label().toStdString();
  data.reset(info(3));
  EXPECT_TRUE(chart.chart()->title().contains("mean of the repeats ± 1 sd"))
      << chart.chart()->title().toStdString();
  // A run resumed alone keeps its own repeat (the third): still one run, no mean.
  data.reset(info(1));
  data.append({trial(2, 1, 5), trial(2, 2, 7)});
  EXPECT_EQ(data.curve(0, 2).trials, 2);
  EXPECT_FALSE(chart.chart()->title().contains("mean")) << chart.chart()->title().toStdString();
}

// Speeds within a decade (9,000 to 14,000 GFLOP/s) were labelled by one "10000" on a log axis:
// labels between the decades, never on top of each other.
TEST(RaceChartView, ALogAxisWithinADecadeIsLabelledBetweenItsDecades) {
  RaceData data;
  data.reset(info(1));
  RaceChartView chart(&data, RaceChartView::XAxis::Trials);
  chart.resize(600, 400);
  chart.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&chart));
  data.append({trial(0, 1, 9000), trial(0, 2, 11000), trial(0, 3, 14000)});
  chart.setLogY(true);
  chart.refresh(true);
  QTest::qWait(50);  // the plot is laid out again
  const QStringList labels = chart.logYLabels();
  // 7,500 to 16,800 shown: 8000, 9000, 12000, 15000 beside the axis's own 10000.
  EXPECT_GE(labels.size(), 2) << "only the decade's 10000";
  for (const QString& l : labels) {
    EXPECT_FALSE(l.contains('e')) << l.toStdString();
    EXPECT_NE(l, "10000");  // the axis's own
  }
  // Across four decades the decades are labels enough.
  data.append({trial(0, 4, 9e6)});
  chart.refresh(true);
  QTest::qWait(50);
  EXPECT_TRUE(chart.logYLabels().isEmpty()) << chart.logYLabels().join(',').toStdString();
  chart.setLogY(false);
  EXPECT_TRUE(chart.logYLabels().isEmpty());
}

// A best holds until the next better trial: the curve rises straight up at the trial that beat
// it, never as a ramp from the trial before.
TEST(RaceChartView, ABestSoFarCurveIsDrawnAsSteps) {
  for (const auto axis : {RaceChartView::XAxis::Trials, RaceChartView::XAxis::Seconds}) {
    RaceData data;
    data.reset(info(1));
    RaceChartView chart(&data, axis);
    chart.setShowRepeats(true);
    std::vector<TrialPoint> trials;
    const double best[] = {5, 5, 5, 9, 9, 12};
    for (int seq = 1; seq <= 6; ++seq) trials.push_back(trial(0, seq, best[seq - 1]));
    data.append(trials);
    data.finishAll();
    chart.refresh(true);
    int lines = 0;
    for (QAbstractSeries* s : chart.chart()->series()) {
      auto* line = qobject_cast<QLineSeries*>(s);
      if (!line || line->count() < 2 || !line->isVisible()) continue;
      const QList<QPointF> points = line->points();
      if (points.front().y() != 5) continue;  // the optimum's and the library's lines
      ++lines;
      for (qsizetype i = 1; i < points.size(); ++i)
        EXPECT_TRUE(points[i].x() == points[i - 1].x() || points[i].y() == points[i - 1].y())
            << line->name().toStdString() << ": (" << points[i - 1].x() << ", " << points[i - 1].y()
            << ") to (" << points[i].x() << ", " << points[i].y() << ")";
    }
    EXPECT_GE(lines, 2);  // the mean and the repeat
  }
}

}  // namespace
}  // namespace opevo::ui
