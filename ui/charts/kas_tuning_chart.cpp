#include "ui/charts/kas_tuning_chart.h"

#include <QChart>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "ui/charts/plot_note.h"
#include "ui/charts/race_chart_view.h"

namespace opevo::ui {

KasTuningChart::KasTuningChart(QWidget* parent)
    : QChartView(parent),
      m_x(new QValueAxis),
      m_y(new QLogValueAxis),
      m_note(new PlotNote(chart(), palette().color(QPalette::PlaceholderText))) {
  setRenderHint(QPainter::Antialiasing);
  QFont small = chart()->legend()->font();
  small.setPointSizeF(small.pointSizeF() * 0.85);
  chart()->legend()->setFont(small);
  chart()->legend()->setAlignment(Qt::AlignRight);
  // Markers drawn as their series are: the start schedule a square, the convolution a dashed
  // line, each layer a line in its colour.
  chart()->legend()->setMarkerShape(QLegend::MarkerShapeFromSeries);
  chart()->setMargins(QMargins(4, 4, 4, 4));
  m_x->setLabelFormat(QStringLiteral("%d"));
  // Whole trials only: ticks from trial 0 (the start schedule), a few trials apart (setCandidate
  // sets the interval); five fixed ticks would label 0..2 as "0 0 1 1 2".
  m_x->setTickType(QValueAxis::TicksDynamic);
  m_x->setTickAnchor(0);
  m_x->setTickInterval(1);
  m_y->setLabelFormat(QStringLiteral("%g"));
  m_y->setMinorTickCount(0);  // a decade's eight minor lines crowd a small chart
  chart()->addAxis(m_x, Qt::AlignBottom);
  chart()->addAxis(m_y, Qt::AlignLeft);
  setToolTip(
      tr("Solid: the kernel's best time known after each schedule measured at that layer, from "
         "its start schedule (trial 0, a square); it ends at the time the kernel is counted "
         "with. Dashed: the convolution it replaces there."));
  setMinimumSize(240, 150);
  setCandidate(nullptr);
  setTitles();
}

QList<QPointF> KasTuningChart::layerCurve(int layer) const {
  return layer >= 0 && layer < m_curves.size() ? m_curves[layer]->points() : QList<QPointF>{};
}

QStringList KasTuningChart::legendNames() const {
  QStringList names;
  for (QLegendMarker* m : chart()->legend()->markers())
    if (m->isVisible()) names << m->label();
  return names;
}

QPointF KasTuningChart::trialRange() const {
  return {m_x->min(), m_x->max()};
}

QString KasTuningChart::placeholder() const {
  return m_note->text();
}

void KasTuningChart::setCandidate(const KasCandidateRow* c) {
  chart()->removeAllSeries();
  m_curves.clear();
  m_layers = 0;
  const auto layers = c ? nlohmann::json::parse(c->tuningJson, nullptr, false) : nlohmann::json();
  if (!layers.is_array() || layers.empty()) {
    m_state = !c ? State::NoKernel : c->stage == KasStage::Failed ? State::Failed : State::NotTuned;
    // Empty axes (a log scale 0.01..1 over trials 1..2) said nothing and looked like a chart of
    // nothing measured: a sentence in their place.
    m_x->hide();
    m_y->hide();
    setTitles();
    return;
  }
  m_state = State::Tuned;
  m_seq = c->seq;
  m_x->show();
  m_y->show();
  setTitles();
  double lo = INFINITY, hi = 0;
  int trials = 1;
  std::vector<QLineSeries*> convolutions;
  QString library;  // "oneDNN", as the tuning results name the convolution
  bool anyStart = false;
  for (const auto& layer : layers) {
    if (!layer.is_object()) continue;
    const QColor color = RaceChartView::colorOf(m_layers++);
    auto* curve = new QLineSeries;
    curve->setName(QString::fromStdString(layer.value("layer", std::string("?"))) +
                   QStringLiteral(" ×%1").arg(layer.value("count", 1)));
    curve->setPen(QPen(color, 2));
    curve->setPointsVisible(true);
    // The best known starts as the start schedule: the tuner's own best (curve_ms) may never
    // beat it (0.368 ms against 0.0414 ms), and the kernel is then counted at the start's time.
    QList<QPointF> points;
    double best = INFINITY;
    if (const double start = layer.value("default_ms", 0.0); start > 0) {
      best = start;
      points.append({0.0, start});
      auto* mark = new QScatterSeries;
      mark->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
      mark->setMarkerSize(9);
      mark->setColor(Qt::white);
      mark->setPen(QPen(color, 2));
      mark->setName(tr("%1 start schedule").arg(curve->name()));
      mark->append(0.0, start);
      anyStart = true;
      chart()->addSeries(mark);
      mark->attachAxis(m_x);
      mark->attachAxis(m_y);
      for (QLegendMarker* m : chart()->legend()->markers(mark)) m->setVisible(false);
    }
    if (layer.contains("curve_ms") && layer["curve_ms"].is_array()) {
      int t = 0;
      for (const auto& v : layer["curve_ms"]) {
        ++t;
        if (!v.is_number() || v.get<double>() <= 0) continue;  // no schedule verified yet
        best = std::min(best, v.get<double>());
        points.append({static_cast<double>(t), best});
      }
      trials = std::max(trials, t);
    }
    for (const QPointF& p : points) {
      lo = std::min(lo, p.y());
      hi = std::max(hi, p.y());
    }
    curve->replace(points);
    chart()->addSeries(curve);
    curve->attachAxis(m_x);
    curve->attachAxis(m_y);
    m_curves.append(curve);
    const double conv = layer.value("conv_ms", 0.0);
    if (library.isEmpty() && layer.contains("conv") && layer["conv"].is_string())
      library = QString::fromStdString(layer["conv"].get<std::string>()).section(' ', 0, 0);
    if (conv > 0) {
      auto* line = new QLineSeries;
      line->setPen(QPen(color, 1.5, Qt::DashLine));
      line->setName(tr("%1 convolution").arg(curve->name()));
      line->replace(QList<QPointF>{{0, conv}, {1, conv}});
      chart()->addSeries(line);
      line->attachAxis(m_x);
      line->attachAxis(m_y);
      for (QLegendMarker* m : chart()->legend()->markers(line)) m->setVisible(false);
      convolutions.push_back(line);
      lo = std::min(lo, conv);
      hi = std::max(hi, conv);
    }
  }
  // Made before the longest curve was seen: each dashed line spans every trial.
  for (QLineSeries* line : convolutions) line->replace(1, QPointF(trials, line->at(1).y()));
  // One legend entry for each kind of mark the layers share, drawn in grey: the layers' own
  // entries say which colour is which layer. Empty series, so nothing is plotted for them.
  const QColor key(0x55, 0x55, 0x55);
  if (anyStart) {
    auto* start = new QScatterSeries;
    start->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    start->setMarkerSize(9);
    start->setColor(Qt::white);
    start->setPen(QPen(key, 2));
    start->setName(tr("start schedule (trial 0)"));
    chart()->addSeries(start);
    start->attachAxis(m_x);
    start->attachAxis(m_y);
  }
  if (!convolutions.empty()) {
    auto* dashed = new QLineSeries;
    dashed->setPen(QPen(key, 1.5, Qt::DashLine));
    // The marker draws the dash: "(dashed)" after the name was cut at 1024x700.
    dashed->setName(library.isEmpty() ? tr("convolution") : tr("%1 convolution").arg(library));
    chart()->addSeries(dashed);
    dashed->attachAxis(m_x);
    dashed->attachAxis(m_y);
  }
  m_x->setRange(0, trials);
  m_x->setTickInterval(std::max(1.0, std::ceil(trials / 8.0)));
  if (hi <= 0) {
    m_y->setRange(0.01, 1);
    return;
  }
  // Whole decades, so the log axis labels read 0.01, 0.1, 1, ...
  const double bottom = std::pow(10, std::floor(std::log10(lo)));
  m_y->setRange(bottom, std::max(bottom * 10, std::pow(10, std::ceil(std::log10(hi)))));
}

void KasTuningChart::resizeEvent(QResizeEvent* event) {
  // On an 800x600 screen the chart is about 330 pixels wide and 170 high: the long title and the
  // vertical axis title were cut off. The tooltip says what the dashed lines are.
  const bool compact = width() < kCompactWidth || height() < kCompactHeight;
  if (compact != m_compact) {
    m_compact = compact;
    setTitles();
  }
  QChartView::resizeEvent(event);
  m_note->place();
}

void KasTuningChart::setTitles() {
  m_x->setTitleText(m_compact ? tr("trial (0: start)") : tr("trial (0: start schedule)"));
  m_y->setTitleText(m_compact ? tr("best ms") : tr("best time (ms)"));
  QString note;
  switch (m_state) {
    case State::NoKernel:
      note = tr("Select a kernel to see how its schedule was tuned");
      break;
    case State::Failed:
      note = tr("Its tuning failed: the table's Note says why");
      break;
    case State::NotTuned:
      note = tr("Not tuned yet");
      break;
    case State::Tuned:
      break;
  }
  chart()->setTitle(
      m_state != State::Tuned ? tr("Tuning")
      : m_compact             ? tr("Kernel #%1: best per trial").arg(m_seq)
                  : tr("Tuning kernel #%1: best time per trial (dashed: convolution)").arg(m_seq));
  m_note->setText(note);
}

}  // namespace opevo::ui
