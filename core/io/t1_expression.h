#pragma once

// The Python-style expressions of T1 search-space files ("[16*i for i in range(1,17)]",
// "32 <= block_size_x * block_size_y <= 1024"): parsed once, evaluated many times (a constraint
// is checked for every configuration of the space).

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace opevo::t1 {

// A value of the Python subset T1 files use. Python's bool is a kind of int (True + 1 == 2), so
// arithmetic treats it as 0 or 1; the kind is kept so printing and type checks follow Python.
// A tuple holds items as a list does; it differs in repr, in type name and in equality (Python's
// (1, 2) == [1, 2] is False).
class Value {
 public:
  enum class Kind { Int, Float, Bool, String, List, Tuple };

  Value() = default;  // the int 0
  static Value integer(std::int64_t v);
  static Value real(double v);
  static Value boolean(bool v);
  static Value string(std::string v);
  static Value list(std::vector<Value> items);
  static Value tuple(std::vector<Value> items);

  Kind kind() const { return m_kind; }
  // Python's int and float, bool included.
  bool isNumber() const { return isInteger() || m_kind == Kind::Float; }
  // A list or a tuple: what items() reads.
  bool hasItems() const { return m_kind == Kind::List || m_kind == Kind::Tuple; }
  // Python's int: Int or Bool.
  bool isInteger() const { return m_kind == Kind::Int || m_kind == Kind::Bool; }
  std::int64_t asInt() const { return m_int; }  // Int or Bool
  double asDouble() const;                      // any number
  const std::string& asString() const { return m_string; }
  const std::vector<Value>& items() const { return m_list; }  // List or Tuple
  // How much it holds: 1 for a number, the byte count for a string (at least 1), 1 plus the
  // weights of the items for a list or tuple, nested ones counted in full. Size limits apply to it,
  // so that [range(10**6)] * 1000 is as large as range(10**9).
  std::size_t weight() const { return m_weight; }

  bool truthy() const;
  // Python's repr(): 16, 1.5, True, 'abc', [1, 2], (1,), ().
  std::string repr() const;
  // Python's type name: int, float, bool, str, list, tuple.
  std::string_view typeName() const;

 private:
  Kind m_kind = Kind::Int;
  std::int64_t m_int = 0;
  double m_float = 0;
  std::string m_string;
  std::vector<Value> m_list;
  std::size_t m_weight = 1;
};

// Python's ==: numbers compare by value across int, float and bool (1 == 1.0 == True); other
// values are equal when they have the same kind and content.
bool operator==(const Value& a, const Value& b);

struct Node;

// One parsed expression. Supported: int and float literals, True/False, strings, names, lists,
// tuples ((1, 8), (1,), (); a parenthesised (x) stays x), list comprehensions (several for/if
// clauses), calls of range, len, min, max, abs, int, float, str, list and tuple, subscripts,
// + - * / // % ** and the integer bitwise operators & | ^ ~ << >> (Python's precedence: ** binds
// tightest and is right-associative, then unary - + ~, * / // %, + -, << >>, &, ^, |), comparisons
// (chained: a < b < c), in / not in, and/or/not (short-circuit, returning an operand as Python
// does), and `a if c else b`.
//
// Errors throw InputError quoting the text and the 1-based column:
//   expression "block_size_x<=1O24": unexpected character 'O' at column 16
class Expression {
 public:
  // Parses text. Any name that is not a comprehension variable must be one of `variables` (the
  // T1 parameters); it is bound by its index when evaluating. An unknown name, a syntax error or
  // a call of an unknown function throws InputError here, before anything is evaluated.
  explicit Expression(std::string text, const std::vector<std::string>& variables = {});

  const std::string& text() const { return m_text; }
  // Indices into the constructor's `variables` of those the expression reads, ascending.
  const std::vector<std::size_t>& variablesUsed() const { return m_used; }

  // The value of variable i (an index into the constructor's `variables`).
  using Lookup = std::function<const Value&(std::size_t)>;
  // Throws InputError on a division by zero, a wrong operand type, an integer overflow or an
  // index out of range, naming the column of the operator or call at fault.
  Value evaluate(const Lookup& variable) const;
  Value evaluate(const std::vector<Value>& variables = {}) const;

 private:
  std::string m_text;
  std::shared_ptr<const Node> m_root;
  std::size_t m_locals = 0;  // comprehension variables alive at once, at most
  std::vector<std::size_t> m_used;
};

}  // namespace opevo::t1
