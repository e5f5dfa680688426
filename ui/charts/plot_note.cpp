#include "ui/charts/plot_note.h"

#include <QBrush>
#include <QChart>
#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
#include <QPen>

namespace opevo::ui {

PlotNote::PlotNote(QChart* chart, const QColor& color)
    : QObject(chart),
      m_chart(chart),
      m_patch(new QGraphicsRectItem(chart)),
      m_item(new QGraphicsSimpleTextItem(m_patch)) {
  m_patch->setPen(Qt::NoPen);
  m_patch->setZValue(10);  // above the grid and any series
  m_patch->hide();
  m_item->setBrush(color);
  connect(chart, &QChart::plotAreaChanged, this, &PlotNote::place);
}

void PlotNote::setText(const QString& text) {
  if (text == this->text()) return;
  m_item->setText(text);
  m_patch->setVisible(!text.isEmpty());
  place();
}

QString PlotNote::text() const {
  return m_patch->isVisible() ? m_item->text() : QString();
}

void PlotNote::place() {
  const QRectF area = m_chart->plotArea().isEmpty() ? m_chart->rect() : m_chart->plotArea();
  const QRectF box = m_item->boundingRect();
  // The chart's background as it is now (a theme set after the note was made changes it).
  m_patch->setBrush(m_chart->backgroundBrush());
  const qreal pad = box.height() / 4;
  m_patch->setRect(box.adjusted(-2 * pad, -pad, 2 * pad, pad));
  m_patch->setPos(area.center() - QPointF(box.width() / 2, box.height() / 2));
}

}  // namespace opevo::ui
