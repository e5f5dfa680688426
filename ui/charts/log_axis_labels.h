#pragma once

#include <QObject>
#include <QPointer>
#include <QStringList>
#include <vector>

class QChart;
class QGraphicsSimpleTextItem;
class QLogValueAxis;

namespace opevo::ui {

// Labels between the decades of a vertical log axis. QLogValueAxis labels only powers of its
// base: a race whose speeds stay within a decade showed one "10000" beside the whole curve. Where
// the axis spans two decades or less, values such as 2 and 5 times a power of ten are labelled too
// (finer steps where even those are too few), in the axis's own font, never on top of one
// another or of a decade's label.
class LogAxisLabels : public QObject {
  Q_OBJECT

 public:
  explicit LogAxisLabels(QChart* chart);
  ~LogAxisLabels() override;

  // The axis labelled (null: none). It must be a left axis of the chart.
  void setAxis(QLogValueAxis* axis);
  // The labels shown, lowest first (for tests).
  QStringList texts() const;

 private:
  void place();
  void clear();

  QChart* m_chart;
  QPointer<QLogValueAxis> m_axis;
  std::vector<QGraphicsSimpleTextItem*> m_items;
};

}  // namespace opevo::ui
