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
  // Each value's standard error (a mean over repeats: their sample std / sqrt(repeats)), in the
  // values' unit; empty, or nullopt in a cell, when not known. The colours stretch from the lowest
  // value to the highest whatever the noise, so the map shows it beside each value and marks the
  // cells it cannot tell from the best.
  std::vector<std::vector<std::optional<double>>> errors{};
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

// The standard error of a cell, when the map has one for it.
std::optional<double> heatError(const HeatMap& map, std::size_t row, std::size_t column);
// Whether a cell is within noise of the best (highest) cell: its distance to it is at most the
// standard error of that difference, sqrt(SE_best^2 + SE_cell^2). False when either has no
// standard error, and for the best cell itself.
bool heatWithinNoise(const HeatMap& map, std::size_t row, std::size_t column);
// The line on noise under the legend, the same in the window and the SVG: "± one standard error
// of the mean over the repeats; dashed: within it of the best (3 cells)"; empty when the map has
// no standard errors.
std::string heatNoiseLegend(const HeatMap& map);

// A standalone SVG document. Colours run from dark (lowest value) to light (highest) on a
// perceptually ordered ramp, so the best cell is found at a glance and in grey print; the best
// cells are outlined, as in the window. With standard errors, each cell shows its own under its
// value, and the cells within noise of the best have a dashed outline.
std::string heatMapSvg(const HeatMap& map);

}  // namespace opevo
