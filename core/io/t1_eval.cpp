// The tree walker of T1 expressions and the builtins they may call.
#include <charconv>
#include <cmath>

#include "io/t1_ast.h"
#include "space/text.h"

namespace opevo::t1 {
namespace {

// A string's characters as Python sees them: UTF-8 code points, not bytes.
std::vector<std::string> characters(const std::string& s) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t n = 1;
    while (i + n < s.size() && (static_cast<unsigned char>(s[i + n]) & 0xC0) == 0x80) ++n;
    out.push_back(s.substr(i, n));
    i += n;
  }
  return out;
}

std::int64_t integerArgument(const std::string& function, const Value& v) {
  if (!v.isInteger())
    throw Fault{function + "() takes integers, got " + std::string(v.typeName()) + " " + v.repr()};
  return v.asInt();
}

void arity(const std::string& function, const std::vector<Value>& args, std::size_t least,
           std::size_t most) {
  if (args.size() >= least && args.size() <= most) return;
  const std::string expected = least == most ? std::to_string(least)
                               : least == 0  ? "at most " + std::to_string(most)
                                            : std::to_string(least) + " to " + std::to_string(most);
  throw Fault{"wrong number of arguments: " + function + "() takes " + expected + ", got " +
              std::to_string(args.size())};
}

Value range(const std::vector<Value>& args) {
  arity("range", args, 1, 3);
  std::int64_t start = 0, stop = 0, step = 1;
  if (args.size() == 1) {
    stop = integerArgument("range", args[0]);
  } else {
    start = integerArgument("range", args[0]);
    stop = integerArgument("range", args[1]);
    if (args.size() == 3) step = integerArgument("range", args[2]);
  }
  if (step == 0) throw Fault{"range() step must not be zero"};
  // 128-bit arithmetic: stop - start overflows 64 bits for range(-2**62, 2**62).
  const __int128 span =
      step > 0 ? static_cast<__int128>(stop) - start : static_cast<__int128>(start) - stop;
  const __int128 magnitude = step > 0 ? step : -static_cast<__int128>(step);
  const __int128 count = span > 0 ? (span - 1) / magnitude + 1 : 0;
  if (count > static_cast<__int128>(kMaxListSize))
    throw Fault{"range() would hold more than " + std::to_string(kMaxListSize) + " elements"};
  std::vector<Value> items;
  items.reserve(static_cast<std::size_t>(count));
  for (__int128 i = 0; i < count; ++i)
    items.push_back(Value::integer(static_cast<std::int64_t>(start + i * step)));
  return Value::list(std::move(items));
}

Value extreme(const std::string& function, const std::vector<Value>& args) {
  if (args.empty())
    throw Fault{"wrong number of arguments: " + function + "() takes at least 1, got 0"};
  const std::vector<Value>& items = args.size() == 1 && args[0].hasItems() ? args[0].items() : args;
  if (args.size() == 1 && !args[0].hasItems())
    throw Fault{function + "() takes a list, a tuple or several values, got " +
                std::string(args[0].typeName())};
  if (items.empty()) throw Fault{function + "() of an empty list"};
  const OpCode op = function == "min" ? OpCode::Lt : OpCode::Gt;
  const Value* best = &items[0];
  for (const Value& x : items)
    if (applyCompare(op, x, *best)) best = &x;
  return *best;
}

Value toInt(const Value& v) {
  if (v.isInteger()) return Value::integer(v.asInt());
  if (v.kind() == Value::Kind::Float) {
    const double t = std::trunc(v.asDouble());
    if (!std::isfinite(t) || t < -9.2233720368547758e18 || t >= 9.2233720368547758e18)
      throw Fault{"int() cannot convert " + v.repr() + " to a 64-bit integer"};
    return Value::integer(static_cast<std::int64_t>(t));
  }
  if (v.kind() == Value::Kind::String) {
    std::string_view s = trim(v.asString());
    if (!s.empty() && s[0] == '+') s.remove_prefix(1);
    std::int64_t x = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), x);
    if (!s.empty() && r.ec == std::errc() && r.ptr == s.data() + s.size()) return Value::integer(x);
    throw Fault{"int() cannot convert the string " + v.repr()};
  }
  throw Fault{"int() cannot convert a " + std::string(v.typeName())};
}

Value toFloat(const Value& v) {
  if (v.isNumber()) return Value::real(v.asDouble());
  double x = 0;
  if (v.kind() == Value::Kind::String && parseNumber(v.asString(), x)) return Value::real(x);
  throw Fault{"float() cannot convert " + v.repr()};
}

// The elements' weights add up in weight, checked against kMaxListSize.
void comprehend(const Node& n, std::size_t clause, const Expression::Lookup& variable,
                Evaluation& ev, std::vector<Value>& out, std::size_t& weight) {
  if (clause == n.clauses.size()) {
    Value element = evaluateNode(*n.kids[0], variable, ev);
    weight += element.weight();
    if (weight > kMaxListSize)
      throw Fault{
          "the comprehension would hold more than " + std::to_string(kMaxListSize) + " elements",
          n.column};
    out.push_back(std::move(element));
    return;
  }
  const Clause& c = n.clauses[clause];
  const Value v = evaluateNode(*c.expr, variable, ev);
  if (!c.isFor) {
    if (v.truthy()) comprehend(n, clause + 1, variable, ev, out, weight);
    return;
  }
  // A list's items are read in place rather than copied first: range(10**6) is large enough.
  std::vector<Value> chars;
  const std::vector<Value>* items = &v.items();
  if (!v.hasItems()) {
    try {
      chars = iterate(v);
    } catch (Fault& f) {
      f.column = c.column;
      throw;
    }
    items = &chars;
  }
  for (const Value& item : *items) {
    ev.locals[c.local] = item;
    comprehend(n, clause + 1, variable, ev, out, weight);
  }
}

// The values of n's operands, at most kMaxListSize in weight together: the elements of a list
// or tuple display, or what the arguments of a call hold (min(r, r, r) holds three copies of r, and
// len(range(10**6)) a million values, as range(10**6) may).
std::vector<Value> operands(const Node& n, const Expression::Lookup& variable, Evaluation& ev) {
  std::vector<Value> values;
  std::size_t weight = 0;
  for (const NodePtr& kid : n.kids) {
    values.push_back(evaluateNode(*kid, variable, ev));
    weight += values.back().weight() - (n.kind == NodeKind::Call ? 1 : 0);
    if (weight > kMaxListSize)
      throw Fault{std::string(n.kind == NodeKind::Call           ? "the arguments"
                              : n.kind == NodeKind::TupleDisplay ? "the tuple"
                                                                 : "the list") +
                      " would hold more than " + std::to_string(kMaxListSize) + " elements",
                  n.column};
  }
  return values;
}

Value evaluateOnce(const Node& n, const Expression::Lookup& variable, Evaluation& ev);

}  // namespace

std::vector<Value> iterate(const Value& v) {
  if (v.hasItems()) return v.items();
  if (v.kind() == Value::Kind::String) {
    std::vector<Value> out;
    for (std::string& c : characters(v.asString())) out.push_back(Value::string(std::move(c)));
    return out;
  }
  throw Fault{"wrong type: cannot iterate over " + std::string(v.typeName()) + " " + v.repr()};
}

Value subscript(const Value& container, const Value& index) {
  const bool isString = container.kind() == Value::Kind::String;
  if (!isString && !container.hasItems())
    throw Fault{"wrong type: " + std::string(container.typeName()) + " cannot be indexed"};
  if (!index.isInteger())
    throw Fault{"wrong type: an index must be an integer, got " + std::string(index.typeName())};
  const std::vector<std::string> chars =
      isString ? characters(container.asString()) : std::vector<std::string>{};
  const auto size = static_cast<std::int64_t>(isString ? chars.size() : container.items().size());
  const std::int64_t i = index.asInt() < 0 ? index.asInt() + size : index.asInt();
  if (i < 0 || i >= size)
    throw Fault{"index " + std::to_string(index.asInt()) + " is out of range for a " +
                std::string(container.typeName()) + " of length " + std::to_string(size)};
  const auto at = static_cast<std::size_t>(i);
  return isString ? Value::string(chars[at]) : container.items()[at];
}

namespace {

constexpr const char* kBuiltins[] = {"range", "len",   "min", "max",  "abs",
                                     "int",   "float", "str", "list", "tuple"};

// list(x) and tuple(x): the elements of a list, tuple or string (its characters), or none.
Value sequence(const std::string& function, const std::vector<Value>& args) {
  arity(function, args, 0, 1);
  std::vector<Value> items = args.empty() ? std::vector<Value>{} : iterate(args[0]);
  return function == "list" ? Value::list(std::move(items)) : Value::tuple(std::move(items));
}

}  // namespace

bool isBuiltin(const std::string& name) {
  for (const char* b : kBuiltins)
    if (name == b) return true;
  return false;
}

std::string builtinNames() {
  std::string names;
  for (const char* b : kBuiltins) names += (names.empty() ? "" : ", ") + std::string(b);
  return names;
}

Value callBuiltin(const std::string& name, const std::vector<Value>& args) {
  if (name == "range") return range(args);
  if (name == "min" || name == "max") return extreme(name, args);
  if (name == "list" || name == "tuple") return sequence(name, args);
  arity(name, args, 1, 1);
  const Value& x = args[0];
  if (name == "len") {
    if (x.hasItems()) return Value::integer(static_cast<std::int64_t>(x.items().size()));
    if (x.kind() == Value::Kind::String)
      return Value::integer(static_cast<std::int64_t>(characters(x.asString()).size()));
    throw Fault{"wrong type: len() of " + std::string(x.typeName())};
  }
  if (name == "abs") {
    if (!x.isNumber()) throw Fault{"wrong type: abs() of " + std::string(x.typeName())};
    if (x.kind() == Value::Kind::Float) return Value::real(std::fabs(x.asDouble()));
    return x.asInt() < 0 ? applyUnary(OpCode::Neg, x) : Value::integer(x.asInt());
  }
  if (name == "int") return toInt(x);
  if (name == "float") return toFloat(x);
  return x.kind() == Value::Kind::String ? x : Value::string(x.repr());  // str
}

Value evaluateNode(const Node& n, const Expression::Lookup& variable, Evaluation& ev) {
  Value v = evaluateOnce(n, variable, ev);
  ev.steps += v.weight();
  if (ev.steps > kMaxSteps)
    throw Fault{"the evaluation takes more than " + std::to_string(kMaxSteps) +
                    " steps (values built or read)",
                n.column};
  return v;
}

namespace {

Value evaluateOnce(const Node& n, const Expression::Lookup& variable, Evaluation& ev) {
  auto eval = [&](std::size_t kid) { return evaluateNode(*n.kids[kid], variable, ev); };
  // Operators fail without knowing where they are; the node that applied them does.
  auto at = [&](Fault& f, int column) -> Fault& {
    if (f.column == 0) f.column = column;
    return f;
  };
  switch (n.kind) {
    case NodeKind::Literal:
      return n.value;
    case NodeKind::Variable:
      return variable(n.index);
    case NodeKind::Local:
      return ev.locals[n.index];
    case NodeKind::Name:
      break;  // resolved before any evaluation
    case NodeKind::ListDisplay:
      return Value::list(operands(n, variable, ev));
    case NodeKind::TupleDisplay:
      return Value::tuple(operands(n, variable, ev));
    case NodeKind::Comprehension: {
      std::vector<Value> out;
      std::size_t weight = 0;
      comprehend(n, 0, variable, ev, out, weight);
      return Value::list(std::move(out));
    }
    case NodeKind::Call: {
      const std::vector<Value> args = operands(n, variable, ev);
      try {
        return callBuiltin(n.name, args);
      } catch (Fault& f) {
        throw at(f, n.column);
      }
    }
    case NodeKind::Unary: {
      const Value a = eval(0);
      try {
        return applyUnary(n.op, a);
      } catch (Fault& f) {
        throw at(f, n.column);
      }
    }
    case NodeKind::Binary: {
      const Value a = eval(0);
      const Value b = eval(1);
      try {
        return applyBinary(n.op, a, b);
      } catch (Fault& f) {
        throw at(f, n.column);
      }
    }
    case NodeKind::Compare: {
      Value left = eval(0);
      for (std::size_t i = 0; i < n.compareOps.size(); ++i) {
        Value right = eval(i + 1);
        try {
          if (!applyCompare(n.compareOps[i], left, right)) return Value::boolean(false);
        } catch (Fault& f) {
          throw at(f, n.compareColumns[i]);
        }
        left = std::move(right);
      }
      return Value::boolean(true);
    }
    case NodeKind::And: {
      Value a = eval(0);
      return a.truthy() ? eval(1) : a;
    }
    case NodeKind::Or: {
      Value a = eval(0);
      return a.truthy() ? a : eval(1);
    }
    case NodeKind::Not:
      return Value::boolean(!eval(0).truthy());
    case NodeKind::Conditional:
      return eval(1).truthy() ? eval(0) : eval(2);
    case NodeKind::Subscript: {
      const Value container = eval(0);
      const Value index = eval(1);
      try {
        return subscript(container, index);
      } catch (Fault& f) {
        throw at(f, n.column);
      }
    }
  }
  throw Fault{"internal error: unresolved name '" + n.name + "'", n.column};
}

}  // namespace

}  // namespace opevo::t1
