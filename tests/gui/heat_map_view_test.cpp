// The sweep's heat map as painted: the cells tied for the highest value are all outlined.
#include "ui/charts/heat_map_view.h"

#include <gtest/gtest.h>

#include <QImage>
#include <QPalette>

namespace opevo::ui {
namespace {

// Pixels painted in the highlight colour (the outlines) on a 2 x 3 map of these values.
int outlinePixels(std::vector<std::vector<std::optional<double>>> values) {
  // Built whole: GCC 12 warns (-Wrestrict) on assigning a short literal to a member here.
  const HeatMap map{"ties", "q", "lambda", {"0.2", "0.5"}, {"4", "8", "16"}, std::move(values)};
  HeatMapView view;
  view.resize(560, 320);
  view.setMap(map);
  const QImage image = view.grab().toImage();
  const QColor highlight = view.palette().color(QPalette::Highlight);
  int pixels = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) pixels += image.pixelColor(x, y) == highlight ? 1 : 0;
  return pixels;
}

TEST(HeatMapView, OutlinesEveryCellTiedForTheBest) {
  const int one = outlinePixels({{1.0, 3.0, 2.0}, {2.5, std::nullopt, 0.5}});
  const int two = outlinePixels({{1.0, 3.0, 2.0}, {3.0, std::nullopt, 0.5}});
  ASSERT_GT(one, 100) << "the best cell is not outlined";
  // The cells are equal in size: two outlines paint twice the pixels of one.
  EXPECT_NEAR(double(two) / one, 2.0, 0.1);
  // Tied as the cells read: 2.9999996 shows as the 3.0 beside it does.
  const int shown = outlinePixels({{1.0, 3.0, 2.0}, {2.9999996, std::nullopt, 0.5}});
  EXPECT_NEAR(double(shown) / one, 2.0, 0.1);
}

}  // namespace
}  // namespace opevo::ui
