#include "io/heatmap_svg.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace opevo {
namespace {

std::string escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '"')
      out += "&quot;";
    else
      out += c;
  }
  return out;
}

std::string hex(const HeatColour& c) {
  char out[8];
  std::snprintf(out, sizeof out, "#%02x%02x%02x", c.r, c.g, c.b);
  return out;
}

}  // namespace

HeatColour heatColour(double t) {
  struct Rgb {
    double r, g, b;
  };
  // Anchors of a viridis-like ramp (dark blue, teal, green, yellow), interpolated linearly.
  static constexpr std::array<Rgb, 5> anchors = {
      {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}}};
  t = std::clamp(t, 0.0, 1.0) * (anchors.size() - 1);
  const auto i = std::min<std::size_t>(static_cast<std::size_t>(t), anchors.size() - 2);
  const double f = t - static_cast<double>(i);
  const Rgb& a = anchors[i];
  const Rgb& b = anchors[i + 1];
  return {static_cast<int>(std::lround(a.r + (b.r - a.r) * f)),
          static_cast<int>(std::lround(a.g + (b.g - a.g) * f)),
          static_cast<int>(std::lround(a.b + (b.b - a.b) * f))};
}

std::pair<double, double> heatRange(const HeatMap& map) {
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& row : map.values)
    for (const auto& v : row)
      if (v) lo = std::min(lo, *v), hi = std::max(hi, *v);
  return {lo, hi};
}

std::string heatNumber(double value) {
  char out[32];
  std::snprintf(out, sizeof out, "%.3f", value);
  return out;
}

bool heatBest(double value, double highest) {
  return heatNumber(value) == heatNumber(highest);
}

std::string heatLegend(const HeatMap& map) {
  const auto [lo, hi] = heatRange(map);
  if (lo > hi) return {};
  int best = 0;
  for (const auto& row : map.values)
    for (const auto& v : row) best += v && heatBest(*v, hi) ? 1 : 0;
  return "lowest " + heatNumber(lo) + " (dark) to highest " + heatNumber(hi) +
         (best > 1 ? " (light; the " + std::to_string(best) + " cells tied for it outlined)"
                   : " (light, outlined)");
}

std::optional<double> heatError(const HeatMap& map, std::size_t row, std::size_t column) {
  if (row >= map.errors.size() || column >= map.errors[row].size()) return std::nullopt;
  return map.errors[row][column];
}

namespace {

std::optional<double> valueAt(const HeatMap& map, std::size_t row, std::size_t column) {
  if (row >= map.values.size() || column >= map.values[row].size()) return std::nullopt;
  return map.values[row][column];
}

// The first cell holding the highest value: the one the others are told apart from.
std::optional<std::pair<std::size_t, std::size_t>> bestCell(const HeatMap& map) {
  std::optional<std::pair<std::size_t, std::size_t>> best;
  for (std::size_t r = 0; r < map.values.size(); ++r)
    for (std::size_t c = 0; c < map.values[r].size(); ++c)
      if (map.values[r][c] &&
          (!best || *map.values[r][c] > *valueAt(map, best->first, best->second)))
        best = {r, c};
  return best;
}

}  // namespace

bool heatWithinNoise(const HeatMap& map, std::size_t row, std::size_t column) {
  const auto best = bestCell(map);
  const std::optional<double> value = valueAt(map, row, column);
  if (!best || !value) return false;
  const double top = *valueAt(map, best->first, best->second);
  if (heatBest(*value, top)) return false;  // outlined as the best already
  const std::optional<double> mine = heatError(map, row, column);
  const std::optional<double> theirs = heatError(map, best->first, best->second);
  if (!mine || !theirs) return false;
  return top - *value <= std::sqrt(*mine * *mine + *theirs * *theirs);
}

std::string heatNoiseLegend(const HeatMap& map) {
  bool any = false;
  int close = 0;
  for (std::size_t r = 0; r < map.values.size(); ++r)
    for (std::size_t c = 0; c < map.values[r].size(); ++c) {
      any = any || heatError(map, r, c).has_value();
      close += heatWithinNoise(map, r, c) ? 1 : 0;
    }
  if (!any) return {};
  return "\u00b1 one standard error of the mean over the repeats; " +
         (close == 0
              ? std::string("no other cell is within it of the best")
              : std::to_string(close) + (close == 1 ? " other cell is" : " other cells are") +
                    " within it of the best, not told apart from it by these repeats "
                    "(dashed outline)");
}

std::string heatMapSvg(const HeatMap& map) {
  const auto [lo, hi] = heatRange(map);
  const int cellW = 84, cellH = 40, left = 120, top = 70;
  // Wide enough for the title and the legend too (about 0.6 em a character in sans-serif).
  const std::string noise = heatNoiseLegend(map);
  const std::size_t legendChars = std::max({heatLegend(map).size(), noise.size(), std::size_t{48}});
  const int textWidth =
      static_cast<int>(std::max<std::size_t>(map.title.size() * 9, legendChars * 8)) + 40;
  const int width = std::max(left + cellW * static_cast<int>(map.columns.size()) + 20, textWidth);
  const int height = top + cellH * static_cast<int>(map.rows.size()) + (noise.empty() ? 60 : 80);
  std::ostringstream svg, best;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
      << "\" font-family=\"sans-serif\" font-size=\"13\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << "<text x=\"" << width / 2 << "\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">"
      << escaped(map.title) << "</text>\n"
      << "<text x=\"" << left + cellW * static_cast<int>(map.columns.size()) / 2
      << "\" y=\"44\" text-anchor=\"middle\" font-weight=\"bold\">" << escaped(map.columnName)
      << "</text>\n"
      << "<text x=\"12\" y=\"" << top - 8 << "\" font-weight=\"bold\">" << escaped(map.rowName)
      << "</text>\n";
  for (std::size_t c = 0; c < map.columns.size(); ++c)
    svg << "<text x=\"" << left + cellW * static_cast<int>(c) + cellW / 2 << "\" y=\"" << top - 8
        << "\" text-anchor=\"middle\">" << escaped(map.columns[c]) << "</text>\n";
  for (std::size_t r = 0; r < map.rows.size(); ++r) {
    const int y = top + cellH * static_cast<int>(r);
    svg << "<text x=\"" << left - 10 << "\" y=\"" << y + cellH / 2 + 5 << "\" text-anchor=\"end\">"
        << escaped(map.rows[r]) << "</text>\n";
    for (std::size_t c = 0; c < map.columns.size(); ++c) {
      const int x = left + cellW * static_cast<int>(c);
      const bool known =
          r < map.values.size() && c < map.values[r].size() && map.values[r][c].has_value();
      const double value = known ? map.values[r][c].value() : 0.0;
      const double t = known && hi > lo ? (value - lo) / (hi - lo) : 1.0;
      const HeatColour colour = known ? heatColour(t) : HeatColour{230, 230, 230};
      const bool light = colour.light();
      const std::optional<double> error = known ? heatError(map, r, c) : std::nullopt;
      const char* ink = light ? "black" : "white";
      svg << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << cellW << "\" height=\""
          << cellH << "\" fill=\"" << hex(colour) << "\" stroke=\"white\"/>\n"
          << "<text x=\"" << x + cellW / 2 << "\" y=\"" << y + cellH / 2 + (error ? -1 : 5)
          << "\" text-anchor=\"middle\" fill=\"" << ink << "\">"
          << (known ? heatNumber(value) : std::string("-")) << "</text>\n";
      if (error)
        svg << "<text class=\"se\" x=\"" << x + cellW / 2 << "\" y=\"" << y + cellH / 2 + 13
            << "\" text-anchor=\"middle\" font-size=\"10\" fill=\"" << ink << "\">\u00b1"
            << heatNumber(*error) << "</text>\n";
      if (known && heatBest(value, hi))
        best << "<rect class=\"best\" x=\"" << x + 2 << "\" y=\"" << y + 2 << "\" width=\""
             << cellW - 4 << "\" height=\"" << cellH - 4
             << "\" fill=\"none\" stroke=\"#308cc6\" stroke-width=\"3\"/>\n";
      else if (heatWithinNoise(map, r, c))
        best << "<rect class=\"within-noise\" x=\"" << x + 2 << "\" y=\"" << y + 2 << "\" width=\""
             << cellW - 4 << "\" height=\"" << cellH - 4 << "\" fill=\"none\" stroke=\""
             << ink  // seen on any colour, unlike the blue
             << "\" stroke-width=\"2\" stroke-dasharray=\"5,3\"/>\n";
    }
  }
  // Drawn last, over every cell, as the window draws them.
  svg << best.str();
  const int legendY = height - (noise.empty() ? 20 : 40);
  if (const std::string legend = heatLegend(map); !legend.empty())
    svg << "<text x=\"" << left << "\" y=\"" << legendY << "\">" << escaped(legend) << "</text>\n";
  if (!noise.empty())
    svg << "<text x=\"" << left << "\" y=\"" << legendY + 20 << "\">" << escaped(noise)
        << "</text>\n";
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace opevo
