#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "io/t1_expression.h"
#include "space/search_space.h"

namespace opevo {

struct T1Parameter {
  std::string name;
  std::string type;  // as the file states it (int, uint, float, bool, string); "" if absent
  std::string valuesExpression;   // the Values text as written
  std::vector<t1::Value> values;  // its evaluation, converted to the Type, in the file's order
  std::string defaultValue;       // Default as JSON text; "" when absent
};

struct T1Condition {
  std::string expression;
  std::vector<std::string> parameters;  // the names the file lists for it
};

// A T1 search-space file (the AutoTuningAssociation's input format) read into a SearchSpace.
struct T1Space {
  std::string path;
  std::string benchmarkName;  // General.BenchmarkName, else KernelSpecification.BenchmarkName
  std::string kernelName;     // KernelSpecification.KernelName
  std::string language;       // KernelSpecification.Language
  std::vector<T1Parameter> parameters;
  std::vector<T1Condition> conditions;
  // One parameter per TuningParameter, in file order: a DiscreteParam when every value is a
  // number (int, uint and float types), else a ChoiceParam (bool, string, mixed). One constraint
  // per Condition, described by its expression and evaluated with each parameter's value bound
  // to its name, so `block_size_x * block_size_y <= 1024` sees the numbers, not vertex indices.
  SearchSpace space;
  // The file's other fields, for display: ("KernelSpecification.KernelFile", "convolution.cu").
  std::vector<std::pair<std::string, std::string>> metadata;
  // Oddities that do not stop the import, e.g. a condition whose Parameters omit a name it uses.
  std::vector<std::string> notes;
};

// Reads a T1 file (plain or gzip-compressed JSON). Each Values expression is evaluated once and
// each Condition compiled once. Throws InputError naming the file, the field (e.g.
// "ConfigurationSpace.Conditions[2].Expression") and the problem: malformed JSON, a missing or
// mistyped field, an expression that does not parse or names an unknown parameter, a value that
// does not fit the Type, a repeated value or parameter name.
//
// A condition that fails while being evaluated for a configuration (a division by zero for some
// values) throws InputError from the constraint, naming the file, the condition and the values.
T1Space importT1(const std::string& path);

// Configurations of space that satisfy every constraint, counted by enumerating the Cartesian
// product; nullopt when the product has more than maxPoints points.
std::optional<std::uint64_t> countValidConfigs(const SearchSpace& space,
                                               std::uint64_t maxPoints = 20'000'000);

// How many points of space's Cartesian product each constraint admits on its own, in the order
// of space.constraints(); nullopt when the product has more than maxPoints points.
std::optional<std::vector<std::uint64_t>> countEachConstraint(const SearchSpace& space,
                                                              std::uint64_t maxPoints = 20'000'000);

// Why no configuration of t1's space satisfies its conditions, for a space that has none: the
// conditions that alone hold for no point ("ConfigurationSpace.Conditions[0] \"a > 100\" holds
// for none of the 16 points"), else that each holds for some but never all at once, with how many
// each admits. Enumerates the product once; "" when it has more than maxPoints points.
std::string explainNoValidConfig(const T1Space& t1, std::uint64_t maxPoints = 20'000'000);

}  // namespace opevo
