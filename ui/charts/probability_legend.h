#pragma once

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
