#include "ui/charts/kas_tuning_chart.h"

#include <QChart>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QValueAxis>
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "ui/charts/race_chart_view.h"

namespace opevo::ui {

KasTuningChart::KasTuningChart(QWidget* parent)
    : QChartView(parent), m_x(new QValueAxis), m_y(new QLogValueAxis) {
  setRenderHint(QPainter::Antialiasing);
  QFont small = chart()->legend()->font();
  small.setPointSizeF(small.pointSizeF() * 0.85);
  chart()->legend()->setFont(small);
  chart()->legend()->setAlignment(Qt::AlignRight);
  chart()->setMargins(QMargins(4, 4, 4, 4));
  m_x->setTitleText(tr("trial"));
  m_x->setLabelFormat(QStringLiteral("%d"));
  // Whole trials only: ticks from trial 1, a few trials apart (setCandidate sets the interval);
  // five fixed ticks would label an empty chart's 1..2 as "1 1 1 1 2".
  m_x->setTickType(QValueAxis::TicksDynamic);
  m_x->setTickAnchor(1);
  m_x->setTickInterval(1);
  m_y->setLabelFormat(QStringLiteral("%g"));
  m_y->setMinorTickCount(0);  // a decade's eight minor lines crowd a small chart
  chart()->addAxis(m_x, Qt::AlignBottom);
  chart()->addAxis(m_y, Qt::AlignLeft);
  setToolTip(
      tr("Solid: the kernel's best time after each schedule measured at that layer. "
         "Dashed: the convolution it replaces there."));
  setMinimumSize(240, 150);
  setCandidate(nullptr);
  setTitles();
}

void KasTuningChart::setCandidate(const KasCandidateRow* c) {
  chart()->removeAllSeries();
  m_layers = 0;
  const auto layers = c ? nlohmann::json::parse(c->tuningJson, nullptr, false) : nlohmann::json();
  if (!layers.is_array() || layers.empty()) {
    m_state = !c ? State::NoKernel : c->stage == KasStage::Failed ? State::Failed : State::NotTuned;
    setTitles();
    m_x->setRange(1, 2);
    m_x->setTickInterval(1);
    m_y->setRange(0.01, 1);
    return;
  }
  m_state = State::Tuned;
  m_seq = c->seq;
  setTitles();
  double lo = INFINITY, hi = 0;
  int trials = 1;
  for (const auto& layer : layers) {
    if (!layer.is_object()) continue;
    const QColor color = RaceChartView::colorOf(m_layers++);
    auto* curve = new QLineSeries;
    curve->setName(QString::fromStdString(layer.value("layer", std::string("?"))) +
                   QStringLiteral(" ×%1").arg(layer.value("count", 1)));
    curve->setPen(QPen(color, 2));
    curve->setPointsVisible(true);
    QList<QPointF> points;
    if (layer.contains("curve_ms") && layer["curve_ms"].is_array()) {
      int t = 0;
      for (const auto& v : layer["curve_ms"]) {
        ++t;
        if (!v.is_number() || v.get<double>() <= 0) continue;  // no schedule verified yet
        points.append({static_cast<double>(t), v.get<double>()});
        lo = std::min(lo, v.get<double>());
        hi = std::max(hi, v.get<double>());
      }
      trials = std::max(trials, t);
    }
    curve->replace(points);
    chart()->addSeries(curve);
    curve->attachAxis(m_x);
    curve->attachAxis(m_y);
    const double conv = layer.value("conv_ms", 0.0);
    if (conv > 0) {
      auto* line = new QLineSeries;
      line->setPen(QPen(color, 1.5, Qt::DashLine));
      line->setName(tr("%1 convolution").arg(curve->name()));
      line->replace(QList<QPointF>{{1, conv}, {static_cast<double>(std::max(trials, 2)), conv}});
      chart()->addSeries(line);
      line->attachAxis(m_x);
      line->attachAxis(m_y);
      for (QLegendMarker* m : chart()->legend()->markers(line)) m->setVisible(false);
      lo = std::min(lo, conv);
      hi = std::max(hi, conv);
    }
  }
  // A dashed line may have been made before the longest curve was seen: span every trial.
  for (QAbstractSeries* s : chart()->series()) {
    auto* line = static_cast<QLineSeries*>(s);
    if (line->pen().style() == Qt::DashLine && line->count() == 2)
      line->replace(1, QPointF(std::max(trials, 2), line->at(1).y()));
  }
  m_x->setRange(1, std::max(trials, 2));
  m_x->setTickInterval(std::max(1.0, std::ceil((trials - 1) / 8.0)));
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
}

void KasTuningChart::setTitles() {
  m_y->setTitleText(m_compact ? tr("best ms") : tr("best time (ms)"));
  switch (m_state) {
    case State::NoKernel:
      chart()->setTitle(tr("Tuning: no kernel selected"));
      break;
    case State::Failed:
      chart()->setTitle(tr("Tuning: failed (see its note)"));
      break;
    case State::NotTuned:
      chart()->setTitle(tr("Tuning: not tuned yet"));
      break;
    case State::Tuned:
      chart()->setTitle(
          m_compact
              ? tr("Kernel #%1: best per trial").arg(m_seq)
              : tr("Tuning kernel #%1: best time per trial (dashed: convolution)").arg(m_seq));
      break;
  }
}

}  // namespace opevo::ui
