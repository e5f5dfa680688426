#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace opevo {

// A grid of numbers with named rows and columns, drawn as coloured cells with the number in each
// (a hyper-parameter sweep's mean fraction of optimum, say).
struct HeatMap {
  std::string title;
  std::string rowName, columnName;  // e.g. "q", "lambda"
  std::vector<std::string> rows, columns;
  std::vector<std::vector<std::optional<double>>> values;  // [row][column]; nullopt: no value
};

// The colour of a value at t in [0, 1] of the map's range (0 lowest): a viridis-like ramp, so the
// window draws the same colours as the SVG.
struct HeatColour {
  int r = 0, g = 0, b = 0;
  bool light() const { return 0.299 * r + 0.587 * g + 0.114 * b > 140; }  // dark text on it
};
HeatColour heatColour(double t);
// The lowest and highest values present (lowest > highest when there is none).
std::pair<double, double> heatRange(const HeatMap& map);
std::string heatNumber(double value);  // as the cells show it: "0.946"
// Whether a cell of this value is outlined as the best: tied with the highest as the cells read
// (0.99996 shows "1.000" beside a 1.0, and is outlined with it): a tie is not one winner.
bool heatBest(double value, double highest);
// The line under the map, the same in the window and the SVG: "lowest 0.812 (dark) to highest
// 0.946 (light, outlined)"; empty when the map holds no value.
std::string heatLegend(const HeatMap& map);

// A standalone SVG document. Colours run from dark (lowest value) to light (highest) on a
// perceptually ordered ramp, so the best cell is found at a glance and in grey print; the best
// cells are outlined, as in the window.
std::string heatMapSvg(const HeatMap& map);

}  // namespace opevo
