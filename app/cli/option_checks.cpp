#include "cli/option_checks.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "common/error.h"
#include "space/text.h"

namespace opevo::cli {
namespace {

CLI::Validator finite(bool zeroAllowed) {
  return CLI::Validator(
      [zeroAllowed](std::string& text) -> std::string {
        double v = 0;
        const bool ok = parseNumber(text, v) && (zeroAllowed ? v >= 0 : v > 0);
        if (ok) return "";
        return "must be a finite number " + std::string(zeroAllowed ? "of 0 or more" : "above 0") +
               ", got " + text;
      },
      zeroAllowed ? "NUMBER>=0" : "NUMBER>0");
}

// "010" or "-07": CLI11 converts a whole number in base 0, so a leading zero makes it octal
// (--trials 010 ran 8 trials).
bool octalLooking(const std::string& text) {
  std::string_view digits = trim(text);
  if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) digits.remove_prefix(1);
  return digits.size() > 1 && digits[0] == '0';
}

// A whole number as parseInteger reads it (decimal, sign, spaces), not octal-looking.
bool parseWhole(const std::string& text, long long& out) {
  std::int64_t v = 0;
  if (octalLooking(text) || !parseInteger(text, v)) return false;
  out = v;
  return true;
}

std::string got(const std::string& text) {
  return ", got " + text + (octalLooking(text) ? " (write it without the leading zero)" : "");
}

}  // namespace

CLI::Validator atLeast(long long least) {
  return CLI::Validator(
      [least](std::string& text) -> std::string {
        long long v = 0;
        if (parseWhole(text, v) && v >= least) return "";
        return "must be a whole number of " + std::to_string(least) + " or more" + got(text);
      },
      "INT>=" + std::to_string(least));
}

CLI::Validator wholeIn(long long least, long long most) {
  const std::string range = std::to_string(least) + " to " + std::to_string(most);
  return CLI::Validator(
      [least, most, range](std::string& text) -> std::string {
        long long v = 0;
        if (parseWhole(text, v) && v >= least && v <= most) return "";
        return "must be a whole number from " + range + got(text);
      },
      "INT in " + range);
}

CLI::Validator parsedBy(std::function<void(const std::string&)> parse, std::string typeName) {
  return CLI::Validator(
      [parse = std::move(parse)](std::string& text) -> std::string {
        try {
          parse(text);
          return "";
        } catch (const InputError& e) {
          return e.what();
        }
      },
      std::move(typeName));
}

CLI::Validator numberIn(double least, double most) {
  const std::string range = formatNumber(least) + " to " + formatNumber(most);
  return CLI::Validator(
      [least, most, range](std::string& text) -> std::string {
        double v = 0;
        if (parseNumber(text, v) && v >= least && v <= most) return "";
        return "must be a number from " + range + ", got " + text;
      },
      "NUMBER in " + range);
}

CLI::Validator positiveFinite() {
  return finite(false);
}

CLI::Validator nonNegativeFinite() {
  return finite(true);
}

void checkNumbers(CLI::App& app) {
  if (CLI::Option* seed = app.get_option_no_throw("--seed"))
    seed->check(CLI::Validator(
        [](std::string& text) -> std::string {
          bool digits = !text.empty();
          for (char c : text) digits = digits && std::isdigit(static_cast<unsigned char>(c));
          return digits ? "" : "a seed is a whole number of 0 or more, got " + text;
        },
        "SEED"));
  const CLI::Validator decimal(
      [](std::string& text) -> std::string {
        double ignored = 0;
        return parseNumber(text, ignored) ? "" : "must be a decimal number, got " + text;
      },
      "");  // no description: the option's help keeps its own type name
  // A whole number past the largest of its type: CLI11 took 99999999999999999999 as the largest
  // (strtoll saturates), and `opevo show` answered "no run 9223372036854775807".
  const auto fits = [](bool isUnsigned) {
    return CLI::Validator(
        [isUnsigned](std::string& text) -> std::string {
          errno = 0;
          char* end = nullptr;
          if (isUnsigned)
            std::strtoull(text.c_str(), &end, 10);
          else
            std::strtoll(text.c_str(), &end, 10);
          const bool whole = end != text.c_str() && *end == '\0';
          return whole && errno == ERANGE ? "is too large, got " + text : "";
        },
        "");
  };
  const CLI::Validator notOctal(
      [](std::string& text) -> std::string {
        return octalLooking(text) ? "must be written without a leading zero, got " + text : "";
      },
      "");
  for (CLI::Option* o : app.get_options()) {
    // The type names CLI11 gives int, unsigned and floating options (and vectors of them).
    const std::string type = o->get_type_name();
    const auto is = [&](const char* name) { return type.rfind(name, 0) == 0; };
    if (o->get_expected_min() > 0 && (is("INT") || is("UINT") || is("FLOAT"))) o->check(decimal);
    if (o->get_expected_min() > 0 && (is("INT") || is("UINT"))) {
      o->check(fits(is("UINT")));
      o->check(notOctal);
    }
  }
  for (CLI::App* sub : app.get_subcommands({})) checkNumbers(*sub);
}

void checkDatabaseOptions(CLI::App& app) {
  if (CLI::Option* db = app.get_option_no_throw("--db"))
    db->check(CLI::Validator(
        [](std::string& text) -> std::string {
          if (text.empty())
            return "is empty (leave --db out for the default database, or name a file)";
          // "newdir/" names a folder: the store says so.
          if (!std::filesystem::path(text).has_filename()) return "";
          const std::filesystem::path folder = std::filesystem::path(text).parent_path();
          std::error_code ec;
          if (!folder.empty() && !std::filesystem::is_directory(folder, ec))
            return ec && ec != std::errc::no_such_file_or_directory
                       ? "names a file in '" + folder.string() + "', which cannot be read (" +
                             ec.message() + ")"
                       : "names a file in '" + folder.string() +
                             "', which is not a folder here (create it first, or check the path)";
          return "";
        },
        ""));
  for (CLI::App* sub : app.get_subcommands({})) checkDatabaseOptions(*sub);
}

}  // namespace opevo::cli
