#pragma once

#include <QStringList>
#include <QWidget>

namespace opevo::ui {

// The key of the topology picture: the colour ramp over the decades the picture spans below the
// likeliest vertex, disc sizes, and what the outline and the dashed ring mean.
class ProbabilityLegend : public QWidget {
  Q_OBJECT

 public:
  explicit ProbabilityLegend(QWidget* parent = nullptr);
  // The largest probability drawn (the top of the scale; 0 hides the numbers) and the decades
  // the colours span below it (TopologyView::decades()).
  void setScale(double maxP, int decades);
  void setSampledWalks(int walks);  // 0: no ring in the picture
  // What the three sample discs stand for, largest first: the probabilities of discs that size
  // (kSizeFractions of the largest), or "max", "max/4", "max/25" while no scale is set.
  QStringList sizeValues() const;
  static constexpr double kSizeFractions[3] = {1.0, 0.25, 0.04};
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override { return sizeHint(); }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  double m_max = 0;
  int m_decades = 6;
  int m_walks = 0;
};

}  // namespace opevo::ui
