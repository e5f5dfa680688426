#pragma once

#include <QString>
#include <string>

namespace opevo::ui {

// "3194400" -> "3,194,400". Counts come from Count::toString(), which may also be a sentence
// ("more than 3.4e38"); anything that is not all digits is returned unchanged.
QString groupDigits(const std::string& digits);

// Fixed decimals while they mean something, scientific below that, so a column of probabilities
// from 0.5 down to 1e-20 stays readable and never shows a misleading 0.00000000.
QString formatProbability(double p);

}  // namespace opevo::ui
