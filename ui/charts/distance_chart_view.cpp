#include "ui/charts/distance_chart_view.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QValueAxis>
#include <algorithm>

namespace opevo::ui {

DistanceChartView::DistanceChartView(QWidget* parent)
    : QChartView(new QChart, parent),
      m_series(new QBarSeries),
      m_axisX(new QBarCategoryAxis),
      m_axisY(new QValueAxis) {
  setRenderHint(QPainter::Antialiasing);
  chart()->setTitle(tr("Probability by distance from the start vertex"));
  chart()->addSeries(m_series);
  m_axisX->setTitleText(tr("Distance (steps)"));
  m_axisY->setTitleText(tr("Probability"));
  m_axisY->setLabelFormat(QStringLiteral("%.2f"));
  chart()->addAxis(m_axisX, Qt::AlignBottom);
  chart()->addAxis(m_axisY, Qt::AlignLeft);
  m_series->attachAxis(m_axisX);
  m_series->attachAxis(m_axisY);
  chart()->legend()->setAlignment(Qt::AlignBottom);
  redraw();  // empty until a distribution comes
}

void DistanceChartView::setExact(std::vector<double> byDistance) {
  m_exact = std::move(byDistance);
  redraw();
}

void DistanceChartView::setSampled(std::vector<double> byDistance) {
  m_sampled = std::move(byDistance);
  redraw();
}

QStringList DistanceChartView::distanceLabels() const {
  return m_axisX->categories();
}

bool DistanceChartView::axesShown() const {
  return m_axisX->isVisible() && m_axisY->isVisible();
}

void DistanceChartView::redraw() {
  m_series->clear();
  const std::size_t n = std::max(m_exact.size(), m_sampled.size());
  auto* exact = new QBarSet(tr("exact"));
  exact->setColor(QColor(0x21, 0x91, 0x8c));
  QStringList categories;
  double top = 0;
  for (std::size_t d = 0; d < n; ++d) {
    categories << QString::number(d);
    const double v = d < m_exact.size() ? m_exact[d] : 0;
    exact->append(v);
    top = std::max(top, v);
  }
  m_series->append(exact);
  if (!m_sampled.empty()) {
    auto* sampled = new QBarSet(tr("sampled"));
    sampled->setColor(QColor(0xd8, 0x1b, 0x60));
    for (std::size_t d = 0; d < n; ++d) {
      const double v = d < m_sampled.size() ? m_sampled[d] : 0;
      sampled->append(v);
      top = std::max(top, v);
    }
    m_series->append(sampled);
  }
  m_axisX->clear();
  m_axisX->append(categories);
  // Nothing to show (a graph refused, a computation under way): no axes either. The category
  // axis keeps drawing its last categories when emptied, so a refused perm:9 showed perm:7's
  // 0-6 under an empty plot.
  const bool any = n > 0;
  m_axisX->setVisible(any);
  m_axisY->setVisible(any);
  m_series->setVisible(any);
  chart()->legend()->setVisible(any);
  m_axisY->setRange(0, top > 0 ? top * 1.05 : 1);
  m_axisY->applyNiceNumbers();  // ticks at round probabilities
}

}  // namespace opevo::ui
