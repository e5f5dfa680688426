// Python's semantics for the operators of T1 expressions: arithmetic, bitwise, comparison,
// membership.
#include <cmath>
#include <cstdint>

#include "io/t1_ast.h"

namespace opevo::t1 {

const char* opText(OpCode op) {
  switch (op) {
    case OpCode::Add:
    case OpCode::Pos:
      return "+";
    case OpCode::Sub:
    case OpCode::Neg:
      return "-";
    case OpCode::Mul:
      return "*";
    case OpCode::Div:
      return "/";
    case OpCode::FloorDiv:
      return "//";
    case OpCode::Mod:
      return "%";
    case OpCode::Pow:
      return "**";
    case OpCode::BitAnd:
      return "&";
    case OpCode::BitOr:
      return "|";
    case OpCode::BitXor:
      return "^";
    case OpCode::LeftShift:
      return "<<";
    case OpCode::RightShift:
      return ">>";
    case OpCode::Invert:
      return "~";
    case OpCode::Eq:
      return "==";
    case OpCode::Ne:
      return "!=";
    case OpCode::Lt:
      return "<";
    case OpCode::Le:
      return "<=";
    case OpCode::Gt:
      return ">";
    case OpCode::Ge:
      return ">=";
    case OpCode::In:
      return "in";
    case OpCode::NotIn:
      return "not in";
  }
  return "?";
}

namespace {

[[noreturn]] void wrongTypes(OpCode op, const Value& a, const Value& b) {
  throw Fault{std::string("wrong operand types for '") + opText(op) +
              "': " + std::string(a.typeName()) + " and " + std::string(b.typeName())};
}

[[noreturn]] void overflow() {
  throw Fault{"integer overflow (the result does not fit in 64 bits)"};
}

[[noreturn]] void divisionByZero() {
  throw Fault{"division by zero"};
}

std::int64_t checkedAdd(std::int64_t x, std::int64_t y) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(x, y, &r)) overflow();
  return r;
}

std::int64_t checkedSub(std::int64_t x, std::int64_t y) {
  std::int64_t r = 0;
  if (__builtin_sub_overflow(x, y, &r)) overflow();
  return r;
}

std::int64_t checkedMul(std::int64_t x, std::int64_t y) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(x, y, &r)) overflow();
  return r;
}

// Python's int ** int for a non-negative exponent, by squaring.
std::int64_t intPower(std::int64_t base, std::int64_t exponent) {
  std::int64_t result = 1;
  while (exponent > 0) {
    if (exponent & 1) result = checkedMul(result, base);
    exponent >>= 1;
    if (exponent > 0) base = checkedMul(base, base);
  }
  return result;
}

// "ab" * 3, [0] * 3 and (0,) * 3; a negative count gives an empty result, as in Python. The length
// is the weight of the items, so [range(1000)] * 10**6 is refused like range(10**9); an empty
// sequence stays empty however many times it is repeated (without looping that many times).
Value repeat(const Value& sequence, std::int64_t count) {
  const std::size_t length =
      sequence.kind() == Value::Kind::String ? sequence.asString().size() : sequence.weight() - 1;
  const std::size_t n = count > 0 && length > 0 ? static_cast<std::size_t>(count) : 0;
  if (length > 0 && n > kMaxListSize / length)
    throw Fault{"the repeated sequence would hold more than " + std::to_string(kMaxListSize) +
                " elements"};
  if (sequence.kind() == Value::Kind::String) {
    std::string s;
    for (std::size_t i = 0; i < n; ++i) s += sequence.asString();
    return Value::string(std::move(s));
  }
  std::vector<Value> items;
  for (std::size_t i = 0; i < n; ++i)
    items.insert(items.end(), sequence.items().begin(), sequence.items().end());
  return sequence.kind() == Value::Kind::Tuple ? Value::tuple(std::move(items))
                                               : Value::list(std::move(items));
}

bool isBitwise(OpCode op) {
  return op == OpCode::BitAnd || op == OpCode::BitOr || op == OpCode::BitXor ||
         op == OpCode::LeftShift || op == OpCode::RightShift;
}

// x << n as Python computes it, refused when the result needs more than 64 bits. A count of 64 or
// more shifts every bit of a nonzero x out of range; 0 << n is 0 for any n.
std::int64_t leftShift(std::int64_t x, std::int64_t n) {
  if (x == 0) return 0;
  if (n >= 64) overflow();
  const __int128 r = static_cast<__int128>(x) * (static_cast<__int128>(1) << n);
  if (r < INT64_MIN || r > INT64_MAX) overflow();
  return static_cast<std::int64_t>(r);
}

// Python's & | ^ << >> on ints. Two bools give a bool for & | ^ (True & False is False), as in
// Python; floats, strings and lists are refused, since Python has no bitwise float.
Value bitwise(OpCode op, const Value& a, const Value& b) {
  if (!a.isInteger() || !b.isInteger())
    throw Fault{std::string("wrong operand types for '") + opText(op) +
                "': " + std::string(a.typeName()) + " and " + std::string(b.typeName()) +
                " (bitwise operators take integers)"};
  const std::int64_t x = a.asInt(), y = b.asInt();
  const bool bools = a.kind() == Value::Kind::Bool && b.kind() == Value::Kind::Bool;
  switch (op) {
    case OpCode::BitAnd:
      return bools ? Value::boolean((x & y) != 0) : Value::integer(x & y);
    case OpCode::BitOr:
      return bools ? Value::boolean((x | y) != 0) : Value::integer(x | y);
    case OpCode::BitXor:
      return bools ? Value::boolean((x ^ y) != 0) : Value::integer(x ^ y);
    default:
      break;
  }
  if (y < 0) throw Fault{"negative shift count"};
  if (op == OpCode::LeftShift) return Value::integer(leftShift(x, y));
  // >> floors, as C++20's arithmetic shift of a negative number does: -5 >> 1 is -3.
  return Value::integer(y >= 64 ? (x < 0 ? -1 : 0) : x >> y);
}

// Python's float modulo: the result takes the divisor's sign.
double floatMod(double a, double b) {
  double m = std::fmod(a, b);
  if (m != 0 && ((m < 0) != (b < 0))) m += b;
  return m;
}

Value arithmetic(OpCode op, const Value& a, const Value& b) {
  if (a.isInteger() && b.isInteger()) {
    const std::int64_t x = a.asInt(), y = b.asInt();
    switch (op) {
      case OpCode::Add:
        return Value::integer(checkedAdd(x, y));
      case OpCode::Sub:
        return Value::integer(checkedSub(x, y));
      case OpCode::Mul:
        return Value::integer(checkedMul(x, y));
      case OpCode::Div:
        if (y == 0) divisionByZero();
        return Value::real(static_cast<double>(x) / static_cast<double>(y));
      case OpCode::FloorDiv:
      case OpCode::Mod: {
        if (y == 0) divisionByZero();
        if (x == INT64_MIN && y == -1) overflow();
        std::int64_t q = x / y, m = x % y;
        // C++ truncates toward zero; Python floors, so the remainder takes the divisor's sign.
        if (m != 0 && ((m < 0) != (y < 0))) {
          m += y;
          --q;
        }
        return Value::integer(op == OpCode::Mod ? m : q);
      }
      case OpCode::Pow:
        if (y >= 0) return Value::integer(intPower(x, y));
        if (x == 0) divisionByZero();
        return Value::real(std::pow(static_cast<double>(x), static_cast<double>(y)));
      default:
        break;
    }
  }
  const double x = a.asDouble(), y = b.asDouble();
  switch (op) {
    case OpCode::Add:
      return Value::real(x + y);
    case OpCode::Sub:
      return Value::real(x - y);
    case OpCode::Mul:
      return Value::real(x * y);
    case OpCode::Div:
      if (y == 0) divisionByZero();
      return Value::real(x / y);
    case OpCode::Mod:
      if (y == 0) divisionByZero();
      return Value::real(floatMod(x, y));
    case OpCode::FloorDiv:
      if (y == 0) divisionByZero();
      // (x - x mod y) / y is a whole number up to rounding; rounding it avoids floor(2.9999...).
      return Value::real(std::round((x - floatMod(x, y)) / y));
    case OpCode::Pow: {
      if (x == 0 && y < 0) divisionByZero();
      if (x < 0 && y != std::floor(y))
        throw Fault{"a negative number raised to a fractional power is not a real number"};
      const double r = std::pow(x, y);
      if (std::isinf(r) && std::isfinite(x) && std::isfinite(y))
        throw Fault{"the power is too large for a float"};
      return Value::real(r);
    }
    default:
      break;
  }
  wrongTypes(op, a, b);
}

// Python's ordering: numbers with numbers, strings with strings, lists with lists and tuples with
// tuples element by element.
bool less(const Value& a, const Value& b, OpCode op) {
  if (a.isNumber() && b.isNumber()) {
    if (a.isInteger() && b.isInteger()) return a.asInt() < b.asInt();
    return a.asDouble() < b.asDouble();
  }
  if (a.kind() == Value::Kind::String && b.kind() == Value::Kind::String)
    return a.asString() < b.asString();
  if (a.hasItems() && a.kind() == b.kind()) {
    const auto& x = a.items();
    const auto& y = b.items();
    for (std::size_t i = 0; i < x.size() && i < y.size(); ++i)
      if (!(x[i] == y[i])) return less(x[i], y[i], op);
    return x.size() < y.size();
  }
  throw Fault{std::string("wrong operand types for '") + opText(op) +
              "': " + std::string(a.typeName()) + " and " + std::string(b.typeName()) +
              " cannot be ordered"};
}

bool contains(const Value& container, const Value& item, OpCode op) {
  if (container.hasItems()) {
    for (const Value& x : container.items())
      if (x == item) return true;
    return false;
  }
  if (container.kind() == Value::Kind::String && item.kind() == Value::Kind::String)
    return container.asString().find(item.asString()) != std::string::npos;
  wrongTypes(op, item, container);
}

}  // namespace

Value applyBinary(OpCode op, const Value& a, const Value& b) {
  using K = Value::Kind;
  if (isBitwise(op)) return bitwise(op, a, b);
  const bool sequenceA = a.kind() == K::String || a.hasItems();
  const bool sequenceB = b.kind() == K::String || b.hasItems();
  if (op == OpCode::Add && sequenceA && a.kind() == b.kind()) {
    if (a.kind() == K::String) {
      if (a.asString().size() + b.asString().size() > kMaxListSize)
        throw Fault{"the string would hold more than " + std::to_string(kMaxListSize) +
                    " characters"};
      return Value::string(a.asString() + b.asString());
    }
    if ((a.weight() - 1) + (b.weight() - 1) > kMaxListSize)
      throw Fault{"the " + std::string(a.typeName()) + " would hold more than " +
                  std::to_string(kMaxListSize) + " elements"};
    std::vector<Value> items = a.items();
    items.insert(items.end(), b.items().begin(), b.items().end());
    return a.kind() == K::Tuple ? Value::tuple(std::move(items)) : Value::list(std::move(items));
  }
  if (op == OpCode::Mul && sequenceA && b.isInteger()) return repeat(a, b.asInt());
  if (op == OpCode::Mul && sequenceB && a.isInteger()) return repeat(b, a.asInt());
  if (!a.isNumber() || !b.isNumber()) wrongTypes(op, a, b);
  return arithmetic(op, a, b);
}

Value applyUnary(OpCode op, const Value& a) {
  if (op == OpCode::Invert) {
    if (!a.isInteger())
      throw Fault{"wrong operand type for unary '~': " + std::string(a.typeName()) +
                  " (bitwise operators take integers)"};
    return Value::integer(~a.asInt());  // -x - 1, never out of range: ~True is -2
  }
  if (!a.isNumber())
    throw Fault{std::string("wrong operand type for unary '") + opText(op) +
                "': " + std::string(a.typeName())};
  if (a.kind() == Value::Kind::Float)
    return Value::real(op == OpCode::Neg ? -a.asDouble() : a.asDouble());
  if (op == OpCode::Pos) return Value::integer(a.asInt());  // +True is 1
  if (a.asInt() == INT64_MIN) overflow();
  return Value::integer(-a.asInt());
}

bool applyCompare(OpCode op, const Value& a, const Value& b) {
  // Floats compare directly so that every ordering with NaN is false, as in Python.
  if (a.isNumber() && b.isNumber() && !(a.isInteger() && b.isInteger())) {
    const double x = a.asDouble(), y = b.asDouble();
    if (op == OpCode::Lt) return x < y;
    if (op == OpCode::Le) return x <= y;
    if (op == OpCode::Gt) return x > y;
    if (op == OpCode::Ge) return x >= y;
  }
  switch (op) {
    case OpCode::Eq:
      return a == b;
    case OpCode::Ne:
      return !(a == b);
    case OpCode::Lt:
      return less(a, b, op);
    case OpCode::Gt:
      return less(b, a, op);
    case OpCode::Le:
      return !less(b, a, op);
    case OpCode::Ge:
      return !less(a, b, op);
    case OpCode::In:
      return contains(b, a, op);
    case OpCode::NotIn:
      return !contains(b, a, op);
    default:
      break;
  }
  wrongTypes(op, a, b);
}

}  // namespace opevo::t1
