#pragma once

#include <QString>
#include <QWidget>

#include "io/heatmap_svg.h"

namespace opevo::ui {

// A sweep's heat map in the window: the same cells, numbers and colours as the SVG `opevo sweep`
// writes, painted to fit the widget; the best cell (every one tied for it) is outlined.
class HeatMapView : public QWidget {
  Q_OBJECT

 public:
  explicit HeatMapView(QWidget* parent = nullptr);

  void setMap(HeatMap map);
  // What an empty view says (default: how to get a map; while a sweep runs, that it is running).
  void setPlaceholder(const QString& text);
  const HeatMap& map() const { return m_map; }
  QSize sizeHint() const override { return {560, 320}; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  HeatMap m_map;
  QString m_placeholder;
};

}  // namespace opevo::ui
