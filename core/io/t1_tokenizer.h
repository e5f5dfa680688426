#pragma once

// Internal to the T1 expression code: the tokens of an expression.

#include <string>
#include <vector>

#include "io/t1_expression.h"

namespace opevo::t1 {

enum class Tok { Int, Float, String, Name, Op, End };

struct Token {
  Tok kind = Tok::End;
  std::string text;  // Name and Op: as written; String: the decoded content
  int column = 0;    // 1-based
  Value value;       // Int, Float, String
};

// Python keywords the subset uses; they can be neither variables nor comprehension targets.
bool isKeyword(const std::string& s);

// The tokens of text, ending with one End token whose column is just past the text. Throws
// Fault for an unexpected character, an unterminated string or an integer beyond 64 bits.
std::vector<Token> tokenize(const std::string& text);

}  // namespace opevo::t1
