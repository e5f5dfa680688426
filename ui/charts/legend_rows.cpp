#include "ui/charts/legend_rows.h"

#include <QChart>
#include <QFontMetricsF>
#include <QGraphicsLineItem>
#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
#include <algorithm>
#include <cmath>

namespace opevo::ui {

LegendRows::LegendRows(QChart* chart, QMargins margins)
    : QObject(chart), m_chart(chart), m_margins(margins) {
  m_chart->setMargins(m_margins);
}

// The items are the chart's: they go with it (it deletes its items before its QObject children,
// this among them).
LegendRows::~LegendRows() = default;

QStringList LegendRows::texts() const {
  return m_texts;
}

void LegendRows::clear() {
  for (QGraphicsItem* item : m_items) delete item;
  m_items.clear();
  m_texts.clear();
  m_rows = 0;
  m_area = {};
}

void LegendRows::show(const std::vector<Entry>& entries, const QFont& font, qreal width) {
  std::vector<std::pair<QString, QPen>> shown;
  for (const Entry& e : entries) shown.emplace_back(e.text, e.pen);
  if (shown == m_shown && font == m_font && width == m_width &&
      (m_rows == 0 || m_area.bottom() + m_margins.bottom() == m_chart->size().height()))
    return;
  m_shown = std::move(shown);
  m_font = font;
  m_width = width;
  clear();
  const QFontMetricsF metrics(font);
  const qreal line = metrics.height();
  const qreal marker = std::round(line * 0.6);  // as Qt's legend draws a line series' square
  const qreal sample = 2 * line;                // a dashed line needs a few dashes to read so
  const qreal gap = 4, spacing = 14;
  const qreal room = std::max<qreal>(1, width - m_margins.left() - m_margins.right());
  struct Placed {
    const Entry* entry;
    QString text;
    qreal width;
  };
  // Greedy rows: an entry goes on the row before while it fits there whole.
  std::vector<std::vector<Placed>> rows;
  std::vector<qreal> rowWidths;
  for (const Entry& e : entries) {
    const qreal mark = e.pen.style() == Qt::SolidLine ? marker : sample;
    // An entry wider than the whole row (a very narrow chart) is elided, the only one that is.
    const QString text = metrics.elidedText(e.text, Qt::ElideRight, room - mark - gap);
    const qreal w = mark + gap + metrics.horizontalAdvance(text);
    if (rows.empty() || rowWidths.back() + spacing + w > room) {
      rows.emplace_back();
      rowWidths.push_back(-spacing);
    }
    rows.back().push_back({&e, text, w});
    rowWidths.back() += spacing + w;
    m_texts << text;
  }
  m_rows = static_cast<int>(rows.size());
  const qreal height = m_rows * line;
  // Below the trials axis's title, a line's gap above; the chart's bottom margin below.
  QMargins margins = m_margins;
  if (m_rows > 0) margins.setBottom(m_margins.bottom() + static_cast<int>(std::ceil(height + gap)));
  if (m_chart->margins() != margins) m_chart->setMargins(margins);
  if (m_rows == 0) return;
  const qreal top = m_chart->size().height() - m_margins.bottom() - height;
  m_area = QRectF(m_margins.left(), top, room, height);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    // Each row centred, as Qt centres its one.
    qreal x = m_margins.left() + (room - rowWidths[r]) / 2;
    const qreal y = top + static_cast<qreal>(r) * line;
    for (const Placed& p : rows[r]) {
      if (p.entry->pen.style() == Qt::SolidLine) {
        auto* square = new QGraphicsRectItem(x, y + (line - marker) / 2, marker, marker, m_chart);
        square->setPen(Qt::NoPen);
        square->setBrush(p.entry->pen.color());
        m_items.push_back(square);
        x += marker + gap;
      } else {
        auto* dash = new QGraphicsLineItem(x, y + line / 2, x + sample, y + line / 2, m_chart);
        dash->setPen(p.entry->pen);
        m_items.push_back(dash);
        x += sample + gap;
      }
      auto* label = new QGraphicsSimpleTextItem(p.text, m_chart);
      label->setFont(font);
      label->setPos(x, y);
      if (p.text != p.entry->text) label->setToolTip(p.entry->text);
      m_items.push_back(label);
      x += p.width - (p.entry->pen.style() == Qt::SolidLine ? marker : sample) - gap + spacing;
    }
  }
  for (QGraphicsItem* item : m_items) item->setZValue(5);
}

}  // namespace opevo::ui
