#include "kas/size.h"

#include <numeric>
#include <stdexcept>

namespace opevo::kas {

namespace {

constexpr std::array<std::string_view, kSymbols> kNames = {
    "C", "H", "W", "KH", "KW", "G", "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8"};

void multiplyInto(Size::Fraction& f, std::int64_t v, int exp) {
  for (int k = 0; k < exp; ++k) f.num *= v;
  for (int k = 0; k < -exp; ++k) f.den *= v;
}

Size::Fraction reduced(Size::Fraction f) {
  const std::int64_t g = std::gcd(f.num, f.den);
  return g > 1 ? Size::Fraction{f.num / g, f.den / g} : f;
}

}  // namespace

std::string_view symbolName(Symbol s) {
  return kNames[static_cast<std::size_t>(s)];
}

std::optional<Symbol> parseSymbol(std::string_view text) {
  for (std::size_t i = 0; i < kSymbols; ++i)
    if (kNames[i] == text) return static_cast<Symbol>(i);
  return std::nullopt;
}

bool isVariable(Symbol s) {
  return s >= Symbol::X1;
}

Symbol variable(std::size_t index) {
  if (index >= kMaxVariables) throw std::out_of_range("kas: more than 8 free variables");
  return static_cast<Symbol>(static_cast<std::size_t>(Symbol::X1) + index);
}

Size Size::of(Symbol s) {
  Size out;
  out.m_exp[static_cast<std::size_t>(s)] = 1;
  return out;
}

Size Size::operator*(const Size& o) const {
  Size out;
  for (std::size_t i = 0; i < kSymbols; ++i)
    out.m_exp[i] = static_cast<std::int8_t>(m_exp[i] + o.m_exp[i]);
  return out;
}

Size Size::operator/(const Size& o) const {
  Size out;
  for (std::size_t i = 0; i < kSymbols; ++i)
    out.m_exp[i] = static_cast<std::int8_t>(m_exp[i] - o.m_exp[i]);
  return out;
}

std::optional<Symbol> Size::variable() const {
  for (std::size_t i = static_cast<std::size_t>(Symbol::X1); i < kSymbols; ++i)
    if (m_exp[i] > 0) return static_cast<Symbol>(i);
  return std::nullopt;
}

bool Size::breaksTheorem1() const {
  int count = 0;
  for (std::size_t i = static_cast<std::size_t>(Symbol::X1); i < kSymbols; ++i) {
    if (m_exp[i] < 0 || m_exp[i] > 1) return true;
    count += m_exp[i];
  }
  return count > 1;
}

bool Size::knownIntegral() const {
  if (breaksTheorem1()) return false;
  if (hasVariable()) return true;
  for (std::size_t i = 0; i < kSymbols; ++i)
    if (m_exp[i] < 0 && static_cast<Symbol>(i) != Symbol::G) return false;
  return -exponent(Symbol::G) <= exponent(Symbol::C);
}

Size Size::substituted(Symbol x, const Size& by) const {
  const int e = exponent(x);
  if (e == 0) return *this;
  Size out = *this;
  out.m_exp[static_cast<std::size_t>(x)] = 0;
  for (int k = 0; k < e; ++k) out = out * by;
  for (int k = 0; k < -e; ++k) out = out / by;
  return out;
}

Size::Fraction Size::evaluate(const Bindings& b) const {
  Fraction f;
  for (std::size_t i = 0; i < kSymbols; ++i) {
    multiplyInto(f, b[i], m_exp[i]);
    f = reduced(f);
  }
  return f;
}

Size::Fraction Size::evaluateWithout(Symbol x, const Bindings& b) const {
  Size rest = *this;
  rest.m_exp[static_cast<std::size_t>(x)] = 0;
  return rest.evaluate(b);
}

std::string Size::text() const {
  std::string num, den;
  // Variables first ("x1*KW"): the free part of a size reads first.
  const std::size_t firstVar = static_cast<std::size_t>(Symbol::X1);
  for (std::size_t k = 0; k < kSymbols; ++k) {
    const std::size_t i = (k + firstVar) % kSymbols;
    for (int k = 0; k < m_exp[i]; ++k) {
      if (!num.empty()) num.push_back('*');
      num.append(kNames[i]);
    }
    for (int k = 0; k < -m_exp[i]; ++k) {
      den.push_back('/');
      den.append(kNames[i]);
    }
  }
  if (num.empty()) num.push_back('1');
  num.append(den);
  return num;
}

std::optional<Size> Size::parse(std::string_view text) {
  Size out;
  bool divide = false;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] != '*' && text[i] != '/') continue;
    const std::string_view token = text.substr(start, i - start);
    if (token != "1") {
      const auto s = parseSymbol(token);
      if (!s) return std::nullopt;
      out = divide ? out / Size::of(*s) : out * Size::of(*s);
    } else if (divide) {
      return std::nullopt;
    }
    if (i < text.size()) divide = text[i] == '/';
    start = i + 1;
  }
  return out;
}

}  // namespace opevo::kas
