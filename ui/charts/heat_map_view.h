#pragma once

#include <QWidget>

#include "io/heatmap_svg.h"

namespace opevo::ui {

// A sweep's heat map in the window: the same cells, numbers and colours as the SVG `opevo sweep`
// writes, painted to fit the widget; the best cell is outlined.
class HeatMapView : public QWidget {
  Q_OBJECT

 public:
  explicit HeatMapView(QWidget* parent = nullptr);

  void setMap(HeatMap map);
  const HeatMap& map() const { return m_map; }
  QSize sizeHint() const override { return {560, 320}; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  HeatMap m_map;
};

}  // namespace opevo::ui
