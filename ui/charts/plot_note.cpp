#include "ui/charts/plot_note.h"

#include <QBrush>
#include <QChart>
#include <QGraphicsSimpleTextItem>

namespace opevo::ui {

PlotNote::PlotNote(QChart* chart, const QColor& color)
    : QObject(chart), m_chart(chart), m_item(new QGraphicsSimpleTextItem(chart)) {
  m_item->setBrush(color);
  m_item->setZValue(10);  // above the grid and any series
  m_item->hide();
  connect(chart, &QChart::plotAreaChanged, this, &PlotNote::place);
}

void PlotNote::setText(const QString& text) {
  if (text == this->text()) return;
  m_item->setText(text);
  m_item->setVisible(!text.isEmpty());
  place();
}

QString PlotNote::text() const {
  return m_item->isVisible() ? m_item->text() : QString();
}

void PlotNote::place() {
  const QRectF area = m_chart->plotArea().isEmpty() ? m_chart->rect() : m_chart->plotArea();
  const QRectF box = m_item->boundingRect();
  m_item->setPos(area.center() - QPointF(box.width() / 2, box.height() / 2));
}

}  // namespace opevo::ui
