#pragma once

#include <QChartView>
#include <QStringList>
#include <optional>
#include <vector>

#include "ui/controller/kas_types.h"

class QGraphicsSimpleTextItem;
class QLineSeries;
class QScatterSeries;
class QLogValueAxis;
class QValueAxis;

namespace opevo::ui {

// Canvas's trade-off (seed 004, Figure 7) for one search: every trained candidate as a point,
// speed-up over the convolution it replaces against test accuracy; the Pareto front as larger
// points joined by a step line; the baseline (standard convolutions: speed-up 1, its accuracy) as
// two labelled dashed lines; candidates whose training was cut early as hollow squares (their
// accuracy is that of fewer epochs); candidates whose training diverged as crossed triangles of
// their own (their accuracy is chance's, not a trade-off). Clicking a point selects its candidate.
class KasScatterChart : public QChartView {
  Q_OBJECT

 public:
  explicit KasScatterChart(QWidget* parent = nullptr);

  void setSnapshot(const KasSnapshot& snapshot);
  void clear();
  // The candidate drawn with a ring (0: none).
  void setSelected(int seq);
  int selected() const { return m_selected; }

  // For tests: points drawn (all, on the front, stopped early) and where a candidate's point is
  // in the view's viewport (nullopt when it is not plotted).
  int pointCount() const { return static_cast<int>(m_points.size()); }
  int frontCount() const { return m_frontCount; }
  int earlyCount() const;
  int divergedCount() const;
  std::optional<QPoint> viewportPosition(int seq) const;
  QString baselineLabel() const;
  // The label of the convolution's 1x line as drawn (shortened where the plot has no room).
  QString speedLabel() const;
  QRectF speedLabelRect() const;  // in the chart's coordinates
  // The speed-up axis: its base (2, 4 or 16: the fewest ticks whose labels fit) and labels.
  double speedAxisBase() const;
  QStringList speedTickTexts() const;
  // Narrower than this, the axis title and legend names are the short ones.
  static constexpr int kCompactWidth = 400;

 signals:
  void candidateClicked(int seq);

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  struct Point {
    int seq = 0;
    QPointF value;  // speed-up, accuracy in %
    QString hash;
  };

  void pointClicked(const QPointF& value);
  void pointHovered(const QPointF& value, bool state);
  const Point* pointAt(const QPointF& value) const;
  void placeLabels();
  // The axis title and legend names, short ones when m_compact.
  void setTitles();
  // The speed-up axis's range and base for m_speedSpan: base 2 (a tick at 0.5x, 1x, 2x...) where
  // its labels fit the plot's width, else 4 or 16. A search spanning 0.27x to 9.6x had eight
  // ticks at 1024x700 and read "0.... 0.... 0.5 1 2 4 8 16".
  void fitSpeedAxis();

  QScatterSeries* m_trained;
  QScatterSeries* m_early;
  QScatterSeries* m_diverged;
  QScatterSeries* m_front;
  QLineSeries* m_frontLine;
  QLineSeries* m_baselineAccuracy;
  QLineSeries* m_convolutionSpeed;
  QScatterSeries* m_ring;
  QLogValueAxis* m_x;
  QValueAxis* m_y;
  QGraphicsSimpleTextItem* m_accuracyLabel;
  QGraphicsSimpleTextItem* m_speedLabel;
  std::vector<Point> m_points;
  std::optional<double> m_baseline;                 // in %
  std::pair<double, double> m_speedSpan{1.0, 1.0};  // the speed-ups plotted, 1x included
  QString m_speedText, m_speedShort;                // "oneDNN convolution (1×)", "oneDNN (1×)"
  int m_selected = 0;
  int m_frontCount = 0;
  bool m_compact = false;
};

}  // namespace opevo::ui
