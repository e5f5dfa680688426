#pragma once

#include <optional>
#include <string>
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

// A standalone SVG document. Colours run from dark (lowest value) to light (highest) on a
// perceptually ordered ramp, so the best cell is found at a glance and in grey print.
std::string heatMapSvg(const HeatMap& map);

}  // namespace opevo
