#include "ui/charts/network_curve_chart.h"

#include <QChart>
#include <QFontMetrics>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QValueAxis>
#include <algorithm>
#include <cmath>

#include "ui/charts/race_chart_view.h"

namespace opevo::ui {

ContenderNames contenderNames(const QStringList& labels) {
  // Labels are "algorithm / scheduler / mode[ + templates]": what every contender shares goes to
  // the title once, the legend keeps what tells them apart (the algorithm where nothing does).
  std::vector<QStringList> parts;
  for (const QString& label : labels) parts.push_back(label.split(QStringLiteral(" / ")));
  ContenderNames names;
  if (parts.empty()) return names;
  std::size_t columns = parts[0].size();
  for (const QStringList& p : parts)
    columns = std::min(columns, static_cast<std::size_t>(p.size()));
  std::vector<bool> common(columns, true);
  for (std::size_t k = 0; k < columns; ++k)
    for (const QStringList& p : parts) common[k] = common[k] && p[k] == parts[0][k];
  if (std::all_of(common.begin(), common.end(), [](bool c) { return c; }) && columns > 0)
    common[0] = false;
  QStringList shared;
  for (std::size_t k = 0; k < columns; ++k)
    if (common[k]) shared << parts[0][k];
  names.shared = shared.join(QStringLiteral(" / "));
  for (const QStringList& p : parts) {
    QStringList own;
    for (qsizetype k = 0; k < p.size(); ++k)
      if (static_cast<std::size_t>(k) >= columns || !common[static_cast<std::size_t>(k)])
        own << p[k];
    names.legend << own.join(QStringLiteral(" / "));
  }
  return names;
}

NetworkCurveChart::NetworkCurveChart(QWidget* parent)
    : QChartView(parent), m_x(new QValueAxis), m_y(new QValueAxis) {
  setRenderHint(QPainter::Antialiasing);
  m_titles = {tr("Network latency against trials"), tr("Latency against trials")};
  applyTitle();
  setToolTip(
      tr("Lines: the sum of weight x best task latency after each unit. Markers: the tuned "
         "network measured end to end. Dashed: libtorch's forward on this machine."));
  QFont small = chart()->legend()->font();
  small.setPointSizeF(small.pointSizeF() * 0.85);
  chart()->legend()->setFont(small);
  chart()->legend()->setAlignment(Qt::AlignBottom);
  m_x->setTitleText(tr("trials (whole network)"));
  // The title says latency: "ms" is all the axis needs, and fits a short chart (an 800x600
  // screen's), where Qt Charts elided "latency (ms)".
  m_y->setTitleText(tr("ms"));
  m_x->setLabelFormat(QStringLiteral("%d"));
  chart()->addAxis(m_x, Qt::AlignBottom);
  chart()->addAxis(m_y, Qt::AlignLeft);
  // Axes with a range before the first snapshot, so the empty chart shows them (whole ticks:
  // 0..10 in five would label 2.5 as "2").
  m_x->setRange(0, 8);
  m_y->setRange(0, 1);
  setMinimumHeight(220);
}

void NetworkCurveChart::applyTitle() {
  const QFontMetrics metrics(chart()->titleFont());
  // The chart's margins and the title's own padding take a little of the view's width.
  const int room = width() - 24;
  for (const QString& title : m_titles)
    if (metrics.horizontalAdvance(title) <= room) {
      chart()->setTitle(title);
      return;
    }
  chart()->setTitle(metrics.elidedText(m_titles.last(), Qt::ElideRight, room));
}

void NetworkCurveChart::resizeEvent(QResizeEvent* event) {
  QChartView::resizeEvent(event);
  applyTitle();
}

void NetworkCurveChart::clear() {
  chart()->removeAllSeries();
  m_curves.clear();
  m_measured.clear();
  m_reference = nullptr;
}

void NetworkCurveChart::setSnapshot(const NetworkSnapshot& s) {
  QStringList labels;
  for (const ContenderState& c : s.contenders) labels << c.label;
  const ContenderNames names = contenderNames(labels);
  if (m_curves.size() != s.contenders.size()) {
    clear();
    for (std::size_t i = 0; i < s.contenders.size(); ++i) {
      const QColor color = RaceChartView::colorOf(static_cast<int>(i));
      auto* curve = new QLineSeries;
      curve->setName(names.legend[static_cast<qsizetype>(i)]);
      curve->setColor(color);
      curve->setPointsVisible(true);  // the first estimate is a lone point until the next unit
      auto* measured = new QScatterSeries;
      measured->setName(names.legend[static_cast<qsizetype>(i)] + tr(" measured end to end"));
      measured->setColor(color);
      measured->setMarkerSize(11);
      for (QAbstractSeries* series :
           {static_cast<QAbstractSeries*>(curve), static_cast<QAbstractSeries*>(measured)}) {
        chart()->addSeries(series);
        series->attachAxis(m_x);
        series->attachAxis(m_y);
      }
      for (QLegendMarker* m : chart()->legend()->markers(measured)) m->setVisible(false);
      m_curves.push_back(curve);
      m_measured.push_back(measured);
    }
  }
  double xMax = 1, yMax = 0;
  for (std::size_t i = 0; i < s.contenders.size(); ++i) {
    const ContenderState& c = s.contenders[i];
    xMax = std::max(xMax, static_cast<double>(c.budget));
    QList<QPointF> points;
    for (std::size_t k = 0; k < c.curveTrials.size(); ++k)
      if (std::isfinite(c.curveEstimateMs[k])) {
        points.append({c.curveTrials[k], c.curveEstimateMs[k]});
        yMax = std::max(yMax, c.curveEstimateMs[k]);
      }
    m_curves[i]->replace(points);
    QList<QPointF> measured;
    if (std::isfinite(c.endToEndMs)) {
      measured.append({static_cast<double>(c.trials), c.endToEndMs});
      yMax = std::max(yMax, c.endToEndMs);
    }
    m_measured[i]->replace(measured);
  }
  // The estimate is a sum over every task: until each has a working kernel the chart is empty,
  // and says why rather than look stalled.
  bool drawn = false;
  std::size_t ready = 0, tasks = 0;
  for (std::size_t i = 0; i < s.contenders.size(); ++i) {
    drawn = drawn || m_curves[i]->count() > 0 || m_measured[i]->count() > 0;
    const std::vector<double>& best = s.contenders[i].taskBestMs;
    tasks = best.size();
    ready = std::max<std::size_t>(ready, std::count_if(best.begin(), best.end(), [](double ms) {
                                    return std::isfinite(ms);
                                  }));
  }
  // One line: a second one took the height a short chart (an 800x600 screen) needs for its
  // axes' labels, which Qt Charts then elided to "...".
  // At 1024x700 the chart is about 270 px wide: "Network latency against trials (gradi" was cut
  // there, so shorter forms follow, the shared part (which the legend does not say) kept longest.
  if (!drawn && tasks > 0)
    m_titles = {tr("Latency, once each task has a kernel: %1 of %2").arg(ready).arg(tasks),
                tr("Tasks with a kernel: %1 of %2").arg(ready).arg(tasks)};
  else if (names.shared.isEmpty())
    m_titles = {tr("Network latency against trials"), tr("Latency against trials")};
  else
    m_titles = {tr("Network latency against trials (%1)").arg(names.shared),
                tr("Latency against trials (%1)").arg(names.shared),
                tr("Latency (%1)").arg(names.shared)};
  applyTitle();
  if (s.referenceMs) {
    if (!m_reference) {
      m_reference = new QLineSeries;
      QPen pen(Qt::black, 1.5, Qt::DashLine);
      m_reference->setPen(pen);
      chart()->addSeries(m_reference);
      m_reference->attachAxis(m_x);
      m_reference->attachAxis(m_y);
    }
    // Three decimals below a millisecond (a small network's 0.027 ms, not 0.0).
    m_reference->setName(tr("%1 %2 ms")
                             .arg(s.referenceLegend)
                             .arg(*s.referenceMs, 0, 'f', *s.referenceMs < 1 ? 3 : 1));
    yMax = std::max(yMax, *s.referenceMs);
  }
  // Room for the end-to-end markers at the last trial; trials are whole, so a race with none
  // yet (or one that failed at its start) shows 0 to 10 rather than fractions printed as 0, 0, 1.
  m_x->setRange(0, std::max(10.0, xMax * 1.04));
  m_x->applyNiceNumbers();
  if (s.referenceMs)  // across the whole axis, as nice numbers made it
    m_reference->replace(QList<QPointF>{{0, *s.referenceMs}, {m_x->max(), *s.referenceMs}});
  m_y->setRange(0, yMax > 0 ? yMax * 1.08 : 1);
  m_y->applyNiceNumbers();
}

int NetworkCurveChart::curvePointCount(int contender) const {
  return contender >= 0 && contender < static_cast<int>(m_curves.size())
             ? static_cast<int>(m_curves[contender]->count())
             : 0;
}

bool NetworkCurveChart::hasReferenceLine() const {
  return m_reference && m_reference->count() == 2;
}

}  // namespace opevo::ui
