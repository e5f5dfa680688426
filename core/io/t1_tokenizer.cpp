// The tokenizer of T1 expressions.
#include "io/t1_tokenizer.h"

#include <charconv>
#include <cstdio>
#include <set>
#include <string_view>
#include <utility>

#include "io/t1_ast.h"

namespace opevo::t1 {
namespace {

bool isNameStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool isDigit(char c) {
  return c >= '0' && c <= '9';
}
bool isNameChar(char c) {
  return isNameStart(c) || isDigit(c);
}

std::string charText(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return std::string("'") + c + "'";
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "0x%02X", u);
  return buffer;
}

}  // namespace

bool isKeyword(const std::string& s) {
  static const std::set<std::string> kKeywords = {"and",  "or",  "not",  "in",   "if",
                                                  "else", "for", "True", "False"};
  return kKeywords.count(s) > 0;
}

namespace {

class Tokenizer {
 public:
  explicit Tokenizer(const std::string& text) : m_text(text) {}

  std::vector<Token> run() {
    std::vector<Token> tokens;
    while (true) {
      while (m_pos < m_text.size() &&
             std::string_view(" \t\r\n").find(m_text[m_pos]) != std::string_view::npos)
        ++m_pos;
      if (m_pos == m_text.size()) break;
      tokens.push_back(next());
    }
    tokens.push_back({Tok::End, "", column(m_text.size()), {}});
    return tokens;
  }

 private:
  int column(std::size_t pos) const { return static_cast<int>(pos) + 1; }

  Token next() {
    const char c = m_text[m_pos];
    const std::size_t start = m_pos;
    if (isNameStart(c)) {
      while (m_pos < m_text.size() && isNameChar(m_text[m_pos])) ++m_pos;
      return {Tok::Name, m_text.substr(start, m_pos - start), column(start), {}};
    }
    if (isDigit(c) || (c == '.' && m_pos + 1 < m_text.size() && isDigit(m_text[m_pos + 1])))
      return number();
    if (c == '\'' || c == '"') return string();
    // C's logical && and || are never Python (nor is a & & b), so they get a hint, not a token.
    for (const auto& [op, word] : {std::pair{"&&", "and"}, std::pair{"||", "or"}})
      if (m_text.compare(m_pos, 2, op) == 0)
        throw Fault{std::string("unexpected '") + op + "' (Python writes '" + word + "')",
                    column(start)};
    for (const char* op : {"**", "//", "==", "!=", "<=", ">=", "<<", ">>"})
      if (m_text.compare(m_pos, 2, op) == 0) {
        m_pos += 2;
        return {Tok::Op, op, column(start), {}};
      }
    if (std::string_view("+-*/%<>()[],&|^~").find(c) != std::string_view::npos) {
      ++m_pos;
      return {Tok::Op, std::string(1, c), column(start), {}};
    }
    // Hints for what people coming from C write instead of Python.
    std::string hint;
    if (c == '=') hint = " (compare with '==')";
    if (c == '!') hint = " (Python writes 'not', and '!=' for not equal)";
    throw Fault{"unexpected character " + charText(c) + hint, column(start)};
  }

  Token number() {
    const std::size_t start = m_pos;
    bool isFloat = false;
    while (m_pos < m_text.size() && isDigit(m_text[m_pos])) ++m_pos;
    if (m_pos < m_text.size() && m_text[m_pos] == '.') {
      isFloat = true;
      ++m_pos;
      while (m_pos < m_text.size() && isDigit(m_text[m_pos])) ++m_pos;
    }
    if (m_pos < m_text.size() && (m_text[m_pos] == 'e' || m_text[m_pos] == 'E')) {
      std::size_t p = m_pos + 1;
      if (p < m_text.size() && (m_text[p] == '+' || m_text[p] == '-')) ++p;
      if (p < m_text.size() && isDigit(m_text[p])) {
        isFloat = true;
        m_pos = p;
        while (m_pos < m_text.size() && isDigit(m_text[m_pos])) ++m_pos;
      }
    }
    // "1O24" is a typo, not the number 1 followed by the name O24: Python refuses it too.
    if (m_pos < m_text.size() && isNameChar(m_text[m_pos]))
      throw Fault{"unexpected character " + charText(m_text[m_pos]), column(m_pos)};
    const std::string digits = m_text.substr(start, m_pos - start);
    Token t{isFloat ? Tok::Float : Tok::Int, digits, column(start), {}};
    if (isFloat) {
      double x = 0;
      std::from_chars(digits.data(), digits.data() + digits.size(), x);
      t.value = Value::real(x);
    } else {
      std::int64_t x = 0;
      const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), x);
      if (r.ec != std::errc())
        throw Fault{"integer " + digits + " is too large (at most 9223372036854775807)",
                    column(start)};
      t.value = Value::integer(x);
    }
    return t;
  }

  Token string() {
    const char quote = m_text[m_pos];
    const std::size_t start = m_pos++;
    std::string content;
    while (m_pos < m_text.size() && m_text[m_pos] != quote) {
      char c = m_text[m_pos++];
      if (c == '\\' && m_pos < m_text.size()) {
        const char e = m_text[m_pos++];
        switch (e) {
          case 'n':
            c = '\n';
            break;
          case 't':
            c = '\t';
            break;
          case '\\':
          case '\'':
          case '"':
            c = e;
            break;
          default:
            content += '\\';
            c = e;  // Python keeps unknown escapes as written
        }
      }
      content += c;
    }
    if (m_pos == m_text.size()) throw Fault{"unterminated string", column(start)};
    ++m_pos;
    return {Tok::String, content, column(start), Value::string(content)};
  }

  const std::string& m_text;
  std::size_t m_pos = 0;
};

}  // namespace

std::vector<Token> tokenize(const std::string& text) {
  return Tokenizer(text).run();
}

}  // namespace opevo::t1
