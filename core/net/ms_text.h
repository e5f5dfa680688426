#pragma once

// How a latency in milliseconds is written wherever opevo shows one of a network (the net
// commands, the Networks page): one rule, so the window does not read 0.002 where the command
// line says 0.00156.

#include <string>

namespace opevo::net {

// Below this many milliseconds a latency keeps three significant digits rather than three
// decimals. The exported network program prints its own time by the same rule (its generated
// printf takes this value).
inline constexpr double kSignificantDigitsBelowMs = 0.1;

// Without the unit: three decimals ("10.221"), or three significant digits below
// kSignificantDigitsBelowMs ("0.019", "0.00156", where "%.3f" printed "0.002").
std::string msText(double ms);

}  // namespace opevo::net
