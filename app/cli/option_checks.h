#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>

namespace opevo::cli {

// Checks for numeric options that CLI11's own let through: NaN passes its PositiveNumber, and
// an unsigned option takes -1 as 18446744073709551615.
// A finite number above zero (--seconds, --target, --timeout).
CLI::Validator positiveFinite();
// A finite number, zero or more (--min-time-ms).
CLI::Validator nonNegativeFinite();
// A whole number of at least `least` (counts: --candidates, --groups): CLI11's PositiveNumber
// takes 1.5 for an int and names its range with three hundred digits. Whole numbers are decimal
// with no leading zero, here and in checkNumbers: CLI11 reads "010" as octal 8.
CLI::Validator atLeast(long long least);
// A whole number from `least` to `most` (--repeats, --runs): CLI11's Range answered "abc" with
// "Value abc not in range 1 to 1000", as though abc were a number too large.
CLI::Validator wholeIn(long long least, long long most);
// A decimal number from `least` to `most` (--theta, --flops).
CLI::Validator numberIn(double least, double most);
// A value `parse` accepts, for options read by a parser of the core: its InputError becomes
// CLI11's message, which names the option (so `parse` is given no option name).
CLI::Validator parsedBy(std::function<void(const std::string&)> parse, std::string typeName);
// Every numeric option of every subcommand, at any depth, in decimal only: CLI11 reads "0x10" as
// 16, "0b11" as 3 and "0o17" as 15 for a whole number, where nobody meant them (parseNumber, which
// reads --set and the duration options, refuses them). A --seed is digits only.
void checkNumbers(CLI::App& app);
// Every --db of every subcommand names a file in a folder that exists: an empty value (an unset
// shell variable) would fall back to OPEVO_DB or the user's database without a word, and a
// mistyped folder would start a new, empty history there.
void checkDatabaseOptions(CLI::App& app);

}  // namespace opevo::cli
