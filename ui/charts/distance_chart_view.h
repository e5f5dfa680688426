#pragma once

#include <QChartView>
#include <QStringList>
#include <vector>

class QBarSeries;
class QBarCategoryAxis;
class QValueAxis;

namespace opevo::ui {

// The q-walk distribution summed by distance from the start vertex, as bars: what the topology
// page shows for a graph too large to draw vertex by vertex. Sampled frequencies, when there are
// some, stand beside the exact bars.
class DistanceChartView : public QChartView {
  Q_OBJECT

 public:
  explicit DistanceChartView(QWidget* parent = nullptr);
  void setExact(std::vector<double> byDistance);
  void setSampled(std::vector<double> byDistance);  // empty: none
  const std::vector<double>& exact() const { return m_exact; }
  const std::vector<double>& sampled() const { return m_sampled; }
  // What the axes show: the distances' labels, and whether they are drawn at all (not while
  // there are no bars).
  QStringList distanceLabels() const;
  bool axesShown() const;

 private:
  void redraw();

  std::vector<double> m_exact;
  std::vector<double> m_sampled;
  QBarSeries* m_series;
  QBarCategoryAxis* m_axisX;
  QValueAxis* m_axisY;
};

}  // namespace opevo::ui
