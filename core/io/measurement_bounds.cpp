#include "io/measurement_bounds.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <string_view>

namespace opevo {
namespace {

std::string number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}

bool endsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// The factor of an SI or binary prefix ("", "k", "M", "G", "Gi", ...), 0 for anything else. M is
// mega only in capitals (m would be milli, meaningless for a rate of work); the others in either
// case, as tools write them (Gflops, gflops).
double prefixFactor(std::string_view prefix) {
  if (prefix.empty()) return 1;
  const bool binary = prefix.size() == 2 && prefix[1] == 'i';
  if (prefix.size() != 1 && !binary) return 0;
  const char p = prefix[0];
  const int power = p == 'k' || p == 'K'   ? 1
                    : p == 'M'             ? 2
                    : p == 'g' || p == 'G' ? 3
                    : p == 't' || p == 'T' ? 4
                    : p == 'p' || p == 'P' ? 5
                    : p == 'e' || p == 'E' ? 6
                                           : 0;
  if (power == 0) return 0;
  return std::pow(binary ? 1024.0 : 1000.0, power);
}

}  // namespace

std::optional<std::string> implausibleTimeMs(double ms) {
  if (!std::isfinite(ms)) return "is not a finite number";
  if (ms <= 0) return "is " + number(ms) + " ms, not above 0";
  if (ms < kShortestMeasuredMs)
    return "is " + number(ms) + " ms, under the " + number(kShortestMeasuredMs) +
           " ms (1 ns) that timing any kernel takes at the least";
  return std::nullopt;
}

double perSecondIn(const std::string& unit) {
  std::string lower = unit;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::string_view prefix;
  if (endsWith(lower, "flop/s") || endsWith(lower, "flops"))
    prefix = std::string_view(unit).substr(0, unit.size() - (endsWith(lower, "flops") ? 5 : 6));
  else if (endsWith(unit, "B/s"))  // a capital B: bytes (b/s would be bits)
    prefix = std::string_view(unit).substr(0, unit.size() - 3);
  else if (endsWith(lower, "bytes/s"))
    prefix = std::string_view(unit).substr(0, unit.size() - 7);
  else
    return 0;
  return prefixFactor(prefix);
}

std::optional<std::string> implausibleThroughput(double value, const std::string& unit) {
  if (!std::isfinite(value)) return "is not a finite number";
  const double perSecond = perSecondIn(unit);
  if (perSecond > 0 && value * perSecond > kFastestPerSecond)
    return "is " + number(value) + " " + unit + ", more than the " + number(kFastestPerSecond) +
           " a second (1e6 TFLOPS, 1e6 TB/s) that no kernel on one device reaches";
  return std::nullopt;
}

}  // namespace opevo
