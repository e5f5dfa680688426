#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace opevo::kas {

// The symbols a dimension's size is made of (Canvas, seed 004, sec. 6.2): the replaced
// convolution's channels C and image H x W, its kernel KH x KW, the global group count G, and the
// free sizes x1..x8 that fully-connected primitives introduce.
enum class Symbol : std::uint8_t { C, H, W, KH, KW, G, X1, X2, X3, X4, X5, X6, X7, X8 };
inline constexpr std::size_t kSymbols = 14;
inline constexpr std::size_t kMaxVariables = 8;

std::string_view symbolName(Symbol s);
std::optional<Symbol> parseSymbol(std::string_view text);
bool isVariable(Symbol s);
Symbol variable(std::size_t index);  // 0 -> x1

// Concrete values of every symbol for one replaced layer.
using Bindings = std::array<std::int64_t, kSymbols>;

// A size as a product of symbols with integer exponents (C/G, C*KH, x1*KW, 1). Canvas's sizes
// need no other constant: every dimension is made of these by products and quotients.
class Size {
 public:
  Size() { m_exp.fill(0); }
  static Size of(Symbol s);

  int exponent(Symbol s) const { return m_exp[static_cast<std::size_t>(s)]; }
  Size operator*(const Size& o) const;
  Size operator/(const Size& o) const;
  bool operator==(const Size& o) const = default;
  bool isOne() const { return *this == Size{}; }

  // The free variable in the numerator, if any (Theorem 1: at most one, with exponent 1).
  std::optional<Symbol> variable() const;
  bool hasVariable() const { return variable().has_value(); }
  // A variable in a denominator, or two variables: what Theorem 1 rules out.
  bool breaksTheorem1() const;
  // Integral for every valid binding: any variable in the numerator (the solver makes it a
  // multiple of what divides it), otherwise only G may divide, and only as often as C does (G is
  // a factor of every C).
  bool knownIntegral() const;

  Size substituted(Symbol x, const Size& by) const;

  // The value under bindings as a reduced fraction num/den; variables must be bound.
  struct Fraction {
    std::int64_t num = 1, den = 1;
  };
  Fraction evaluate(const Bindings& b) const;
  // The value with the variable left out (the p/q of a size p*x/q).
  Fraction evaluateWithout(Symbol x, const Bindings& b) const;

  // "C*KH/G", "x1", "1"
  std::string text() const;
  // The inverse of text(); nullopt on anything else.
  static std::optional<Size> parse(std::string_view text);

 private:
  std::array<std::int8_t, kSymbols> m_exp;
};

}  // namespace opevo::kas
