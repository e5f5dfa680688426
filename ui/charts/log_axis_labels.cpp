#include "ui/charts/log_axis_labels.h"

#include <QChart>
#include <QFontMetricsF>
#include <QGraphicsSimpleTextItem>
#include <QLogValueAxis>
#include <algorithm>
#include <cmath>

namespace opevo::ui {

LogAxisLabels::LogAxisLabels(QChart* chart) : QObject(chart), m_chart(chart) {
  connect(chart, &QChart::plotAreaChanged, this, &LogAxisLabels::place);
}

// The labels are the chart's items: they go with it (it deletes its items before its QObject
// children, this among them).
LogAxisLabels::~LogAxisLabels() = default;

void LogAxisLabels::setAxis(QLogValueAxis* axis) {
  if (m_axis) disconnect(m_axis, nullptr, this, nullptr);
  m_axis = axis;
  if (axis) {
    connect(axis, &QLogValueAxis::rangeChanged, this, &LogAxisLabels::place);
    connect(axis, &QLogValueAxis::visibleChanged, this, &LogAxisLabels::place);
  }
  place();
}

QStringList LogAxisLabels::texts() const {
  std::vector<std::pair<double, QString>> shown;
  for (const QGraphicsSimpleTextItem* item : m_items) shown.emplace_back(-item->y(), item->text());
  std::sort(shown.begin(), shown.end());
  QStringList out;
  for (const auto& [y, text] : shown) out << text;
  return out;
}

void LogAxisLabels::clear() {
  for (QGraphicsSimpleTextItem* item : m_items) delete item;
  m_items.clear();
}

void LogAxisLabels::place() {
  clear();
  if (!m_axis || !m_axis->isVisible() || !m_axis->labelsVisible()) return;
  const double lo = m_axis->min(), hi = m_axis->max();
  const QRectF plot = m_chart->plotArea();
  if (!(lo > 0) || !(hi > lo) || plot.height() <= 0) return;
  const double decades = std::log10(hi / lo);
  if (decades > 2) return;  // whole decades are labels enough
  const auto yOf = [&](double v) {
    return plot.bottom() - std::log10(v / lo) / decades * plot.height();
  };
  const QFontMetricsF metrics(m_axis->labelsFont());
  // A label's centre at least this far from every other one.
  const double gap = metrics.height() * 1.3;
  std::vector<double> taken;
  for (int k = static_cast<int>(std::floor(std::log10(lo)));
       k <= static_cast<int>(std::ceil(std::log10(hi))); ++k)
    if (const double v = std::pow(10.0, k); v >= lo && v <= hi) taken.push_back(yOf(v));
  // 2 and 5 first; finer steps only where those leave room.
  for (const double m : {2.0, 5.0, 3.0, 1.5, 4.0, 7.0, 1.2, 2.5, 6.0, 8.0, 9.0})
    for (int k = static_cast<int>(std::floor(std::log10(lo)));
         k <= static_cast<int>(std::ceil(std::log10(hi))); ++k) {
      const double v = m * std::pow(10.0, k);
      if (v < lo || v > hi) continue;
      const double y = yOf(v);
      if (std::any_of(taken.begin(), taken.end(), [&](double t) { return std::abs(t - y) < gap; }))
        continue;
      taken.push_back(y);
      auto* item = new QGraphicsSimpleTextItem(QString::asprintf("%g", v), m_chart);
      item->setFont(m_axis->labelsFont());
      item->setBrush(m_axis->labelsBrush());
      const QRectF box = item->boundingRect();
      // Right-aligned where the axis puts its own labels, just left of the plot.
      item->setPos(plot.left() - box.width() - 6, y - box.height() / 2);
      item->setZValue(5);
      m_items.push_back(item);
    }
}

}  // namespace opevo::ui
