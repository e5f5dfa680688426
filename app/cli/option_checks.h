#pragma once

#include <CLI/CLI.hpp>

namespace opevo::cli {

// Checks for numeric options that CLI11's own let through: NaN passes its PositiveNumber, and
// an unsigned option takes -1 as 18446744073709551615.
// A finite number above zero (--seconds, --target, --timeout).
CLI::Validator positiveFinite();
// A finite number, zero or more (--min-time-ms).
CLI::Validator nonNegativeFinite();
// Every subcommand's --seed, at any depth: digits only.
void checkSeeds(CLI::App& app);

}  // namespace opevo::cli
