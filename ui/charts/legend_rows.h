#pragma once

#include <QFont>
#include <QMargins>
#include <QObject>
#include <QPen>
#include <QRectF>
#include <QString>
#include <QStringList>
#include <utility>
#include <vector>

class QChart;
class QGraphicsItem;

namespace opevo::ui {

// A chart's legend as rows of whole entries below its plot, as many to a row as the chart's width
// holds. Qt Charts lays a bottom legend in one row and elides every entry to share it; on the
// right it takes the width from the plot: six contenders on the Networks page's latency chart at
// 1024x700 left a plot 110 pixels wide beside a legend still cut ("random / joint + winogr").
// The rows take the height they need from the chart's bottom margin instead.
class LegendRows : public QObject {
  Q_OBJECT

 public:
  struct Entry {
    QString text;
    QPen pen;  // the line it names: its colour, and its style where not solid (a dashed reference)
  };

  // `margins`: the chart's own, which the rows add their height to at the bottom.
  LegendRows(QChart* chart, QMargins margins);
  ~LegendRows() override;

  // Lays `entries` out across the chart's width `width`, in `font`.
  void show(const std::vector<Entry>& entries, const QFont& font, qreal width);
  int rowCount() const { return m_rows; }
  QStringList texts() const;
  // Where the rows are drawn, in the chart's coordinates (empty: none).
  QRectF area() const { return m_area; }

 private:
  void clear();

  QChart* m_chart;
  // What the rows show now: the same again (each unit of a race) leaves them as they are.
  std::vector<std::pair<QString, QPen>> m_shown;
  QFont m_font;
  qreal m_width = -1;
  QMargins m_margins;
  std::vector<QGraphicsItem*> m_items;
  QStringList m_texts;
  int m_rows = 0;
  QRectF m_area;
};

}  // namespace opevo::ui
