#include "space/text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace opevo {

std::string_view trim(std::string_view s) {
  const auto notSpace = [](char c) { return c != ' ' && c != '\t' && c != '\n' && c != '\r'; };
  while (!s.empty() && !notSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && !notSpace(s.back())) s.remove_suffix(1);
  return s;
}

std::vector<std::string> splitList(std::string_view s, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == separator) {
      parts.emplace_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  return parts;
}

namespace {

// A leading '+' as a user may write it ("+2"), but one sign only: "+-5" is no number.
std::string_view withoutPlus(std::string_view text) {
  if (text.size() > 1 && text.front() == '+' && text[1] != '-' && text[1] != '+')
    text.remove_prefix(1);
  return text;
}

}  // namespace

bool parseInteger(std::string_view text, std::int64_t& out) {
  text = withoutPlus(trim(text));
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end && !text.empty();
}

bool parseNumber(std::string_view text, double& out) {
  text = withoutPlus(trim(text));
  // Decimal only, in every locale: strtod reads "0x10" as 16 and follows the window's locale
  // for the decimal point, so a value typed in another notation was taken as one nobody meant.
  const auto* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out, std::chars_format::general);
  return ec == std::errc() && ptr == end && !text.empty() && std::isfinite(out);
}

bool parseIntegers(std::string_view text, std::vector<std::int64_t>& out) {
  text = trim(text);
  if (text.size() >= 2 &&
      ((text.front() == '(' && text.back() == ')') || (text.front() == '[' && text.back() == ']')))
    text = text.substr(1, text.size() - 2);
  out.clear();
  if (trim(text).empty()) return false;
  for (const std::string& part : splitList(text, ',')) {
    std::int64_t value = 0;
    if (!parseInteger(part, value)) return false;
    out.push_back(value);
  }
  return true;
}

std::string joinIntegers(const std::vector<std::int64_t>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(v[i]);
  }
  return s;
}

std::string formatNumber(double value) {
  if (std::floor(value) == value && std::fabs(value) < 1e15)
    return std::to_string(static_cast<std::int64_t>(value));
  // Shortest text that reads back, in the C locale whatever the window's: snprintf wrote "0,5"
  // under a comma locale, which parseNumber (decimal only) cannot read back.
  char buffer[64];
  std::string text = "nan";
  for (int precision = 6; precision <= 17; ++precision) {
    const auto [end, ec] =
        std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::general, precision);
    if (ec != std::errc()) break;
    text.assign(buffer, end);
    double back = 0;
    std::from_chars(buffer, end, back);
    if (back == value) break;
  }
  return text;
}

std::string durationText(double seconds) {
  char text[64];
  if (!(seconds > 0) || !std::isfinite(seconds)) {
    std::snprintf(text, sizeof text, "%g s", seconds);
    return text;
  }
  if (seconds >= 99.95) {  // whole seconds: 1234 s, not 1.23e+03
    std::snprintf(text, sizeof text, "%.0f s", seconds);
    return text;
  }
  // Rounded to three digits first, then the unit and the decimals chosen: chosen before, 9.996
  // read "10.00 s" and 0.9996 "1000 ms".
  std::snprintf(text, sizeof text, "%.3g", seconds);
  const double rounded = std::strtod(text, nullptr);
  const bool ms = rounded < 1;
  const double value = ms ? rounded * 1e3 : rounded;
  const int decimals =
      value >= 100 ? 0 : std::max(0, 2 - static_cast<int>(std::floor(std::log10(value))));
  std::snprintf(text, sizeof text, "%.*f %s", decimals, value, ms ? "ms" : "s");
  return text;
}

std::string counted(long long n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

}  // namespace opevo
