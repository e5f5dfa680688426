#include "ui/charts/kas_scatter_chart.h"

#include <QChart>
#include <QFontMetrics>
#include <QGraphicsSimpleTextItem>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QToolTip>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "kas/candidate_front.h"

namespace opevo::ui {
namespace {

const QColor kTrained(0x00, 0x72, 0xB2);  // Okabe-Ito, as the race charts
const QColor kFront(0xD5, 0x5E, 0x00);
const QColor kEarly(0x77, 0x77, 0x77);
const QColor kDiverged(0xCC, 0x79, 0xA7);  // Okabe-Ito reddish purple: apart from both

// The library the candidates' convolutions were timed with, as the tuning results name it
// ("oneDNN 2.6.3 brgconv:avx512_core convolution of layer1.0.conv1" -> "oneDNN").
QString convolutionName(const KasSnapshot& s) {
  for (const KasCandidatePtr& c : s.candidates) {
    const auto j = nlohmann::json::parse(c->tuningJson, nullptr, false);
    if (j.is_array() && !j.empty() && j[0].is_object() && j[0].contains("conv") &&
        j[0]["conv"].is_string()) {
      const QString name = QString::fromStdString(j[0]["conv"].get<std::string>());
      return name.section(QLatin1Char(' '), 0, 0) + QObject::tr(" convolution");
    }
  }
  return QObject::tr("convolution");
}

// Range [lo, hi] holding every value, padded so markers at the edge are drawn whole.
std::pair<double, double> paddedRange(const std::vector<double>& values, double minPad) {
  double lo = *std::min_element(values.begin(), values.end());
  double hi = *std::max_element(values.begin(), values.end());
  const double pad = std::max((hi - lo) * 0.08, minPad);
  return {lo - pad, hi + pad};
}

}  // namespace

KasScatterChart::KasScatterChart(QWidget* parent)
    : QChartView(parent),
      m_trained(new QScatterSeries),
      m_early(new QScatterSeries),
      m_diverged(new QScatterSeries),
      m_front(new QScatterSeries),
      m_frontLine(new QLineSeries),
      m_baselineAccuracy(new QLineSeries),
      m_convolutionSpeed(new QLineSeries),
      m_ring(new QScatterSeries),
      m_x(new QLogValueAxis),
      m_y(new QValueAxis),
      m_accuracyLabel(new QGraphicsSimpleTextItem(chart())),
      m_speedLabel(new QGraphicsSimpleTextItem(chart())) {
  setRenderHint(QPainter::Antialiasing);
  chart()->setTitle(tr("Speed-up against accuracy"));
  chart()->setMargins(QMargins(4, 4, 8, 4));
  setToolTip(
      tr("Each trained kernel: its speed-up over the convolutions it replaces (x) and "
         "the accuracy of the backbone trained with it (y). Click a point to select it."));
  QFont small = chart()->legend()->font();
  small.setPointSizeF(small.pointSizeF() * 0.85);
  chart()->legend()->setFont(small);
  chart()->legend()->setAlignment(Qt::AlignBottom);
  // The legend's markers take the points' shapes: as squares, the front's dots and the diverged
  // triangles read as the hollow squares of a training stopped early.
  chart()->legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);
  m_y->setTitleText(tr("accuracy (%)"));
  // Speed-ups are ratios spanning orders of magnitude (0.6x beside 80x): on a linear axis all
  // but the fastest piled onto the 1x line. Base 2: ticks at 0.5x, 1x, 2x, 4x...
  m_x->setBase(2);
  m_x->setLabelFormat(QStringLiteral("%g"));
  m_y->setLabelFormat(QStringLiteral("%.1f"));
  chart()->addAxis(m_x, Qt::AlignBottom);
  chart()->addAxis(m_y, Qt::AlignLeft);

  m_trained->setColor(kTrained);
  m_trained->setBorderColor(kTrained.darker(130));
  m_trained->setMarkerSize(9);
  m_early->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
  m_early->setColor(Qt::white);
  m_early->setPen(QPen(kEarly, 1.5));
  m_early->setMarkerSize(9);
  // A diverged training ends at chance accuracy: drawn as a trained dot it read as a real (and
  // terrible) trade-off. Hollow, in a colour and shape of its own.
  m_diverged->setMarkerShape(QScatterSeries::MarkerShapeTriangle);
  m_diverged->setColor(Qt::white);
  m_diverged->setPen(QPen(kDiverged, 2));
  m_diverged->setMarkerSize(11);
  m_front->setColor(kFront);
  m_front->setBorderColor(kFront.darker(140));
  m_front->setMarkerSize(12);
  m_frontLine->setPen(QPen(kFront, 1.5));
  m_baselineAccuracy->setPen(QPen(Qt::black, 1.2, Qt::DashLine));
  m_convolutionSpeed->setPen(QPen(Qt::black, 1.2, Qt::DashLine));
  m_ring->setColor(QColor(0, 0, 0, 0));
  m_ring->setPen(QPen(Qt::black, 2));
  m_ring->setMarkerSize(20);
  for (QAbstractSeries* s :
       std::initializer_list<QAbstractSeries*>{m_baselineAccuracy, m_convolutionSpeed, m_frontLine,
                                               m_trained, m_early, m_diverged, m_front, m_ring}) {
    chart()->addSeries(s);
    s->attachAxis(m_x);
    s->attachAxis(m_y);
  }
  // The lines are labelled on the plot; the legend names the kinds of points.
  for (QAbstractSeries* s : std::initializer_list<QAbstractSeries*>{
           m_baselineAccuracy, m_convolutionSpeed, m_frontLine, m_ring})
    for (QLegendMarker* m : chart()->legend()->markers(s)) m->setVisible(false);
  for (QScatterSeries* s : {m_trained, m_early, m_diverged, m_front, m_ring}) {
    connect(s, &QScatterSeries::clicked, this, &KasScatterChart::pointClicked);
    connect(s, &QScatterSeries::hovered, this, &KasScatterChart::pointHovered);
  }
  for (QGraphicsSimpleTextItem* label : {m_accuracyLabel, m_speedLabel}) {
    QFont f = label->font();
    f.setPointSizeF(small.pointSizeF());
    label->setFont(f);
    label->setZValue(10);
  }
  // The plot's width settles after a resize: the axis's base follows it (it changes only when
  // another base is needed, so this settles too).
  connect(chart(), &QChart::plotAreaChanged, this, [this] {
    if (!m_points.empty()) fitSpeedAxis();
    placeLabels();
  });
  setMinimumSize(240, 160);  // the page fits a 1600x1000 screen at 200%
  setTitles();
  clear();
}

void KasScatterChart::clear() {
  m_points.clear();
  m_baseline.reset();
  m_selected = 0;
  m_frontCount = 0;
  for (QXYSeries* s :
       std::initializer_list<QXYSeries*>{m_trained, m_early, m_diverged, m_front, m_frontLine,
                                         m_baselineAccuracy, m_convolutionSpeed, m_ring})
    s->clear();
  for (QScatterSeries* s : {m_trained, m_early, m_diverged, m_front})
    for (QLegendMarker* m : chart()->legend()->markers(s)) m->setVisible(false);
  m_x->setRange(0.5, 2);
  m_y->setRange(0, 100);
  m_accuracyLabel->hide();
  m_speedLabel->hide();
}

void KasScatterChart::setSnapshot(const KasSnapshot& s) {
  m_points.clear();
  const std::vector<int> front = kas::frontSeqs(kasCandidates(s));
  m_frontCount = static_cast<int>(front.size());
  const std::set<int> onFront(front.begin(), front.end());
  QList<QPointF> trained, early, diverged, frontPoints;
  std::vector<double> xs{1.0}, ys;
  for (const KasCandidatePtr& c : s.candidates) {
    if (!kas::plotted(*c)) continue;
    const QPointF p(*c->speedup(), *c->accuracy * 100);
    m_points.push_back({c->seq, p, QString::fromStdString(c->hash)});
    xs.push_back(p.x());
    ys.push_back(p.y());
    if (kas::trainingDiverged(*c))
      diverged.append(p);
    else if (c->stoppedEarly)
      early.append(p);  // drawn hollow even on the front: its accuracy is a partial one
    else if (onFront.count(c->seq))
      frontPoints.append(p);
    else
      trained.append(p);
  }
  m_trained->replace(trained);
  m_early->replace(early);
  m_diverged->replace(diverged);
  m_front->replace(frontPoints);
  // Each kind named in the legend only when the plot has one: most searches have no diverged
  // training, and at 1024x700 the four names did not fit below the plot ("diver..."). A marker
  // shown again kept the place it had while hidden, on top of another with no label: the legend
  // lays itself out again when one appears or goes.
  bool changed = false;
  for (QScatterSeries* s : {m_trained, m_early, m_diverged, m_front})
    for (QLegendMarker* m : chart()->legend()->markers(s)) {
      const bool shown = s->count() > 0;
      changed |= m->isVisible() != shown;
      m->setVisible(shown);
    }
  if (changed && chart()->legend()->isVisible()) {
    chart()->legend()->hide();
    chart()->legend()->show();
  }
  m_baseline.reset();
  if (s.baselineAccuracy) {
    m_baseline = *s.baselineAccuracy * 100;
    ys.push_back(*m_baseline);
  }
  if (ys.empty()) ys = {0, 100};

  m_speedSpan = {*std::min_element(xs.begin(), xs.end()), *std::max_element(xs.begin(), xs.end())};
  fitSpeedAxis();
  const auto [yLo, yHi] = paddedRange(ys, 1.0);
  m_y->setRange(std::max(0.0, yLo), std::min(100.0, yHi));
  m_y->applyNiceNumbers();

  // The front as a staircase, slowest (most accurate) first: what it dominates lies below-left.
  QList<QPointF> stairs;
  std::vector<QPointF> ordered;
  for (const Point& p : m_points)
    if (onFront.count(p.seq)) ordered.push_back(p.value);
  std::sort(ordered.begin(), ordered.end(),
            [](const QPointF& a, const QPointF& b) { return a.x() < b.x(); });
  for (std::size_t i = 0; i < ordered.size(); ++i) {
    if (i > 0) stairs.append({ordered[i - 1].x(), ordered[i].y()});
    stairs.append(ordered[i]);
  }
  m_frontLine->replace(stairs);
  if (m_baseline)
    m_baselineAccuracy->replace(
        QList<QPointF>{{m_x->min(), *m_baseline}, {m_x->max(), *m_baseline}});
  else
    m_baselineAccuracy->clear();
  m_convolutionSpeed->replace(QList<QPointF>{{1.0, m_y->min()}, {1.0, m_y->max()}});
  m_accuracyLabel->setText(m_baseline ? tr("baseline %1 %").arg(*m_baseline, 0, 'f', 1)
                                      : QString());
  const QString library = convolutionName(s);
  m_speedText = tr("%1 (1×)").arg(library);
  m_speedShort = tr("%1 (1×)").arg(library.section(QLatin1Char(' '), 0, 0));
  m_speedLabel->setText(m_speedText);
  m_accuracyLabel->setVisible(m_baseline.has_value());
  m_speedLabel->show();
  setSelected(m_selected);
  placeLabels();
}

void KasScatterChart::setSelected(int seq) {
  m_selected = seq;
  for (const Point& p : m_points)
    if (p.seq == seq) {
      m_ring->replace(QList<QPointF>{p.value});
      return;
    }
  m_ring->clear();
}

int KasScatterChart::earlyCount() const {
  return static_cast<int>(m_early->count());
}

int KasScatterChart::divergedCount() const {
  return static_cast<int>(m_diverged->count());
}

QString KasScatterChart::baselineLabel() const {
  return m_accuracyLabel->isVisible() ? m_accuracyLabel->text() : QString();
}

QString KasScatterChart::speedLabel() const {
  return m_speedLabel->isVisible() ? m_speedLabel->text() : QString();
}

QRectF KasScatterChart::speedLabelRect() const {
  return m_speedLabel->mapRectToParent(m_speedLabel->boundingRect());
}

double KasScatterChart::speedAxisBase() const {
  return m_x->base();
}

QStringList KasScatterChart::speedTickTexts() const {
  QStringList texts;
  for (double v = m_x->min(); v <= m_x->max() * 1.0001; v *= m_x->base())
    texts << QString::asprintf("%g", v);
  return texts;
}

void KasScatterChart::fitSpeedAxis() {
  // Padded by a ratio (a log axis) out to the next powers of the base, so that the ends are
  // ticks and one shows on either side of 1x.
  const QRectF plot = chart()->plotArea();
  const double room = plot.width() > 0 ? plot.width() : width() * 0.75;
  const QFontMetrics metrics(m_x->labelsFont());
  for (const double base : {2.0, 4.0, 16.0}) {
    const double lo =
        std::pow(base, std::floor(std::log(m_speedSpan.first / 1.25) / std::log(base)));
    const double hi =
        std::pow(base, std::ceil(std::log(m_speedSpan.second * 1.25) / std::log(base)));
    int widest = 0, ticks = 0;
    for (double v = lo; v <= hi * 1.0001; v *= base, ++ticks)
      widest = std::max(widest, metrics.horizontalAdvance(QString::asprintf("%g", v)));
    // Each label centred on its tick, a space between neighbours.
    const bool fits = (ticks - 1) * (widest + metrics.averageCharWidth()) <= room;
    if (fits || base == 16.0) {
      if (m_x->base() != base) m_x->setBase(base);
      if (m_x->min() != lo || m_x->max() != hi) m_x->setRange(lo, hi);
      return;
    }
  }
}

std::optional<QPoint> KasScatterChart::viewportPosition(int seq) const {
  for (const Point& p : m_points)
    if (p.seq == seq)
      return mapFromScene(chart()->mapToScene(chart()->mapToPosition(p.value, m_trained)));
  return std::nullopt;
}

const KasScatterChart::Point* KasScatterChart::pointAt(const QPointF& value) const {
  // The series hands back the point's own value; the nearest in screen terms is that one.
  const Point* best = nullptr;
  double bestDistance = std::numeric_limits<double>::infinity();
  const QPointF at = chart()->mapToPosition(value, m_trained);
  for (const Point& p : m_points) {
    const double d = QLineF(at, chart()->mapToPosition(p.value, m_trained)).length();
    if (d < bestDistance) {
      bestDistance = d;
      best = &p;
    }
  }
  return bestDistance < 12 ? best : nullptr;
}

void KasScatterChart::pointClicked(const QPointF& value) {
  if (const Point* p = pointAt(value)) emit candidateClicked(p->seq);
}

void KasScatterChart::pointHovered(const QPointF& value, bool state) {
  const Point* p = state ? pointAt(value) : nullptr;
  if (!p) {
    QToolTip::hideText();
    return;
  }
  QToolTip::showText(QCursor::pos(),
                     tr("#%1 %2: %3× faster, %4 %")
                         .arg(p->seq)
                         .arg(p->hash)
                         .arg(p->value.x(), 0, 'f', 2)
                         .arg(p->value.y(), 0, 'f', 2),
                     this);
}

void KasScatterChart::resizeEvent(QResizeEvent* event) {
  // On an 800x600 screen the chart gets about 220 pixels: the long axis title and legend names
  // were cut to "speed-up over th..." and "stoppe...". The tooltip keeps the full story.
  // Renaming the series lays the legend out again: only when the choice changes.
  if (const bool compact = width() < kCompactWidth; compact != m_compact) {
    m_compact = compact;
    setTitles();
  }
  QChartView::resizeEvent(event);
  if (!m_points.empty()) fitSpeedAxis();
  placeLabels();
}

void KasScatterChart::setTitles() {
  m_x->setTitleText(m_compact ? tr("speed-up (×)") : tr("speed-up over the convolution (×)"));
  m_trained->setName(tr("trained"));
  m_early->setName(m_compact ? tr("stopped") : tr("stopped early"));
  m_diverged->setName(tr("diverged"));
  m_front->setName(m_compact ? tr("front") : tr("Pareto front"));
}

void KasScatterChart::placeLabels() {
  const QRectF plot = chart()->plotArea();
  if (plot.isEmpty()) return;
  // Each label goes beside its line, at the first of a few places that lies inside the plot and
  // covers no point (the fastest kernels crowd the baseline's right end) nor the other label.
  std::vector<QRectF> taken;
  for (const Point& p : m_points) {
    const double r = p.seq == m_selected ? 10 : 7;  // the ring, or the largest marker
    const QPointF c = chart()->mapToPosition(p.value, m_trained);
    taken.emplace_back(c - QPointF(r, r), QSizeF(2 * r, 2 * r));
  }
  const auto place = [&](QGraphicsSimpleTextItem* label, const std::vector<QPointF>& corners) {
    // Where every place is crowded, the one that covers the least.
    const QSizeF size = label->boundingRect().size();
    QPointF chosen = corners.front();
    double least = std::numeric_limits<double>::infinity();
    for (const QPointF& corner : corners) {
      const QRectF box(corner, size);
      if (!plot.contains(box)) continue;
      double covered = 0;
      for (const QRectF& t : taken) {
        const QRectF both = t.intersected(box);
        covered += both.width() * both.height();
      }
      if (covered < least) {
        least = covered;
        chosen = corner;
      }
      if (covered == 0) break;
    }
    label->setPos(chosen);
    taken.emplace_back(chosen, size);
  };
  // The library's whole name where it fits beside the line on either side, else its first word
  // ("oneDNN convolution (1×)" ran off the chart's right edge at 1024x700).
  const QPointF v = chart()->mapToPosition({1.0, m_y->max()}, m_trained);
  const double sideRoom = std::max(v.x() - plot.left(), plot.right() - v.x()) - 4;
  m_speedLabel->setText(m_speedText);
  if (m_speedLabel->boundingRect().width() > sideRoom && !m_speedShort.isEmpty())
    m_speedLabel->setText(m_speedShort);
  const QSizeF speed = m_speedLabel->boundingRect().size();
  const double top = plot.top() + 2, bottom = plot.bottom() - speed.height() - 2;
  place(m_speedLabel, {{v.x() + 4, top},
                       {v.x() - speed.width() - 4, top},
                       {v.x() + 4, bottom},
                       {v.x() - speed.width() - 4, bottom}});
  if (m_baseline) {
    const QPointF h = chart()->mapToPosition({m_x->max(), *m_baseline}, m_trained);
    const QSizeF accuracy = m_accuracyLabel->boundingRect().size();
    const double span = plot.width() - accuracy.width() - 8;
    const double above = h.y() - accuracy.height() - 1, below = h.y() + 2;
    std::vector<QPointF> corners;
    for (double f : {1.0, 0.0, 0.5, 0.25, 0.75, 0.125, 0.375, 0.625, 0.875})
      for (double y : {above, below}) corners.emplace_back(plot.left() + 4 + f * span, y);
    place(m_accuracyLabel, corners);
  }
}

}  // namespace opevo::ui
