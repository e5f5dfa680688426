#pragma once

#include <QColor>
#include <QObject>
#include <QString>

class QChart;
class QGraphicsRectItem;
class QGraphicsSimpleTextItem;

namespace opevo::ui {

// A line of text centred on a chart's plot area: what an empty chart has yet to show ("No trials
// yet"), where its bare axes (0 to 1) would read as a result. It follows the plot area as the
// chart is laid out again, on a patch of the chart's background: a line drawn already (a dataset's
// optimum, a library's speed) crossed it out at mid-height.
class PlotNote : public QObject {
  Q_OBJECT

 public:
  PlotNote(QChart* chart, const QColor& color);

  // Empty: hidden.
  void setText(const QString& text);
  // Empty while hidden.
  QString text() const;
  // Centred again (the chart's view calls it after a resize, before the plot area moves).
  void place();

 private:
  QChart* m_chart;
  QGraphicsRectItem* m_patch;
  QGraphicsSimpleTextItem* m_item;
};

}  // namespace opevo::ui
