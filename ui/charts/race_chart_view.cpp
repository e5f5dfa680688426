#include "ui/charts/race_chart_view.h"

#include <QAreaSeries>
#include <QChart>
#include <QCursor>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLocale>
#include <QLogValueAxis>
#include <QMouseEvent>
#include <QToolTip>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>

#include "ui/charts/log_axis_labels.h"
#include "ui/charts/plot_note.h"
#include "ui/controller/race_data.h"

namespace opevo::ui {
namespace {

QString number(double v) {
  return QLocale().toString(v, 'f', v >= 100 ? 0 : v >= 1 ? 2 : 4);
}

// 1, 2 or 5 times a power of ten: ticks at round numbers, about `ticks` of them over the span.
double niceStep(double span, int ticks) {
  const double raw = std::max(span, 1e-12) / ticks;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  const double f = raw / power;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * power;
}

void hideMarker(QChart* chart, QAbstractSeries* series) {
  for (QLegendMarker* m : chart->legend()->markers(series)) m->setVisible(false);
}

}  // namespace

// Colour-blind-safe (Okabe-Ito, then two of Paul Tol's), in an order where the first two
// contrast most.
constexpr QRgb kPalette[] = {0x0072B2, 0xD55E00, 0x009E73, 0xCC79A7, 0xE69F00,
                             0x56B4E9, 0x7F3C8D, 0x444444, 0x999933, 0x882255};

QStringList RaceChartView::logYLabels() const {
  return m_logLabels->texts();
}

QColor RaceChartView::colorOf(int index) {
  return QColor(kPalette[index % static_cast<int>(std::size(kPalette))]);
}

std::vector<QColor> RaceChartView::colorsOf(const QStringList& algorithms) {
  // Each algorithm's place in the palette, chosen so that the races run most (opevo-m or opevo
  // against autotvm, ansor or random) get the most distinct pairs. An algorithm not listed here
  // takes the first colour free in its race.
  // The grey goes to the one raced least, beside the optimum's grey dashed line. Ansor had the
  // orange beside autotvm's vermilion: once their bands overlapped they read as one colour. It
  // has the olive, at least 50 CIELAB units from each of the five raced most.
  static const std::map<std::string, int> preferred = {
      {"opevo-m", 2},   {"opevo", 0},   {"autotvm", 1}, {"ansor", 8}, {"random", 3},
      {"annealing", 5}, {"genetic", 4}, {"gbfs", 6},    {"na2c", 9},  {"exhaustive", 7}};
  constexpr int kColors = static_cast<int>(std::size(kPalette));
  std::vector<bool> taken(kColors, false);
  std::vector<int> chosen(static_cast<std::size_t>(algorithms.size()), -1);
  // Known algorithms first, so that an unknown one listed before them cannot take their colour.
  for (int a = 0; a < algorithms.size(); ++a) {
    // A stored run's label may carry more after the name ("opevo-m (imported)").
    const std::string name = algorithms[a].section(QLatin1Char(' '), 0, 0).toStdString();
    const auto it = preferred.find(name);
    if (it != preferred.end() && !taken[static_cast<std::size_t>(it->second)]) {
      chosen[static_cast<std::size_t>(a)] = it->second;
      taken[static_cast<std::size_t>(it->second)] = true;
    }
  }
  std::vector<QColor> colors;
  for (int a = 0; a < algorithms.size(); ++a) {
    int& c = chosen[static_cast<std::size_t>(a)];
    for (int i = 0; c < 0 && i < kColors; ++i)
      if (!taken[static_cast<std::size_t>(i)]) c = i, taken[static_cast<std::size_t>(i)] = true;
    colors.push_back(colorOf(c < 0 ? a : c));  // more algorithms than colours: they repeat
  }
  return colors;
}

RaceChartView::RaceChartView(RaceData* data, XAxis xAxis, QWidget* parent)
    : QChartView(new QChart, parent),
      m_data(data),
      m_xAxis(xAxis),
      m_logLabels(new LogAxisLabels(chart())),
      m_emptyNote(new PlotNote(chart(), palette().color(QPalette::PlaceholderText))) {
  setRenderHint(QPainter::Antialiasing);
  chart()->legend()->setAlignment(Qt::AlignBottom);
  // An entry the legend has to shorten ("rand…") is whole in its tooltip.
  chart()->legend()->setShowToolTips(true);
  chart()->setMargins(QMargins(4, 4, 4, 4));
  // Title, subtitle, axes and legend take about ten lines of text: below that the plot shrinks
  // to a strip and Qt Charts elides every tick label ("…"), as History did on an 800x600
  // screen. A splitter or a scroll area beside the chart gives way instead.
  setMinimumHeight(18 * fontMetrics().height());
  connect(m_data, &RaceData::wasReset, this, &RaceChartView::rebuild);
  connect(m_data, &RaceData::infoChanged, this, &RaceChartView::rebuild);
  rebuild();
}

void RaceChartView::attach(QAbstractSeries* series) {
  chart()->addSeries(series);
  series->attachAxis(m_axisX);
  series->attachAxis(m_axisY);
}

void RaceChartView::makeAxes() {
  for (QAbstractAxis* axis : chart()->axes()) {
    chart()->removeAxis(axis);
    delete axis;
  }
  auto make = [](bool log) -> QAbstractAxis* {
    if (log) {
      auto* axis = new QLogValueAxis;
      axis->setBase(10);
      axis->setMinorTickCount(8);
      axis->setLabelFormat(QStringLiteral("%g"));
      return axis;
    }
    auto* axis = new QValueAxis;
    axis->setLabelFormat(QStringLiteral("%g"));
    axis->setTickType(QValueAxis::TicksDynamic);
    return axis;
  };
  m_axisX = make(m_logX);
  m_axisY = make(m_logY);
  const RaceData::Clock clock = m_data->clock();
  QString time = clockName(clock);
  time = clock == RaceData::Clock::Both
             ? tr("Time (s): a replay's by its file, others' tuning time")
             : tr("%1 (s)").arg(time.at(0).toUpper() + time.mid(1));
  m_axisX->setTitleText(m_xAxis == XAxis::Trials ? tr("Trials") : time);
  const QString unit = m_data->info().speedUnit;
  // The chart's title says "best speed"; the axis only needs the unit (a long title is clipped).
  m_axisY->setTitleText(unit.isEmpty() ? tr("best") : unit);
  chart()->addAxis(m_axisX, Qt::AlignBottom);
  chart()->addAxis(m_axisY, Qt::AlignLeft);
  m_logLabels->setAxis(qobject_cast<QLogValueAxis*>(m_axisY));
}

void RaceChartView::rebuild() {
  chart()->removeAllSeries();  // deletes the bands, and with them their edges
  m_series.clear();
  m_optimum = nullptr;
  m_reference = nullptr;
  m_everyMultiplyAdd = nullptr;
  m_stage = nullptr;
  makeAxes();
  const RaceData::Info& info = m_data->info();
  // The title names the data (a replay of real measurements), so an exported figure still says
  // where its numbers come from.
  // The mean and its band only where there are repeats to take them over.
  const bool repeats = m_data->startedRepeats() > 1;
  const QString versus = m_xAxis == XAxis::Trials
                             ? tr("Best speed vs trials")
                             : tr("Best speed vs %1").arg(clockName(m_data->clock()));
  const QString what = repeats ? tr("%1: mean of the repeats ± 1 sd").arg(versus) : versus;
  chart()->setTitle(
      info.label.isEmpty()
          ? what
          : QStringLiteral("%1<br><small>%2</small>").arg(what, info.label.toHtmlEscaped()));
  const std::vector<QColor> colors = colorsOf(info.algorithms);
  for (int a = 0; a < info.algorithms.size(); ++a) {
    AlgorithmSeries s;
    const QColor color = colors[static_cast<std::size_t>(a)];
    s.upper = new QLineSeries;
    s.lower = new QLineSeries;
    s.band = new QAreaSeries(s.upper, s.lower);
    // The edges are never added to the chart and a QAreaSeries does not own them: they go with
    // their band.
    s.upper->setParent(s.band);
    s.lower->setParent(s.band);
    s.band->setName(repeats ? tr("%1 ± 1 sd").arg(info.algorithms[a]) : info.algorithms[a]);
    QColor fill = color;
    fill.setAlpha(50);
    s.band->setBrush(fill);
    s.band->setPen(Qt::NoPen);
    attach(s.band);
    hideMarker(chart(), s.band);
    for (int r = 0; r < info.repeats; ++r) {
      auto* line = new QLineSeries;
      QColor faint = color;
      faint.setAlpha(150);
      line->setPen(QPen(faint, 1.2));
      line->setName(tr("%1 repeat %2").arg(info.algorithms[a]).arg(r + 1));
      line->setVisible(m_showRepeats);
      attach(line);
      hideMarker(chart(), line);
      connect(line, &QLineSeries::hovered, this, [this, a, r, line](const QPointF& p, bool state) {
        showTip(tr("%1, repeat %2\n%3: best %4 %5")
                    .arg(m_data->info().algorithms.value(a))
                    .arg(r + 1)
                    .arg(m_xAxis == XAxis::Trials ? tr("trial %1").arg(std::lround(p.x()))
                                                  : tr("%1 s").arg(p.x(), 0, 'f', 2))
                    .arg(number(p.y()), m_data->info().speedUnit),
                state && line->isVisible());
      });
      s.repeats.push_back(line);
    }
    s.mean = new QLineSeries;
    s.mean->setName(info.algorithms[a]);
    s.mean->setPen(QPen(color, 2.5));
    attach(s.mean);
    m_series.push_back(s);
  }
  if (info.optimum) {
    m_optimum = new QLineSeries;
    m_optimum->setName(tr("dataset optimum %1 %2").arg(number(*info.optimum), info.speedUnit));
    m_optimum->setPen(QPen(QColor(0x55, 0x55, 0x55), 1.5, Qt::DashLine));
    attach(m_optimum);
  }
  if (info.reference) {
    const ReferenceLine& ref = *info.reference;
    m_reference = new QLineSeries;
    m_reference->setPen(QPen(QColor(0xb0, 0x30, 0x30), 1.5, Qt::DashDotLine));
    attach(m_reference);
    if (ref.everyMultiplyAdd) {
      // cuDNN's FFT on a convolution outruns the GPU's peak by doing fewer multiply-adds: the
      // curves of kernels that do them all are measured against this line.
      m_everyMultiplyAdd = new QLineSeries;
      m_everyMultiplyAdd->setPen(QPen(QColor(0xd0, 0x70, 0x70), 1.5, Qt::DotLine));
      attach(m_everyMultiplyAdd);
    }
    // The whole description on a hover over the line, or over its legend entry (which may name
    // the library alone).
    for (QLineSeries* line : {m_reference, m_everyMultiplyAdd}) {
      if (!line) continue;
      const auto tip = [this, line](bool state) {
        showTip(line == m_reference ? referenceTip() : everyMultiplyAddTip(), state);
      };
      connect(line, &QLineSeries::hovered, this, [tip](const QPointF&, bool state) { tip(state); });
      for (QLegendMarker* marker : chart()->legend()->markers(line))
        connect(marker, &QLegendMarker::hovered, this, tip);
    }
    nameLibraryLines(m_shortLegend);
  }
  if (info.stageBoundary && m_xAxis == XAxis::Trials) {
    m_stage = new QLineSeries;
    // Named for the joint space's curves: in a race across spaces the loop curves beside them
    // have no stage.
    const bool acrossSpaces = std::any_of(info.algorithms.begin(), info.algorithms.end(),
                                          [](const QString& a) { return a.endsWith(" (loop)"); });
    m_stage->setName(
        acrossSpaces
            ? tr("joint: layouts fixed after trial %1, loops only").arg(*info.stageBoundary)
            : tr("layouts fixed after trial %1, loops only").arg(*info.stageBoundary));
    m_stage->setPen(QPen(QColor(0x30, 0x70, 0x30), 1.5, Qt::DotLine));
    attach(m_stage);
  }
  m_shownRevision = ~quint64{0};
  placeLegend();
  refresh(true);
}

Qt::Alignment RaceChartView::legendAlignment() const {
  return chart()->legend()->alignment();
}

void RaceChartView::resizeEvent(QResizeEvent* event) {
  QChartView::resizeEvent(event);
  placeLegend();
}

std::pair<QString, QString> RaceChartView::libraryLineNames(bool shortForm) const {
  const RaceData::Info& info = m_data->info();
  if (!info.reference) return {};
  const ReferenceLine& ref = *info.reference;
  // The speed first, then the library without how its algorithm was chosen ("the fastest of 6 by
  // cudnnFind, which timed it..."): the whole description is the line's tooltip. Where the entries
  // do not fit below the plot, the library's name alone: on the right, or elided on one row,
  // "246 TFLOPS: cuDNN convolution forward, algorithm 5 (t..." left the line unnamed at 1024
  // pixels. The note under the chart (RaceResultsWidget) names each line whole, with which timing
  // it is and the side-by-side figure.
  const QString library = ref.shortName().section(QLatin1Char(' '), 0, 0);
  std::pair<QString, QString> names;
  names.first =
      tr("%1 %2: %3").arg(number(ref.speed), info.speedUnit, shortForm ? library : ref.shortName());
  if (ref.everyMultiplyAdd)
    names.second =
        tr("%1 %2: %3, every multiply-add")
            .arg(number(ref.everyMultiplyAddSpeed()), info.speedUnit,
                 shortForm ? library : QString::fromStdString(ref.everyMultiplyAdd->name));
  return names;
}

void RaceChartView::nameLibraryLines(bool shortForm) {
  m_shortLegend = shortForm;
  const auto [reference, everyMultiplyAdd] = libraryLineNames(shortForm);
  if (m_reference) m_reference->setName(reference);
  if (m_everyMultiplyAdd) m_everyMultiplyAdd->setName(everyMultiplyAdd);
}

int RaceChartView::legendRowWidth(bool shortForm) const {
  // The entries drawn: each algorithm's mean and the reference lines (a marker's own isVisible()
  // is false until the legend has laid it out).
  QStringList names;
  for (const AlgorithmSeries& s : m_series) names << s.mean->name();
  for (const QAbstractSeries* line : {m_optimum, m_stage})
    if (line) names << line->name();
  const auto [reference, everyMultiplyAdd] = libraryLineNames(shortForm);
  if (m_reference) names << reference;
  if (m_everyMultiplyAdd) names << everyMultiplyAdd;
  const QFontMetrics fm(chart()->legend()->font());
  int needed = 2 * fm.height();  // the chart's margins
  for (const QString& name : names)
    needed += fm.horizontalAdvance(name) + 2 * fm.height();  // the marker and the gaps
  return needed;
}

void RaceChartView::placeLegend() {
  // Qt Charts lays a bottom legend out on one row and elides every entry when they do not all fit:
  // eight algorithms and the optimum at 1024 pixels read "rand…", "exha…", "datas…". Below the
  // plot, the library lines' whole descriptions while they fit, else the library's name alone;
  // when even those do not fit, on the right, where each entry has a line of its own and the plot
  // gives up the width (and gets it back when the chart is wide enough again). The chart's own
  // width decides, not the plot's, so moving the legend cannot move it back.
  const bool whole = legendRowWidth(false) <= width();
  const bool below = whole || legendRowWidth(true) <= width();
  if (m_shortLegend == whole) nameLibraryLines(!whole);
  QLegend* legend = chart()->legend();
  const Qt::Alignment wanted = below ? Qt::AlignBottom : Qt::AlignRight;
  if (legend->alignment() != wanted) legend->setAlignment(wanted);
}

double RaceChartView::clampY(double y) const {
  return m_logY ? std::max(y, m_minPositive) : std::max(y, 0.0);
}

void RaceChartView::refresh(bool force) {
  if (!force && m_shownRevision == m_data->revision()) return;
  m_shownRevision = m_data->revision();
  const RaceData::Info& info = m_data->info();
  double minPositive = info.optimum.value_or(0) > 0 ? *info.optimum : 1e300;
  if (info.reference && info.reference->speed > 0)
    minPositive = std::min(minPositive, info.reference->speed);
  if (info.reference && info.reference->everyMultiplyAdd)
    minPositive = std::min(minPositive, info.reference->everyMultiplyAddSpeed());
  for (int a = 0; a < info.algorithms.size(); ++a)
    for (const RunCurve* c : m_data->runsOf(a))
      for (const RunCurve::Step& step : c->steps)
        if (step.best > 0) minPositive = std::min(minPositive, step.best);
  m_minPositive = minPositive < 1e300 ? minPositive / 2 : 1;

  double xMin = 1e300, xMax = -1e300, yMin = 1e300, yMax = -1e300;
  auto extend = [&](double x, double y) {
    if (m_logX && x <= 0) return;
    xMin = std::min(xMin, x);
    xMax = std::max(xMax, x);
    yMin = std::min(yMin, y);
    yMax = std::max(yMax, y);
  };
  for (int a = 0; a < static_cast<int>(m_series.size()); ++a) {
    AlgorithmSeries& s = m_series[static_cast<std::size_t>(a)];
    const std::vector<const RunCurve*> runs = m_data->runsOf(a);
    s.stats = m_xAxis == XAxis::Trials ? bandByTrial(runs) : bandByTime(runs);
    QList<QPointF> mean, upper, lower;
    mean.reserve(static_cast<qsizetype>(s.stats.size()));
    for (std::size_t i = 0; i < s.stats.size(); ++i) {
      const double x = s.stats.x[i];
      if (m_logX && x <= 0) continue;
      // A best holds until the next better trial: drawn as steps, each value held up to the next
      // point and rising there, never as a ramp from the trial before (by time the band holds
      // only the times where it changes; by trial a point at every trial).
      if (!mean.isEmpty()) {
        mean.append({x, mean.back().y()});
        upper.append({x, upper.back().y()});
        lower.append({x, lower.back().y()});
      }
      mean.append({x, clampY(s.stats.mean[i])});
      upper.append({x, clampY(s.stats.mean[i] + s.stats.sd[i])});
      lower.append({x, clampY(s.stats.mean[i] - s.stats.sd[i])});
      extend(x, lower.back().y());
      extend(x, upper.back().y());
    }
    s.mean->replace(mean);
    s.upper->replace(upper);
    s.lower->replace(lower);
    for (int r = 0; r < static_cast<int>(s.repeats.size()); ++r) {
      QList<QPointF> points;
      if (m_showRepeats) {
        points = repeatLine(m_data->curve(a, r));
        for (const QPointF& p : points) extend(p.x(), p.y());
      }
      s.repeats[static_cast<std::size_t>(r)]->replace(points);
    }
  }
  const bool empty = xMin > xMax;
  if (empty) {  // nothing yet: a sensible empty frame
    xMin = m_logX ? 1 : 0;
    xMax = m_xAxis == XAxis::Trials ? 10 : 1;
    // From 0 to the lines drawn (the optimum, the library): a frame of the optimum alone spanned
    // 11,900 to 12,050 GFLOP/s, which says nothing of where a race will start.
    if (!m_logY) yMin = 0;
  }
  m_emptyNote->setText(!empty                                                ? QString()
                       : info.algorithms.isEmpty() && !m_noRunNote.isEmpty() ? m_noRunNote
                                                                             : tr("No trials yet"));
  if (m_optimum) {
    const double opt = clampY(*info.optimum);
    m_optimum->replace(QList<QPointF>{{xMin, opt}, {xMax, opt}});
    yMin = std::min(yMin, opt);
    yMax = std::max(yMax, opt);
  }
  if (m_reference) {
    const double ref = clampY(info.reference->speed);
    m_reference->replace(QList<QPointF>{{xMin, ref}, {xMax, ref}});
    yMin = std::min(yMin, ref);
    yMax = std::max(yMax, ref);
  }
  if (m_everyMultiplyAdd) {
    const double direct = clampY(info.reference->everyMultiplyAddSpeed());
    m_everyMultiplyAdd->replace(QList<QPointF>{{xMin, direct}, {xMax, direct}});
    yMin = std::min(yMin, direct);
  }
  if (yMin > yMax) {
    yMin = m_logY ? 1 : 0;
    yMax = 1;
  }
  if (m_stage) {
    const double x = *info.stageBoundary;
    xMin = std::min(xMin, x);
    xMax = std::max(xMax, x);
    m_stage->replace(QList<QPointF>{{x, clampY(yMin)}, {x, yMax}});
  }
  if (m_logY) {
    m_axisY->setRange(yMin / 1.2, yMax * 1.2);
  } else {
    const double pad = std::max((yMax - yMin) * 0.05, yMax * 0.01 + 1e-12);
    // Interval before range: the other order briefly asks for thousands of labelled ticks
    // (the new range at the old interval), which costs hundreds of milliseconds of text layout.
    auto* axis = static_cast<QValueAxis*>(m_axisY);
    axis->setTickInterval(niceStep(yMax - yMin + 2 * pad, 6));
    m_axisY->setRange(std::max(0.0, yMin - pad), yMax + pad);
  }
  if (m_logX) {
    m_axisX->setRange(xMin, xMax * 1.05);
  } else {
    // A single point (one trial, or one time) still gets a span: the interval follows the range
    // shown, or a zero span would ask for a tick every 1e-13.
    const double lo = xMin == xMax ? xMin - 1 : xMin;
    auto* axis = static_cast<QValueAxis*>(m_axisX);
    // Trials are whole: a short race's axis ticks every trial, not at 1.5.
    const double step = niceStep(xMax - lo, 8);
    axis->setTickInterval(m_xAxis == XAxis::Trials ? std::max(1.0, step) : step);
    m_axisX->setRange(lo, xMax);
  }
}

QList<QPointF> RaceChartView::repeatLine(const RunCurve& c) const {
  // The run's steps, each best held until the trial (or time) of the next improvement, where the
  // line rises straight up.
  QList<QPointF> points;
  const bool byTrial = m_xAxis == XAxis::Trials;
  for (const RunCurve::Step& step : c.steps) {
    const double x = byTrial ? step.trial : step.seconds;
    if (m_logX && x <= 0) continue;
    if (!points.isEmpty() && x > points.back().x()) points.append({x, points.back().y()});
    points.append({x, clampY(step.best)});
  }
  const double end = byTrial ? c.trials : c.lastSeconds;
  if (!points.isEmpty() && end > points.back().x()) points.append({end, points.back().y()});
  return points;
}

void RaceChartView::setLogX(bool on) {
  if (m_logX == on) return;
  m_logX = on;
  rebuild();
}

void RaceChartView::setLogY(bool on) {
  if (m_logY == on) return;
  m_logY = on;
  rebuild();
}

void RaceChartView::setShowRepeats(bool on) {
  if (m_showRepeats == on) return;
  m_showRepeats = on;
  for (AlgorithmSeries& s : m_series)
    for (QLineSeries* line : s.repeats) {
      line->setVisible(on);
      // The legend shows a series' marker again when the series is shown (QLegend follows
      // visibleChanged): ticked on a drawn chart, every repeat got an entry ("opevo repeat 1"),
      // 55 of them for a 50-run race, and the algorithms' names were elided away.
      hideMarker(chart(), line);
    }
  refresh(true);
}

namespace {

int distinctXs(const QLineSeries& line) {
  int n = 0;
  for (qsizetype i = 0; i < line.count(); ++i)
    n += i == 0 || line.at(i).x() != line.at(i - 1).x() ? 1 : 0;
  return n;
}

}  // namespace

int RaceChartView::meanPointCount(int algorithm) const {
  return distinctXs(*m_series.at(static_cast<std::size_t>(algorithm)).mean);
}

int RaceChartView::bandPointCount(int algorithm) const {
  return distinctXs(*m_series.at(static_cast<std::size_t>(algorithm)).upper);
}

void RaceChartView::setNoRunNote(const QString& text) {
  m_noRunNote = text;
  refresh(true);
}

QString RaceChartView::emptyNote() const {
  return m_emptyNote->text();
}

QString RaceChartView::referenceLegend() const {
  return m_reference ? m_reference->name() : QString();
}

QString RaceChartView::everyMultiplyAddLegend() const {
  return m_everyMultiplyAdd ? m_everyMultiplyAdd->name() : QString();
}

QString RaceChartView::referenceTip() const {
  const RaceData::Info& i = m_data->info();
  if (!i.reference) return {};
  return tr("%1 %2: %3").arg(number(i.reference->speed), i.speedUnit, i.reference->name);
}

QString RaceChartView::everyMultiplyAddTip() const {
  const RaceData::Info& i = m_data->info();
  if (!i.reference || !i.reference->everyMultiplyAdd) return {};
  return tr("%1 %2: %3, the library's fastest algorithm doing every multiply-add, at the speed its "
            "own timing gives (%4x slower than its fastest, %5 %2)")
      .arg(number(i.reference->everyMultiplyAddSpeed()), i.speedUnit,
           QString::fromStdString(i.reference->everyMultiplyAdd->name),
           number(i.reference->everyMultiplyAdd->slowerBy), number(i.reference->speed));
}

QString RaceChartView::describeMean(int algorithm, double x) const {
  const AlgorithmSeries& s = m_series.at(static_cast<std::size_t>(algorithm));
  if (s.stats.size() == 0) return {};
  const auto it = std::lower_bound(s.stats.x.begin(), s.stats.x.end(), x);
  std::size_t i = static_cast<std::size_t>(it - s.stats.x.begin());
  if (i == s.stats.size() || (i > 0 && x - s.stats.x[i - 1] < s.stats.x[i] - x)) --i;
  const QString unit = m_data->info().speedUnit;
  const QString where = m_xAxis == XAxis::Trials ? tr("trial %1").arg(std::lround(s.stats.x[i]))
                                                 : tr("%1 s").arg(s.stats.x[i], 0, 'f', 2);
  if (s.stats.n[i] == 1)  // one run: its best, no spread ("± 0.0000 (1 runs)")
    return tr("%1 at %2\nbest %3 %4")
        .arg(m_data->info().algorithms.value(algorithm), where, number(s.stats.mean[i]), unit);
  return tr("%1 at %2\nmean best %3 %4 ± %5 (%6 runs)")
      .arg(m_data->info().algorithms.value(algorithm), where, number(s.stats.mean[i]), unit,
           number(s.stats.sd[i]))
      .arg(s.stats.n[i]);
}

void RaceChartView::mouseMoveEvent(QMouseEvent* event) {
  QChartView::mouseMoveEvent(event);
  // The means, their bands and the optimum say their figures near the pointer, not only on the
  // line: QLineSeries::hovered fires on the 2.5-pixel stroke itself and its tip went as the
  // pointer moved a pixel off it, so a hand moving along the line saw nothing (the walk under
  // Xvfb). Within kNearPx of a line, or inside a band, the nearest one's figures show.
  constexpr double kNearPx = 6;
  const QPointF at = chart()->mapFromScene(mapToScene(event->position().toPoint()));
  QString text;
  double nearest = kNearPx;
  if (chart()->plotArea().contains(at) && !m_series.empty()) {
    QAbstractSeries* any = m_series.front().mean;
    const double x = chart()->mapToValue(at, any).x();
    const auto yOf = [&](double value) { return chart()->mapToPosition({x, value}, any).y(); };
    for (int a = 0; a < static_cast<int>(m_series.size()); ++a) {
      const Band& b = m_series[static_cast<std::size_t>(a)].stats;
      if (b.size() == 0 || x < b.x.front() || x > b.x.back()) continue;
      // The step holding at x: the last point at or before it.
      const auto it = std::upper_bound(b.x.begin(), b.x.end(), x);
      const std::size_t i = static_cast<std::size_t>(it - b.x.begin()) - 1;
      const double mean = yOf(clampY(b.mean[i]));
      const double top = yOf(clampY(b.mean[i] + b.sd[i]));
      const double bottom = yOf(clampY(b.mean[i] - b.sd[i]));
      const double distance = at.y() >= top && at.y() <= bottom ? 0 : std::abs(at.y() - mean);
      if (distance <= nearest) {
        nearest = distance;
        text = describeMean(a, b.x[i]);
      }
    }
    const RaceData::Info& info = m_data->info();
    if (m_optimum && info.optimum && std::abs(at.y() - yOf(clampY(*info.optimum))) < nearest)
      text = tr("dataset optimum %1 %2: the fastest configuration the dataset holds")
                 .arg(number(*info.optimum), info.speedUnit);
  }
  if (!text.isEmpty())
    showTip(text, true);
  else if (std::exchange(m_nearTip, false))
    QToolTip::hideText();
  if (!text.isEmpty()) m_nearTip = true;
}

void RaceChartView::showTip(const QString& text, bool state) {
  if (state && !text.isEmpty())
    QToolTip::showText(QCursor::pos(), text, this);
  else
    QToolTip::hideText();
}

}  // namespace opevo::ui
