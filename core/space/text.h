#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace opevo {

std::string_view trim(std::string_view s);
std::vector<std::string> splitList(std::string_view s, char separator);
// Parses "8,1,1" (brackets and spaces allowed); false if any element is not an integer.
bool parseIntegers(std::string_view text, std::vector<std::int64_t>& out);
bool parseInteger(std::string_view text, std::int64_t& out);
// Decimal notation only ("1e3", "0.5", "+2"); "0x10", "inf" and "nan" are not numbers here.
bool parseNumber(std::string_view text, double& out);
std::string joinIntegers(const std::vector<std::int64_t>& v);
// Shortest text that reads back to the same double; integers without a decimal point.
std::string formatNumber(double value);
// A duration for a person, in seconds or below one in milliseconds, three significant digits and
// never an exponent: "4.2e-06 s" and "1.23e+03 s" were what "%.3g s" wrote ("0.0042 ms", "1234 s").
std::string durationText(double seconds);
// "1 trial", "3 trials": the count and its noun, singular for one.
std::string counted(long long n, std::string_view one, std::string_view many);

}  // namespace opevo
