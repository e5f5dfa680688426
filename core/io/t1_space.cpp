#include "io/t1_space.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>

#include "common/error.h"
#include "io/gzip_file.h"
#include "io/json_text.h"
#include "space/choice_param.h"
#include "space/discrete_param.h"
#include "space/enumerate.h"
#include "space/text.h"

namespace opevo {
namespace {

using Json = nlohmann::json;
using t1::Value;

// Everything that reads the file reports "PATH: FIELD: problem".
struct Reader {
  std::string path;

  [[noreturn]] void fail(const std::string& field, const std::string& problem) const {
    throw InputError(path + ": " + field + ": " + problem);
  }
  const Json& require(const Json& object, const std::string& field, const char* key,
                      bool (Json::*isType)() const noexcept, const char* expected) const {
    const auto it = object.find(key);
    const std::string where = field.empty() ? key : field + "." + key;
    if (it == object.end()) fail(where, std::string("missing (expected ") + expected + ")");
    if (!((*it).*isType)())
      fail(where, std::string("is ") + it->type_name() + ", expected " + expected);
    return *it;
  }
};

// A JSON Values list (some writers give the list itself rather than its Python text).
Value fromJson(const Json& j, const Reader& reader, const std::string& field) {
  if (j.is_boolean()) return Value::boolean(j.get<bool>());
  if (j.is_number_integer()) return Value::integer(j.get<std::int64_t>());
  if (j.is_number()) return Value::real(j.get<double>());
  if (j.is_string()) return Value::string(j.get<std::string>());
  reader.fail(field, "holds " + j.dump() + ", expected numbers, strings or booleans");
}

// The value as the Type says the kernel receives it. Where the Type is absent the value is kept
// as the expression produced it.
Value convert(const Value& v, const std::string& type, const Reader& reader,
              const std::string& field) {
  auto refuse = [&](const char* expected) -> Value {
    reader.fail(field, "value " + v.repr() + " is not " + expected + " (Type is " + type + ")");
  };
  if (v.hasItems()) reader.fail(field, "value " + v.repr() + " is a " + std::string(v.typeName()));
  // 1e308 * 10 is inf and inf - inf is nan: neither is a point of a space (a nan equals nothing,
  // not even itself, so it could not be found again among the values).
  if (v.kind() == Value::Kind::Float && !std::isfinite(v.asDouble()))
    reader.fail(field, "value " + v.repr() + " is not a finite number");
  if (type.empty()) return v;
  if (type == "int" || type == "uint") {
    const bool whole = v.kind() == Value::Kind::Int ||
                       (v.kind() == Value::Kind::Float &&
                        std::floor(v.asDouble()) == v.asDouble() && std::fabs(v.asDouble()) < 9e15);
    if (!whole) return refuse("an integer");
    const auto x = static_cast<std::int64_t>(v.asDouble());
    if (type == "uint" && x < 0) return refuse("a non-negative integer");
    return v.kind() == Value::Kind::Int ? v : Value::integer(x);
  }
  if (type == "float") {
    if (!v.isNumber() || v.kind() == Value::Kind::Bool) return refuse("a number");
    return Value::real(v.asDouble());
  }
  if (type == "bool") {
    if (v.kind() == Value::Kind::Bool) return v;
    if (v.kind() == Value::Kind::Int && (v.asInt() == 0 || v.asInt() == 1))
      return Value::boolean(v.asInt() == 1);
    return refuse("a boolean");
  }
  if (type == "string") return v.kind() == Value::Kind::String ? v : refuse("a string");
  reader.fail(field, "Type '" + type + "' is not one of int, uint, float, bool, string");
}

// A choice's text, named as the replay reader names values of a measured dataset (bare strings
// when all are strings, else JSON text), so a T1 space and a dataset of the same kernel agree.
std::string choiceText(const Value& v, bool allStrings) {
  switch (v.kind()) {
    case Value::Kind::String:
      if (allStrings) return v.asString().empty() ? "\"\"" : v.asString();
      return Json(v.asString()).dump();
    case Value::Kind::Bool:
      return v.asInt() ? "true" : "false";
    default:
      return formatNumber(v.asDouble());
  }
}

// Adds the parameter to space; returns its values indexed by vertex, for binding in conditions.
std::vector<Value> addParameter(const T1Parameter& p, SearchSpace& space) {
  const bool numeric = std::all_of(p.values.begin(), p.values.end(), [](const Value& v) {
    return v.isNumber() && v.kind() != Value::Kind::Bool;
  });
  std::vector<Value> byVertex(p.values.size());
  if (numeric) {
    std::vector<double> numbers;
    for (const Value& v : p.values) numbers.push_back(v.asDouble());
    auto param = std::make_shared<DiscreteParam>(p.name, numbers);
    for (const Value& v : p.values) byVertex[param->indexOf(v.asDouble())] = v;
    space.add(std::move(param));
    return byVertex;
  }
  const bool allStrings = std::all_of(p.values.begin(), p.values.end(), [](const Value& v) {
    return v.kind() == Value::Kind::String;
  });
  std::vector<std::string> choices;
  for (const Value& v : p.values) choices.push_back(choiceText(v, allStrings));
  space.add(std::make_shared<ChoiceParam>(p.name, std::move(choices)));
  return p.values;
}

T1Parameter readParameter(const Json& j, const std::string& field, const Reader& reader) {
  if (!j.is_object())
    reader.fail(field, "is " + std::string(j.type_name()) + ", expected an object");
  T1Parameter p;
  p.name = reader.require(j, field, "Name", &Json::is_string, "a string").get<std::string>();
  if (p.name.empty()) reader.fail(field + ".Name", "is empty");
  if (const auto t = j.find("Type"); t != j.end() && !t->is_null()) {
    if (!t->is_string())
      reader.fail(field + ".Type", "is " + std::string(t->type_name()) + ", expected a string");
    p.type = t->get<std::string>();
  }
  if (const auto d = j.find("Default"); d != j.end()) p.defaultValue = d->dump();
  const auto values = j.find("Values");
  const std::string where = field + ".Values";
  if (values == j.end())
    reader.fail(where, "missing (expected a Python list such as \"[1, 2, 4]\")");
  std::vector<Value> raw;
  if (values->is_array()) {
    p.valuesExpression = values->dump();
    for (const Json& v : *values) raw.push_back(fromJson(v, reader, where));
  } else if (values->is_string()) {
    p.valuesExpression = values->get<std::string>();
    Value list;
    try {
      list = t1::Expression(p.valuesExpression).evaluate();
    } catch (const InputError& e) {
      reader.fail(where, e.what());
    }
    // A tuple serves as well: "(1, 2, 4)" lists the values as "[1, 2, 4]" does.
    if (!list.hasItems())
      reader.fail(where, "\"" + p.valuesExpression + "\" gives " + std::string(list.typeName()) +
                             " " + list.repr() + ", expected a list");
    raw = list.items();
  } else {
    reader.fail(where, "is " + std::string(values->type_name()) + ", expected a string");
  }
  if (raw.empty()) reader.fail(where, "\"" + p.valuesExpression + "\" gives an empty list");
  for (const Value& v : raw) {
    Value converted = convert(v, p.type, reader, where);
    // 1 and 1.0 are one point of a numeric parameter; True and 1 are two choices of a mixed one.
    auto numeric = [](const Value& v) { return v.isNumber() && v.kind() != Value::Kind::Bool; };
    for (const Value& seen : p.values)
      if (seen == converted &&
          (seen.kind() == converted.kind() || (numeric(seen) && numeric(converted))))
        reader.fail(where, "value " + converted.repr() + " appears twice");
    p.values.push_back(std::move(converted));
  }
  return p;
}

void addCondition(const T1Condition& condition, const std::string& field, T1Space& t1,
                  const std::shared_ptr<const std::vector<std::vector<Value>>>& table,
                  const Reader& reader) {
  std::vector<std::string> names;
  for (const T1Parameter& p : t1.parameters) names.push_back(p.name);
  std::shared_ptr<const t1::Expression> expr;
  try {
    expr = std::make_shared<const t1::Expression>(condition.expression, names);
  } catch (const InputError& e) {
    reader.fail(field + ".Expression", e.what());
  }
  for (const std::string& listed : condition.parameters)
    if (std::find(names.begin(), names.end(), listed) == names.end())
      reader.fail(field + ".Parameters", "names '" + listed + "', which is not a tuning parameter");
  for (std::size_t i : expr->variablesUsed())
    if (std::find(condition.parameters.begin(), condition.parameters.end(), names[i]) ==
        condition.parameters.end())
      t1.notes.push_back(field + " uses " + names[i] + " but its Parameters do not list it");
  const std::string context = reader.path + ": " + field + ".Expression: ";
  t1.space.addConstraint(condition.expression, [expr, table, names, context](const Config& c) {
    auto lookup = [&](std::size_t i) -> const Value& {
      return (*table)[i][static_cast<std::size_t>(c[i][0])];
    };
    try {
      return expr->evaluate(lookup).truthy();
    } catch (const InputError& e) {
      std::string values;
      for (std::size_t i : expr->variablesUsed())
        values += (values.empty() ? "" : ", ") + names[i] + "=" + lookup(i).repr();
      throw InputError(context + e.what() + ", with " + values);
    }
  });
}

// Fields outside ConfigurationSpace, one line each; Arguments are summarised by name.
void collectMetadata(const Json& root, T1Space& t1) {
  for (const auto& [section, body] : root.items()) {
    if (section == "ConfigurationSpace" || !body.is_object()) continue;
    for (const auto& [key, value] : body.items()) {
      std::string text = value.is_string() ? value.get<std::string>() : value.dump();
      if (key == "Arguments" && value.is_array()) {
        text.clear();
        for (const Json& a : value)
          if (a.is_object() && a.contains("Name") && a["Name"].is_string())
            text += (text.empty() ? "" : ", ") + a["Name"].get<std::string>();
      }
      t1.metadata.emplace_back(section + "." + key, text);
    }
  }
  auto text = [&](const char* section, const char* key) -> std::string {
    const auto s = root.find(section);
    if (s == root.end() || !s->is_object()) return {};
    const auto k = s->find(key);
    return k != s->end() && k->is_string() ? k->get<std::string>() : std::string();
  };
  t1.benchmarkName = text("General", "BenchmarkName");
  if (t1.benchmarkName.empty()) t1.benchmarkName = text("KernelSpecification", "BenchmarkName");
  t1.kernelName = text("KernelSpecification", "KernelName");
  t1.language = text("KernelSpecification", "Language");
}

}  // namespace

T1Space importT1(const std::string& path) {
  const Reader reader{path};
  const Json root = parseJsonFile(readMaybeGzipped(path), path).value;
  if (!root.is_object())
    throw InputError(path + ": the top level is " + std::string(root.type_name()) +
                     ", expected a T1 object with ConfigurationSpace");
  if (!root.contains("ConfigurationSpace") && (root.contains("cache") || root.contains("results")))
    throw InputError(path +
                     ": this is a measured dataset, not a T1 search-space file (use "
                     "`opevo dataset` or `opevo import`)");
  T1Space t1;
  t1.path = path;
  const Json& cs = reader.require(root, "", "ConfigurationSpace", &Json::is_object, "an object");
  const Json& params = reader.require(cs, "ConfigurationSpace", "TuningParameters", &Json::is_array,
                                      "an array of parameters");
  if (params.empty()) reader.fail("ConfigurationSpace.TuningParameters", "is empty");
  auto table = std::make_shared<std::vector<std::vector<Value>>>();
  std::set<std::string> names;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const std::string field = "ConfigurationSpace.TuningParameters[" + std::to_string(i) + "]";
    T1Parameter p = readParameter(params[i], field, reader);
    if (!names.insert(p.name).second)
      reader.fail(field + ".Name", "'" + p.name + "' names a parameter a second time");
    table->push_back(addParameter(p, t1.space));
    t1.parameters.push_back(std::move(p));
  }
  if (const auto conditions = cs.find("Conditions"); conditions != cs.end()) {
    if (!conditions->is_array())
      reader.fail("ConfigurationSpace.Conditions",
                  "is " + std::string(conditions->type_name()) + ", expected an array");
    for (std::size_t i = 0; i < conditions->size(); ++i) {
      const std::string field = "ConfigurationSpace.Conditions[" + std::to_string(i) + "]";
      const Json& c = (*conditions)[i];
      if (!c.is_object())
        reader.fail(field, "is " + std::string(c.type_name()) + ", expected an object");
      T1Condition condition;
      condition.expression =
          reader.require(c, field, "Expression", &Json::is_string, "a string").get<std::string>();
      if (const auto listed = c.find("Parameters"); listed != c.end()) {
        if (!listed->is_array()) reader.fail(field + ".Parameters", "is not an array of names");
        for (const Json& n : *listed) {
          if (!n.is_string()) reader.fail(field + ".Parameters", "is not an array of names");
          condition.parameters.push_back(n.get<std::string>());
        }
      }
      addCondition(condition, field, t1, table, reader);
      t1.conditions.push_back(std::move(condition));
    }
  }
  collectMetadata(root, t1);
  return t1;
}

std::optional<std::uint64_t> countValidConfigs(const SearchSpace& space, std::uint64_t maxPoints) {
  if (!(space.size() <= maxPoints)) return std::nullopt;
  std::uint64_t valid = 0;
  forEachConfig(space, static_cast<std::size_t>(maxPoints), [&](const Config& c) {
    if (space.satisfies(c)) ++valid;
    return true;
  });
  return valid;
}

std::optional<std::vector<std::uint64_t>> countEachConstraint(const SearchSpace& space,
                                                              std::uint64_t maxPoints) {
  if (!(space.size() <= maxPoints)) return std::nullopt;
  const std::vector<Constraint>& constraints = space.constraints();
  std::vector<std::uint64_t> counts(constraints.size(), 0);
  forEachConfig(space, static_cast<std::size_t>(maxPoints), [&](const Config& c) {
    for (std::size_t i = 0; i < constraints.size(); ++i)
      if (constraints[i].holds(c)) ++counts[i];
    return true;
  });
  return counts;
}

std::string explainNoValidConfig(const T1Space& t1, std::uint64_t maxPoints) {
  const std::optional<std::vector<std::uint64_t>> counts = countEachConstraint(t1.space, maxPoints);
  if (!counts) return "";
  const std::string points = t1.space.size().toString();
  auto name = [&](std::size_t i) {
    return "ConfigurationSpace.Conditions[" + std::to_string(i) + "] \"" +
           t1.space.constraints()[i].description + "\"";
  };
  // A condition false everywhere is the whole story; say only that.
  std::string alone;
  for (std::size_t i = 0; i < counts->size(); ++i)
    if ((*counts)[i] == 0)
      alone +=
          (alone.empty() ? "" : "; ") + name(i) + " holds for none of the " + points + " points";
  if (!alone.empty()) return alone;
  std::string each;
  for (std::size_t i = 0; i < counts->size(); ++i)
    each += (each.empty() ? "" : ", ") + name(i) + ": " + std::to_string((*counts)[i]);
  return "each condition holds for some of the " + points + " points, but no point satisfies all " +
         std::to_string(counts->size()) + " at once (" + each + ")";
}

}  // namespace opevo
