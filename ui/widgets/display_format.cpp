#include "ui/widgets/display_format.h"

#include <QLocale>
#include <algorithm>
#include <cctype>
#include <cmath>
#include <iterator>

namespace opevo::ui {

QString groupDigits(const std::string& digits) {
  const bool allDigits = !digits.empty() && std::all_of(digits.begin(), digits.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  });
  QString text = QString::fromStdString(digits);
  if (!allDigits) return text;
  for (qsizetype i = text.size() - 3; i > 0; i -= 3) text.insert(i, QLatin1Char(','));
  return text;
}

QString formatSpeed(double v) {
  if (!(v > 0) || !std::isfinite(v)) return QStringLiteral("0");
  const int decimals = std::clamp(3 - static_cast<int>(std::floor(std::log10(v))), 0, 6);
  return QLocale().toString(v, 'f', decimals);
}

QString formatFlop(double flop) {
  static const char* const units[] = {"FLOP", "kFLOP", "MFLOP", "GFLOP", "TFLOP", "PFLOP"};
  constexpr int last = static_cast<int>(std::size(units)) - 1;
  if (!(flop > 0) || !std::isfinite(flop)) return QStringLiteral("0 FLOP");
  int unit = std::clamp(static_cast<int>(std::floor(std::log10(flop) / 3)), 0, last);
  double scaled = flop / std::pow(1000.0, unit);
  // 999.96 would round to "1,000.0": the next unit's "1.000" instead.
  if (scaled >= 999.95 && unit < last) scaled /= 1000, ++unit;
  return formatSpeed(scaled) + QLatin1Char(' ') + QLatin1String(units[unit]);
}

QString formatProbability(double p) {
  if (p == 0.0 || p >= 1e-6) return QString::number(p, 'f', 10);
  return QString::number(p, 'e', 4);
}

}  // namespace opevo::ui
