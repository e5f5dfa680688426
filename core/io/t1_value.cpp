// The values of T1 expressions: construction, truthiness, repr and equality as in Python.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "io/t1_ast.h"

namespace opevo::t1 {
namespace {

// Python's repr of a float: the shortest digits that read back to the same double, in positional
// notation for exponents -4..15 and in scientific notation otherwise (1e+16, 1e-05).
std::string floatRepr(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buffer[40];
  for (int precision = 0; precision <= 16; ++precision) {
    std::snprintf(buffer, sizeof buffer, "%.*e", precision, x);
    if (std::strtod(buffer, nullptr) == x) break;
  }
  std::string s = buffer;  // [-]d.ddde[+-]xx
  const std::string sign = s[0] == '-' ? "-" : "";
  if (!sign.empty()) s.erase(0, 1);
  const std::size_t e = s.find('e');
  const int exponent = std::stoi(s.substr(e + 1));
  std::string digits = s.substr(0, e);
  digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
  if (exponent < -4 || exponent >= 16) {
    const std::string mantissa =
        digits.size() > 1 ? digits.substr(0, 1) + "." + digits.substr(1) : digits;
    char tail[16];
    std::snprintf(tail, sizeof tail, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    return sign + mantissa + tail;
  }
  if (exponent < 0) return sign + "0." + std::string(-exponent - 1, '0') + digits;
  const auto whole = static_cast<std::size_t>(exponent) + 1;
  if (digits.size() <= whole) return sign + digits + std::string(whole - digits.size(), '0') + ".0";
  return sign + digits.substr(0, whole) + "." + digits.substr(whole);
}

}  // namespace

Value Value::integer(std::int64_t v) {
  Value x;
  x.m_int = v;
  return x;
}

Value Value::real(double v) {
  Value x;
  x.m_kind = Kind::Float;
  x.m_float = v;
  return x;
}

Value Value::boolean(bool v) {
  Value x;
  x.m_kind = Kind::Bool;
  x.m_int = v ? 1 : 0;
  return x;
}

Value Value::string(std::string v) {
  Value x;
  x.m_kind = Kind::String;
  x.m_string = std::move(v);
  x.m_weight = std::max<std::size_t>(1, x.m_string.size());
  return x;
}

Value Value::list(std::vector<Value> items) {
  Value x;
  x.m_kind = Kind::List;
  x.m_list = std::move(items);
  for (const Value& item : x.m_list) x.m_weight += item.m_weight;
  return x;
}

Value Value::tuple(std::vector<Value> items) {
  Value x = list(std::move(items));
  x.m_kind = Kind::Tuple;
  return x;
}

double Value::asDouble() const {
  return m_kind == Kind::Float ? m_float : static_cast<double>(m_int);
}

bool Value::truthy() const {
  switch (m_kind) {
    case Kind::Int:
    case Kind::Bool:
      return m_int != 0;
    case Kind::Float:
      return m_float != 0;
    case Kind::String:
      return !m_string.empty();
    case Kind::List:
    case Kind::Tuple:
      return !m_list.empty();
  }
  return false;
}

std::string_view Value::typeName() const {
  switch (m_kind) {
    case Kind::Int:
      return "int";
    case Kind::Float:
      return "float";
    case Kind::Bool:
      return "bool";
    case Kind::String:
      return "str";
    case Kind::List:
      return "list";
    case Kind::Tuple:
      return "tuple";
  }
  return "?";
}

std::string Value::repr() const {
  switch (m_kind) {
    case Kind::Int:
      return std::to_string(m_int);
    case Kind::Bool:
      return m_int ? "True" : "False";
    case Kind::Float:
      return floatRepr(m_float);
    case Kind::String: {
      std::string s = "'";
      for (char c : m_string)
        s += (c == '\'' || c == '\\') ? std::string("\\") + c : std::string(1, c);
      return s + "'";
    }
    case Kind::List:
    case Kind::Tuple: {
      const bool isList = m_kind == Kind::List;
      std::string s = isList ? "[" : "(";
      for (std::size_t i = 0; i < m_list.size(); ++i) s += (i ? ", " : "") + m_list[i].repr();
      // A tuple of one needs its comma: (1) would read back as the number 1.
      if (!isList && m_list.size() == 1) s += ",";
      return s + (isList ? "]" : ")");
    }
  }
  return "?";
}

bool operator==(const Value& a, const Value& b) {
  if (a.isNumber() && b.isNumber()) {
    if (a.isInteger() && b.isInteger()) return a.asInt() == b.asInt();
    return a.asDouble() == b.asDouble();
  }
  if (a.kind() != b.kind()) return false;
  if (a.kind() == Value::Kind::String) return a.asString() == b.asString();
  return a.items() == b.items();
}

}  // namespace opevo::t1
