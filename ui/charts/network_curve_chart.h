#pragma once

#include <QChartView>
#include <QPointF>
#include <QStringList>
#include <optional>
#include <vector>

#include "ui/controller/network_types.h"

class QAbstractAxis;
class QLineSeries;
class QLogValueAxis;
class QScatterSeries;
class QValueAxis;

namespace opevo::ui {

class LegendRows;
class LogAxisLabels;
class PlotNote;

// Contenders' labels ("opevo-m / gradient / joint") split into what they all share, said once
// in the chart's title, and what tells each apart, its legend entry (the algorithm where nothing
// does): long labels were elided in the legend even at 1280 pixels.
struct ContenderNames {
  QString shared;
  QStringList legend;
};
ContenderNames contenderNames(const QStringList& labels);

// The OpEvo paper's Figure 6, live: each contender's estimated network latency (sum of weight x
// best task latency) against the network's trials, libtorch's measured forward as a dashed line,
// and each tuned network's measured end-to-end latency as a marker at its last trial.
class NetworkCurveChart : public QChartView {
  Q_OBJECT

 public:
  explicit NetworkCurveChart(QWidget* parent = nullptr);

  void setSnapshot(const NetworkSnapshot& snapshot);
  void clear();
  int curvePointCount(int contender) const;
  // The square marking where a contender's kept network (untuned or mixed, when it ran faster
  // than the tuned one) was measured; none where the tuned network was kept.
  std::optional<QPointF> keptMarker(int contender) const;
  bool hasReferenceLine() const;
  // Whether the latency axis is logarithmic: values spanning decades (libtorch's 11 ms beside a
  // tuned 0.01 ms) are, else the smaller lies flat on zero.
  bool logScale() const { return m_logY; }
  QValueAxis* trialsAxis() const { return m_x; }
  QAbstractAxis* yAxis() const;
  // The legend: every entry whole, in as many rows below the plot as the chart's width needs.
  const LegendRows* legend() const { return m_legend; }
  // The note over an empty plot ("No latency yet"); empty while hidden.
  QString emptyNote() const;

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  // The first of the titles (longest first) that fits the chart's width, else the last elided.
  void applyTitle();
  void fitLegend();
  void resetAxes();
  void setLogY(bool on);
  QStringList m_titles;
  std::vector<QLineSeries*> m_curves;
  std::vector<QScatterSeries*> m_measured;
  std::vector<QScatterSeries*> m_kept;
  QLineSeries* m_reference = nullptr;
  QValueAxis* m_x;
  QValueAxis* m_y;
  QLogValueAxis* m_yLog;
  LogAxisLabels* m_logLabels;  // between the decades of the log axis
  LegendRows* m_legend;
  PlotNote* m_emptyNote;
  bool m_logY = false;
};

}  // namespace opevo::ui
