#include "engine/speed_unit.h"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace opevo {

std::string deviceSpeedUnit(const std::string& backend) {
  return backend == "cpu" ? "GFLOP/s" : "TFLOPS";
}

double flopsPerSecondIn(const std::string& unit) {
  if (unit == "TFLOPS") return 1e12;
  if (unit == "GFLOP/s") return 1e9;
  return 0;
}

double speedIn(const std::string& unit, double flops, double ms) {
  return ms > 0 ? flops / (ms * 1e-3) / flopsPerSecondIn(unit) : 0;
}

std::string speedNumber(double speed, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*g", digits, speed);
  // %g turns to an exponent once the rounded figure needs more digits (9999.6 -> "1e+04").
  if (std::fabs(speed) >= 1 && std::strchr(text, 'e'))
    std::snprintf(text, sizeof text, "%.0f", speed);
  return text;
}

}  // namespace opevo
