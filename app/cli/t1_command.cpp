#include <cstdio>

#include "cli/commands.h"
#include "cli/option_checks.h"
#include "common/error.h"
#include "io/t1_space.h"

namespace opevo::cli {
namespace {

struct T1Options {
  std::string file;
  std::uint64_t maxPoints = 20'000'000;
};

std::string shorten(std::string s, std::size_t width) {
  return s.size() > width ? s.substr(0, width - 3) + "..." : s;
}

// Prints the space; returns how many configurations are valid, nullopt when not counted.
std::optional<std::uint64_t> print(const T1Space& t1, std::uint64_t maxPoints) {
  const SearchSpace& space = t1.space;
  std::printf("T1 search space %s\n", t1.path.c_str());
  std::printf("benchmark: %s\n",
              t1.benchmarkName.empty() ? "(not named)" : t1.benchmarkName.c_str());
  std::printf("kernel:    %s%s%s%s\n\n",
              t1.kernelName.empty() ? "(not named)" : t1.kernelName.c_str(),
              t1.language.empty() ? "" : " (", t1.language.c_str(), t1.language.empty() ? "" : ")");
  std::printf("%-28s %-7s %-9s %6s  %s\n", "parameter", "type", "kind", "count", "values");
  for (std::size_t i = 0; i < space.dims(); ++i) {
    const T1Parameter& p = t1.parameters[i];
    std::string values;
    for (std::size_t k = 0; k < p.values.size(); ++k)
      values += (k ? ", " : "") + p.values[k].repr();
    std::printf("%-28s %-7s %-9s %6zu  %s\n", p.name.c_str(), p.type.empty() ? "-" : p.type.c_str(),
                std::string(kindName(space.param(i).kind())).c_str(), p.values.size(),
                shorten("[" + values + "]", 60).c_str());
  }
  std::printf("\nconstraints: %zu\n", space.constraints().size());
  for (std::size_t i = 0; i < space.constraints().size(); ++i)
    std::printf("  %zu. %s\n", i + 1, space.constraints()[i].description.c_str());
  const std::optional<std::uint64_t> valid = countValidConfigs(space, maxPoints);
  if (valid) {
    const double cartesian = space.size().approx();
    std::printf("\nspace: %s Cartesian points, %llu valid (%.1f%%)\n",
                space.size().toString().c_str(), static_cast<unsigned long long>(*valid),
                cartesian > 0 ? 100.0 * *valid / cartesian : 0.0);
  } else {
    std::printf(
        "\nspace: %s Cartesian points; valid ones not counted (more than %llu points, see "
        "--max-points)\n",
        space.size().toString().c_str(), static_cast<unsigned long long>(maxPoints));
  }
  if (!t1.metadata.empty()) std::printf("\n");
  for (const auto& [key, value] : t1.metadata)
    std::printf("%s: %s\n", key.c_str(), shorten(value, 90).c_str());
  for (const std::string& note : t1.notes) std::printf("note: %s\n", note.c_str());
  return valid;
}

// A space without a valid configuration cannot be tuned or sampled: that is an error in the file
// (exit 2, as for a condition that does not parse), reported after the description so that the
// values and conditions it names are on screen.
void show(const T1Options& options) {
  const T1Space t1 = importT1(options.file);
  const std::optional<std::uint64_t> valid = print(t1, options.maxPoints);
  if (!valid || *valid > 0) return;
  std::fflush(stdout);  // before the error on stderr, where both go to one log
  throw InputError(t1.path + ": no configuration satisfies the conditions: " +
                   explainNoValidConfig(t1, options.maxPoints));
}

}  // namespace

void addT1Command(CLI::App& app) {
  auto options = std::make_shared<T1Options>();
  auto* cmd = app.add_subcommand(
      "t1", "Import a T1 search-space file and print its parameters, constraints and size");
  cmd->add_option("file", options->file, "The T1 file (JSON, gzip or plain)")->required();
  cmd->add_option("--max-points", options->maxPoints,
                  "Count valid configurations only when the Cartesian product is at most this")
      ->check(atLeast(1));
  cmd->callback([options] { show(*options); });
}

}  // namespace opevo::cli
