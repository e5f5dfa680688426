#include "space/param_spec.h"

#include "common/error.h"
#include "space/choice_param.h"
#include "space/discrete_param.h"
#include "space/factor_param.h"
#include "space/perm_param.h"
#include "space/text.h"

namespace opevo {
namespace {

std::int64_t integerField(std::string_view spec, std::string_view text, std::string_view what,
                          std::string_view form) {
  std::int64_t value = 0;
  if (!parseInteger(text, value))
    throw InputError("parameter spec '" + std::string(spec) + "': " + std::string(what) +
                     " must be an integer, got '" + std::string(text) +
                     "' (accepted form: " + std::string(form) + ")");
  return value;
}

}  // namespace

ParameterPtr makeParameter(std::string name, std::string_view spec) {
  const std::string_view trimmed = trim(spec);
  const auto colon = trimmed.find(':');
  const std::string kind(trim(trimmed.substr(0, colon)));
  const std::string_view rest = colon == std::string_view::npos ? "" : trimmed.substr(colon + 1);
  if (name.empty()) name = std::string(trimmed);

  if (kind == "factor") {
    // factor:C:nu=v1,...,vnu: pinned to one split (space/factor_param.h).
    const auto equals = rest.find('=');
    const auto parts = splitList(rest.substr(0, equals), ':');
    constexpr std::string_view form = "factor:C:nu, e.g. factor:1024:4, or factor:C:nu=v1,...";
    if (parts.size() != 2)
      throw InputError("parameter spec '" + std::string(spec) +
                       "' needs two numbers (accepted form: " + std::string(form) + ")");
    const auto product = integerField(spec, parts[0], "C", form);
    const auto nu = integerField(spec, parts[1], "nu", form);
    if (nu < 1 || nu > FactorParam::kMaxParts)
      throw InputError("parameter spec '" + std::string(spec) + "': nu must be from 1 to " +
                       std::to_string(FactorParam::kMaxParts) +
                       " (accepted form: " + std::string(form) + ")");
    if (equals == std::string_view::npos)
      return std::make_shared<FactorParam>(name, product, static_cast<int>(nu));
    Vertex only;
    if (!parseIntegers(rest.substr(equals + 1), only))
      throw InputError("parameter spec '" + std::string(spec) +
                       "': the pinned split must be integers separated by commas (accepted form: " +
                       std::string(form) + ")");
    return std::make_shared<FactorParam>(name, product, static_cast<int>(nu), std::move(only));
  }
  if (kind == "perm") {
    constexpr std::string_view form = "perm:n, e.g. perm:4";
    const auto n = integerField(spec, rest, "n", form);
    if (n < 1 || n > PermParam::kMaxItems)
      throw InputError("parameter spec '" + std::string(spec) + "': n must be from 1 to " +
                       std::to_string(PermParam::kMaxItems) +
                       " (accepted form: " + std::string(form) + ")");
    return std::make_shared<PermParam>(name, static_cast<int>(n));
  }
  if (kind == "discrete") {
    std::vector<double> values;
    if (!trim(rest).empty()) {
      for (const std::string& item : splitList(rest, ',')) {
        double value = 0;
        if (!parseNumber(item, value))
          throw InputError("parameter spec '" + std::string(spec) + "': '" + item +
                           "' is not a number (accepted form: discrete:v1,v2,..., e.g. "
                           "discrete:0,512,1500)");
        values.push_back(value);
      }
    }
    return std::make_shared<DiscreteParam>(name, std::move(values));
  }
  if (kind == "choice") {
    return std::make_shared<ChoiceParam>(name, ChoiceParam::splitSpecList(rest));
  }
  throw InputError("parameter spec '" + std::string(spec) + "' has unknown kind '" + kind +
                   "' (accepted forms: " + std::string(kSpecForms) + ")");
}

}  // namespace opevo
