#include "ui/charts/kas_training_chart.h"

#include <QChart>
#include <QLineSeries>
#include <QValueAxis>
#include <algorithm>
#include <nlohmann/json.hpp>

#include "kas/candidate_front.h"
#include "ui/controller/kas_types.h"

namespace opevo::ui {
namespace {

QList<QPointF> percentPerEpoch(const std::vector<double>& curve) {
  QList<QPointF> points;
  for (std::size_t e = 0; e < curve.size(); ++e)
    points.append({static_cast<double>(e + 1), curve[e] * 100});
  return points;
}

}  // namespace

KasTrainingChart::KasTrainingChart(QWidget* parent)
    : QChartView(parent), m_x(new QValueAxis), m_y(new QValueAxis) {
  setRenderHint(QPainter::Antialiasing);
  QFont small = chart()->legend()->font();
  small.setPointSizeF(small.pointSizeF() * 0.85);
  chart()->legend()->setFont(small);
  chart()->legend()->setAlignment(Qt::AlignBottom);
  chart()->setMargins(QMargins(4, 4, 4, 4));
  m_x->setTitleText(tr("epoch"));
  m_x->setLabelFormat(QStringLiteral("%d"));
  m_x->setTickType(QValueAxis::TicksDynamic);
  m_x->setTickAnchor(1);
  m_x->setTickInterval(1);
  // "test accuracy (%)", then "accuracy (%)", were cut ("test accurac...", "accuracy (...") in
  // the 90-pixel-high plot of a 1024x700 window: the unit goes on the labels, and the tooltip
  // says it is the test set's.
  m_y->setTitleText(tr("accuracy"));
  m_y->setLabelFormat(QStringLiteral("%.0f%%"));
  chart()->addAxis(m_x, Qt::AlignBottom);
  chart()->addAxis(m_y, Qt::AlignLeft);
  setToolTip(
      tr("Test accuracy on Fashion-MNIST after each epoch: the backbone with the kernel "
         "in place of its convolutions, and with its standard convolutions (dashed)"));
  setMinimumSize(240, 150);
  setCandidate(nullptr, {});
}

void KasTrainingChart::setCandidate(const KasCandidateRow* c,
                                    const std::vector<double>& baselineCurve) {
  chart()->removeAllSeries();
  m_epochs = 0;
  std::vector<double> curve;
  const auto j = c ? nlohmann::json::parse(c->trainingJson, nullptr, false) : nlohmann::json();
  if (j.is_object() && j.contains("curve") && j["curve"].is_array())
    for (const auto& v : j["curve"])
      if (v.is_number()) curve.push_back(v.get<double>());
  m_epochs = static_cast<int>(curve.size());
  if (!c)
    chart()->setTitle(tr("Training: no kernel selected"));
  else if (c->stage != KasStage::Trained)
    chart()->setTitle(tr("Training: kernel #%1 not trained").arg(c->seq));
  else if (curve.empty())
    chart()->setTitle(tr("Training kernel #%1: %2")
                          .arg(c->seq)
                          .arg(c->message.empty() ? tr("no epoch finished")
                                                  : QString::fromStdString(c->message)));
  else
    chart()->setTitle(tr("Training kernel #%1: %2%3")
                          .arg(c->seq)
                          .arg(QString::number(*c->accuracy * 100, 'f', 2) + QStringLiteral(" %"))
                          .arg(kas::trainingDiverged(*c) ? tr(", diverged")
                               : c->stoppedEarly         ? tr(", stopped early")
                                                         : QString()));
  double hi = 10;
  const auto add = [&](QLineSeries* s, const std::vector<double>& values) {
    s->replace(percentPerEpoch(values));
    for (double v : values) hi = std::max(hi, v * 100);
    chart()->addSeries(s);
    s->attachAxis(m_x);
    s->attachAxis(m_y);
  };
  if (!baselineCurve.empty()) {
    auto* baseline = new QLineSeries;
    baseline->setName(tr("baseline (convolutions)"));
    baseline->setPen(QPen(Qt::black, 1.5, Qt::DashLine));
    baseline->setPointsVisible(true);
    add(baseline, baselineCurve);
  }
  if (!curve.empty()) {
    auto* kernel = new QLineSeries;
    kernel->setName(tr("kernel #%1").arg(c->seq));
    kernel->setPen(QPen(QColor(0xD5, 0x5E, 0x00), 2));
    kernel->setPointsVisible(true);
    add(kernel, curve);
  }
  const int epochs = std::max<int>({1, m_epochs, static_cast<int>(baselineCurve.size())});
  // Half an epoch either side: a first (or only) epoch's point sat on the axis itself.
  m_x->setRange(0.5, epochs + 0.5);
  m_y->setRange(0, std::min(100.0, hi * 1.1));
  m_y->applyNiceNumbers();
}

}  // namespace opevo::ui
