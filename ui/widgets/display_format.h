#pragma once

#include <QString>
#include <string>

namespace opevo::ui {

// "3194400" -> "3,194,400". Counts come from Count::toString(), which may also be a sentence
// ("more than 3.4e38"); anything that is not all digits is returned unchanged.
QString groupDigits(const std::string& digits);

// A speed to about four significant digits whatever the unit, digits grouped: 11,972 GFLOP/s
// and 0.09075 TFLOPS both read well (a fixed two decimals showed a CPU's TFLOPS as 0.00, and
// %g wrote 1.102e+04).
QString formatSpeed(double v);

// A quantity with the SI prefix that keeps it between 1 and 1000 (none, k, M, G, T, P), to four
// significant digits as formatSpeed writes them: "128.0k", "231.2M", "1.850G", no wider than a
// narrow table's column needs. For a column whose header names the unit (the Networks page's FLOP:
// a small network's task of 0.2 MFLOP read "0.000" in a column of GFLOP).
QString formatWithPrefix(double v);

// Fixed decimals while they mean something, scientific below that, so a column of probabilities
// from 0.5 down to 1e-20 stays readable and never shows a misleading 0.00000000.
QString formatProbability(double p);

}  // namespace opevo::ui
