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

QString formatWithPrefix(double v) {
  static const char* const prefixes[] = {"", "k", "M", "G", "T", "P"};
  constexpr int last = static_cast<int>(std::size(prefixes)) - 1;
  if (!(v > 0) || !std::isfinite(v)) return QStringLiteral("0");
  int prefix = std::clamp(static_cast<int>(std::floor(std::log10(v) / 3)), 0, last);
  double scaled = v / std::pow(1000.0, prefix);
  // 999.96 would round to "1,000.0": the next prefix's "1.000" instead (at least 0.99995, which
  // reads 1.000 at the four digits a 1 gets).
  if (scaled >= 999.95 && prefix < last) scaled = std::max(scaled / 1000, 1.0), ++prefix;
  const QString number = formatSpeed(scaled);
  return number + QLatin1String(prefixes[prefix]);
}

QString formatProbability(double p) {
  if (p == 0.0 || p >= 1e-6) return QString::number(p, 'f', 10);
  return QString::number(p, 'e', 4);
}

}  // namespace opevo::ui
