#include "ui/charts/heat_map_view.h"

#include <QPainter>
#include <algorithm>

namespace opevo::ui {

HeatMapView::HeatMapView(QWidget* parent)
    : QWidget(parent), m_placeholder(tr("Run a sweep to see its heat map")) {
  setObjectName(QStringLiteral("heatMap"));
  setMinimumSize(320, 160);
}

void HeatMapView::setPlaceholder(const QString& text) {
  m_placeholder = text;
  update();
}

void HeatMapView::setMap(HeatMap map) {
  m_map = std::move(map);
  update();
}

void HeatMapView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  if (m_map.rows.empty() || m_map.columns.empty()) {
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(rect().adjusted(8, 8, -8, -8), Qt::AlignCenter | Qt::TextWordWrap, m_placeholder);
    return;
  }
  const QFontMetrics fm(font());
  int labelWidth = fm.horizontalAdvance(QString::fromStdString(m_map.rowName));
  for (const std::string& r : m_map.rows)
    labelWidth = std::max(labelWidth, fm.horizontalAdvance(QString::fromStdString(r)));
  const int line = fm.height();
  // The noise line (heatNoiseLegend, as in the SVG) under the range one, when there are errors.
  // It wraps: a narrow dialog cut it mid-word.
  const QString noise = QString::fromStdString(heatNoiseLegend(m_map));
  const int textWidth = std::max(1, width() - labelWidth - 24);
  const int noiseLines =
      noise.isEmpty()
          ? 0
          : fm.boundingRect(QRect(0, 0, textWidth, 0), Qt::TextWordWrap, noise).height() / line;
  const int legendLines = 1 + noiseLines;
  const QRect area = rect().adjusted(labelWidth + 16, 3 * line + 8, -8, -legendLines * line - 12);
  const int cols = static_cast<int>(m_map.columns.size());
  const int rows = static_cast<int>(m_map.rows.size());
  const double cw = double(area.width()) / cols, ch = double(area.height()) / rows;

  p.setPen(palette().color(QPalette::Text));
  p.drawText(QRect(0, 2, width(), line), Qt::AlignCenter, QString::fromStdString(m_map.title));
  QFont bold = font();
  bold.setBold(true);
  p.setFont(bold);
  p.drawText(QRect(area.left(), line + 4, area.width(), line), Qt::AlignCenter,
             QString::fromStdString(m_map.columnName));
  p.drawText(QRect(4, 2 * line + 6, labelWidth + 8, line), Qt::AlignLeft,
             QString::fromStdString(m_map.rowName));
  p.setFont(font());
  for (int c = 0; c < cols; ++c)
    p.drawText(QRectF(area.left() + c * cw, 2 * line + 6, cw, line), Qt::AlignCenter,
               QString::fromStdString(m_map.columns[static_cast<std::size_t>(c)]));
  const auto [lo, hi] = heatRange(m_map);
  QList<QRectF> best;         // every cell holding the highest value: a tie is not one winner
  QList<QRectF> withinNoise;  // cells the repeats cannot tell from the best
  for (int r = 0; r < rows; ++r) {
    p.setPen(palette().color(QPalette::Text));
    p.drawText(QRectF(4, area.top() + r * ch, labelWidth + 4, ch),
               Qt::AlignRight | Qt::AlignVCenter,
               QString::fromStdString(m_map.rows[static_cast<std::size_t>(r)]));
    for (int c = 0; c < cols; ++c) {
      const QRectF cell(area.left() + c * cw, area.top() + r * ch, cw, ch);
      const auto& v = m_map.values[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)];
      const HeatColour colour =
          v ? heatColour(hi > lo ? (*v - lo) / (hi - lo) : 1.0) : HeatColour{230, 230, 230};
      p.fillRect(cell.adjusted(1, 1, -1, -1), QColor(colour.r, colour.g, colour.b));
      p.setPen(colour.light() ? Qt::black : Qt::white);
      QString text = v ? QString::fromStdString(heatNumber(*v)) : QStringLiteral("-");
      const auto row = static_cast<std::size_t>(r), column = static_cast<std::size_t>(c);
      // Each mean with its standard error, as the SVG shows it: colours alone made differences
      // within noise look like effects.
      if (const std::optional<double> error = heatError(m_map, row, column); v && error)
        text += QStringLiteral("\n±") + QString::fromStdString(heatNumber(*error));
      p.drawText(cell, Qt::AlignCenter, text);
      if (v && heatBest(*v, hi)) best.append(cell);
      if (v && heatWithinNoise(m_map, row, column)) withinNoise.append(cell);
    }
  }
  p.setPen(QPen(palette().color(QPalette::Highlight), 3));
  for (const QRectF& cell : best) p.drawRect(cell.adjusted(2, 2, -2, -2));
  p.setPen(QPen(palette().color(QPalette::Highlight), 2, Qt::DashLine));
  for (const QRectF& cell : withinNoise) p.drawRect(cell.adjusted(3, 3, -3, -3));
  p.setPen(palette().color(QPalette::Text));
  // heatLegend's words (the SVG's), translatable here: a saved map and the window's say the same.
  if (lo <= hi) {
    const QString range =
        tr("lowest %1 (dark) to highest %2")
            .arg(QString::fromStdString(heatNumber(lo)), QString::fromStdString(heatNumber(hi)));
    p.drawText(QRect(area.left(), height() - legendLines * line - 6, area.width(), line),
               Qt::AlignLeft,
               best.size() > 1
                   ? tr("%1 (light; the %2 cells tied for it outlined)").arg(range).arg(best.size())
                   : tr("%1 (light, outlined)").arg(range));
  }
  if (!noise.isEmpty())
    p.drawText(
        QRect(area.left(), height() - noiseLines * line - 6, area.width(), noiseLines * line),
        Qt::AlignLeft | Qt::TextWordWrap, noise);
}

}  // namespace opevo::ui
