#include "ui/charts/network_curve_chart.h"

#include <QChart>
#include <QFontMetrics>
#include <QGraphicsLayout>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPen>
#include <QScatterSeries>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <limits>

#include "ui/charts/legend_rows.h"
#include "ui/charts/log_axis_labels.h"
#include "ui/charts/plot_note.h"
#include "ui/charts/race_chart_view.h"

namespace opevo::ui {

namespace {

// 1, 2 or 5 times a power of ten: about `ticks` ticks at round numbers over the span (as the
// Runs page's charts tick), where Qt's nice numbers with a short chart's dropped labels read
// 100, 60, 20, 0.
double niceStep(double span, int ticks) {
  const double raw = std::max(span, 1e-12) / ticks;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / power;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * power;
}

// Values more than this far apart (libtorch's 11 ms beside a tuned 0.01 ms) go on a log axis:
// on a linear one the smaller lies flat on zero.
constexpr double kLogSpan = 30;

}  // namespace

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
    : QChartView(parent),
      m_x(new QValueAxis),
      m_y(new QValueAxis),
      m_yLog(new QLogValueAxis),
      m_logLabels(new LogAxisLabels(chart())),
      // Narrow margins, as the Runs page's charts have: Qt's 20 pixels a side went from the plot.
      m_legend(new LegendRows(chart(), QMargins(4, 4, 4, 4))),
      m_emptyNote(new PlotNote(chart(), palette().color(QPalette::PlaceholderText))) {
  setRenderHint(QPainter::Antialiasing);
  m_titles = {tr("Network latency against trials"), tr("Latency against trials")};
  applyTitle();
  setToolTip(
      tr("Lines: the sum of weight x best task latency after each unit. Circles: the tuned "
         "network measured end to end. Squares: the network kept instead, where the untuned "
         "or each task's faster configuration ran faster end to end. Dashed: libtorch's "
         "forward on this machine."));
  // Qt's legend is hidden: LegendRows draws its entries (fitLegend), in its font.
  QFont small = chart()->legend()->font();
  small.setPointSizeF(small.pointSizeF() * 0.85);
  chart()->legend()->setFont(small);
  chart()->legend()->hide();
  m_x->setTitleText(tr("trials (whole network)"));
  // The title says latency: "ms" is all the axis needs, and fits a short chart (an 800x600
  // screen's), where Qt Charts elided "latency (ms)".
  m_y->setTitleText(tr("ms"));
  m_y->setLabelFormat(QStringLiteral("%g"));
  m_y->setTickType(QValueAxis::TicksDynamic);
  m_yLog->setTitleText(tr("ms (log)"));
  m_yLog->setBase(10);
  m_yLog->setMinorTickCount(8);
  m_yLog->setLabelFormat(QStringLiteral("%g"));
  m_yLog->setParent(this);  // kept while off the chart
  m_x->setLabelFormat(QStringLiteral("%d"));
  chart()->addAxis(m_x, Qt::AlignBottom);
  chart()->addAxis(m_y, Qt::AlignLeft);
  // Axes with a range before the first snapshot, so the empty chart shows them (whole ticks:
  // 0..10 in five would label 2.5 as "2").
  resetAxes();
  setMinimumHeight(220);
}

QString NetworkCurveChart::emptyNote() const {
  return m_emptyNote->text();
}

void NetworkCurveChart::resetAxes() {
  m_emptyNote->setText(tr("No latency yet"));
  setLogY(false);
  m_x->setTickType(QValueAxis::TicksFixed);
  m_x->setRange(0, 8);
  m_x->applyNiceNumbers();
  m_y->setTickInterval(0.25);
  m_y->setRange(0, 1);
}

QAbstractAxis* NetworkCurveChart::yAxis() const {
  return m_logY ? static_cast<QAbstractAxis*>(m_yLog) : m_y;
}

void NetworkCurveChart::setLogY(bool on) {
  if (on == m_logY) return;
  QAbstractAxis* from = yAxis();
  m_logY = on;
  QAbstractAxis* to = yAxis();
  // A log axis cannot hold the linear one's 0: the new range first, then the series.
  if (on) m_yLog->setRange(0.001, 1);
  for (QAbstractSeries* series : chart()->series()) series->detachAxis(from);
  chart()->removeAxis(from);
  from->setParent(this);
  chart()->addAxis(to, Qt::AlignLeft);
  for (QAbstractSeries* series : chart()->series()) series->attachAxis(to);
  m_logLabels->setAxis(on ? m_yLog : nullptr);
}

void NetworkCurveChart::applyTitle() {
  const QFontMetrics metrics(chart()->titleFont());
  // The title gets the chart's width less its layout's margins and its own: Qt Charts cut a
  // title measured against the whole view ("Latency, once each task has a kernel: 1...").
  qreal left = 0, top = 0, right = 0, bottom = 0;
  chart()->layout()->getContentsMargins(&left, &top, &right, &bottom);
  // The view's width, which the chart takes (it has none of its own before it is first shown).
  const int room = width() - static_cast<int>(left + right) - chart()->margins().left() -
                   chart()->margins().right() - 8;
  for (const QString& title : m_titles)
    if (metrics.horizontalAdvance(title) <= room) {
      chart()->setTitle(title);
      return;
    }
  chart()->setTitle(metrics.elidedText(m_titles.last(), Qt::ElideRight, room));
}

void NetworkCurveChart::fitLegend() {
  // Each contender's line and the reference line, whole, in rows below the plot: in one row Qt
  // Charts elided every entry ("ope… aut… ope… aut… libt…" at 1024x700), and on the right the
  // legend took the plot's width (six contenders left it 110 pixels of a 320-pixel chart). The
  // end-to-end markers have no entry: their colour is their curve's.
  std::vector<LegendRows::Entry> entries;
  for (const QLineSeries* curve : m_curves)
    entries.push_back({curve->name(), QPen(curve->color())});
  if (m_reference) entries.push_back({m_reference->name(), m_reference->pen()});
  m_legend->show(entries, chart()->legend()->font(), width());
}

void NetworkCurveChart::resizeEvent(QResizeEvent* event) {
  QChartView::resizeEvent(event);
  applyTitle();
  fitLegend();
}

void NetworkCurveChart::clear() {
  chart()->removeAllSeries();
  m_curves.clear();
  m_measured.clear();
  m_kept.clear();
  m_reference = nullptr;
  // Nothing of the race before stays: its axes, legend and title neither.
  resetAxes();
  fitLegend();
  m_titles = {tr("Network latency against trials"), tr("Latency against trials")};
  applyTitle();
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
      // Where the untuned or mixed network was kept, its time beside the tuned one's: the
      // finished line names the kept network, and the chart alone showed the tuned time.
      auto* kept = new QScatterSeries;
      kept->setName(names.legend[static_cast<qsizetype>(i)] + tr(" kept network end to end"));
      // Hollow and larger than the circle: a kept time just over 3% below the tuned one lies
      // on it, and a filled square hid it.
      kept->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
      kept->setBrush(Qt::NoBrush);
      kept->setPen(QPen(color, 2));
      kept->setMarkerSize(15);
      for (QAbstractSeries* series :
           {static_cast<QAbstractSeries*>(curve), static_cast<QAbstractSeries*>(measured),
            static_cast<QAbstractSeries*>(kept)}) {
        chart()->addSeries(series);
        series->attachAxis(m_x);
        series->attachAxis(yAxis());
      }
      m_curves.push_back(curve);
      m_measured.push_back(measured);
      m_kept.push_back(kept);
    }
  }
  double xMax = 8, yMax = 0, yMin = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < s.contenders.size(); ++i) {
    const ContenderState& c = s.contenders[i];
    xMax = std::max({xMax, static_cast<double>(c.budget), static_cast<double>(c.trials)});
    QList<QPointF> points;
    for (std::size_t k = 0; k < c.curveTrials.size(); ++k)
      if (std::isfinite(c.curveEstimateMs[k])) {
        points.append({c.curveTrials[k], c.curveEstimateMs[k]});
        yMax = std::max(yMax, c.curveEstimateMs[k]);
        yMin = std::min(yMin, c.curveEstimateMs[k]);
      }
    m_curves[i]->replace(points);
    QList<QPointF> measured;
    if (std::isfinite(c.endToEndMs)) {
      measured.append({static_cast<double>(c.trials), c.endToEndMs});
      yMax = std::max(yMax, c.endToEndMs);
      yMin = std::min(yMin, c.endToEndMs);
    }
    m_measured[i]->replace(measured);
    QList<QPointF> kept;
    if (const net::StoredEndToEnd* k = c.comparison.keptOtherRun();
        k && std::isfinite(c.endToEndMs)) {
      kept.append({static_cast<double>(c.trials), k->ms});
      yMax = std::max(yMax, k->ms);
      yMin = std::min(yMin, k->ms);
    }
    m_kept[i]->replace(kept);
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
  m_emptyNote->setText(drawn ? QString() : tr("No latency yet"));
  if (!drawn && tasks > 0)
    m_titles = {tr("Latency, once each task has a kernel: %1 of %2").arg(ready).arg(tasks),
                tr("Tasks with a kernel: %1 of %2").arg(ready).arg(tasks),
                tr("Kernels: %1 of %2").arg(ready).arg(tasks)};
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
      m_reference->attachAxis(yAxis());
    }
    // Three decimals below a millisecond (a small network's 0.027 ms, not 0.0).
    m_reference->setName(tr("%1 %2 ms")
                             .arg(s.referenceLegend)
                             .arg(*s.referenceMs, 0, 'f', *s.referenceMs < 1 ? 3 : 1));
    yMax = std::max(yMax, *s.referenceMs);
    yMin = std::min(yMin, *s.referenceMs);
  }
  // The budget's range, as the trials chart beside it has (the end-to-end markers sit at its
  // right edge): 4% of room for them made a 200-trial axis run to 400. Trials are whole, so a
  // race with none yet shows 0 to 8 rather than fractions printed as 0, 0, 1.
  fitLegend();
  m_x->setRange(0, xMax);
  m_x->applyNiceNumbers();
  if (s.referenceMs)  // across the whole axis, as nice numbers made it
    m_reference->replace(QList<QPointF>{{0, *s.referenceMs}, {m_x->max(), *s.referenceMs}});
  setLogY(yMin > 0 && yMax / yMin > kLogSpan);
  if (m_logY) {
    m_yLog->setRange(std::pow(10.0, std::floor(std::log10(yMin / 1.2))),
                     std::pow(10.0, std::ceil(std::log10(yMax * 1.2))));
  } else {
    const double top = yMax > 0 ? yMax * 1.08 : 1;
    // Interval before range: the other order briefly asks for thousands of ticks.
    const double step = niceStep(top, 4);
    m_y->setTickInterval(step);
    m_y->setRange(0, std::ceil(top / step) * step);
  }
}

int NetworkCurveChart::curvePointCount(int contender) const {
  return contender >= 0 && contender < static_cast<int>(m_curves.size())
             ? static_cast<int>(m_curves[contender]->count())
             : 0;
}

std::optional<QPointF> NetworkCurveChart::keptMarker(int contender) const {
  if (contender < 0 || contender >= static_cast<int>(m_kept.size()) ||
      m_kept[contender]->count() == 0)
    return std::nullopt;
  return m_kept[contender]->at(0);
}

bool NetworkCurveChart::hasReferenceLine() const {
  return m_reference && m_reference->count() == 2;
}

}  // namespace opevo::ui
