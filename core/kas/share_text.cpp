#include "kas/share_text.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace opevo::kas {

std::string shareText(double share) {
  if (std::isnan(share)) return "-";
  if (share <= 0) return "0%";
  const double percent = share * 100;
  char buf[64];
  // Below a billionth of a percent the digits say nothing more than "not zero" does.
  if (percent < 1e-9) {
    std::snprintf(buf, sizeof buf, "%.1e%%", percent);
    return buf;
  }
  const int decade = static_cast<int>(std::floor(std::log10(percent)));
  int decimals = percent >= 10 ? 0 : 1 - decade;
  std::snprintf(buf, sizeof buf, "%.*f", decimals, percent);
  // 9.96 rounds to "10.0": one decimal fewer keeps two digits.
  if (decimals > 0 && std::strtod(buf, nullptr) >= std::pow(10.0, decade + 1))
    std::snprintf(buf, sizeof buf, "%.*f", --decimals, percent);
  return std::string(buf) + "%";
}

}  // namespace opevo::kas
