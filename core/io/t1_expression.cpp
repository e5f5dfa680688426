// Recursive-descent parser and name resolution of T1 expressions.
#include "io/t1_expression.h"

#include <algorithm>
#include <set>

#include "common/error.h"
#include "io/t1_ast.h"
#include "io/t1_tokenizer.h"

namespace opevo::t1 {
namespace {

NodePtr makeNode(NodeKind kind, int column) {
  auto n = std::make_unique<Node>();
  n->kind = kind;
  n->column = column;
  return n;
}

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : m_tokens(std::move(tokens)) {}

  NodePtr parseAll() {
    NodePtr root = test();
    if (peek().kind != Tok::End) unexpected();
    return root;
  }

 private:
  // One level of nesting, held while what is inside it is parsed: the parser recurses once per
  // level, so it must stop before the stack runs out.
  class Nested {
   public:
    explicit Nested(Parser& parser) : m_parser(parser) {
      if (++m_parser.m_nesting > kMaxNesting)
        throw Fault{
            "the expression nests more than " + std::to_string(kMaxNesting) + " levels deep",
            m_parser.peek().column};
    }
    ~Nested() { --m_parser.m_nesting; }
    Nested(const Nested&) = delete;
    Nested& operator=(const Nested&) = delete;

   private:
    Parser& m_parser;
  };

  // n, its operands in place: its height checked, since whatever walks the tree recurses.
  static NodePtr built(NodePtr n) {
    for (const NodePtr& kid : n->kids) n->height = std::max(n->height, kid->height + 1);
    for (const Clause& c : n->clauses) n->height = std::max(n->height, c.expr->height + 1);
    n->height = std::max(
        n->height, static_cast<int>(std::min<std::size_t>(n->clauses.size() + 1, kMaxHeight + 1)));
    if (n->height > kMaxHeight)
      throw Fault{"the expression is more than " + std::to_string(kMaxHeight) + " operations deep",
                  n->column};
    return n;
  }

  const Token& peek() const { return m_tokens[m_pos]; }
  const Token& take() { return m_tokens[m_pos++]; }
  bool isOp(const char* op) const { return peek().kind == Tok::Op && peek().text == op; }
  bool isWord(const char* w) const { return peek().kind == Tok::Name && peek().text == w; }

  static std::string describe(const Token& t) {
    switch (t.kind) {
      case Tok::End:
        return "end of the expression";
      case Tok::Int:
      case Tok::Float:
        return "number " + t.text;
      case Tok::String:
        return "string " + t.value.repr();
      case Tok::Name:
        return (isKeyword(t.text) ? "keyword '" : "name '") + t.text + "'";
      case Tok::Op:
        return "'" + t.text + "'";
    }
    return "?";
  }
  [[noreturn]] void unexpected() const {
    throw Fault{"unexpected " + describe(peek()), peek().column};
  }
  void expect(const char* what, bool word) {
    if (word ? isWord(what) : isOp(what)) {
      ++m_pos;
      return;
    }
    throw Fault{std::string("expected '") + what + "' but found " + describe(peek()),
                peek().column};
  }

  // test: or_test ['if' or_test 'else' test]
  NodePtr test() {
    const Nested level(*this);
    NodePtr value = orTest();
    if (!isWord("if")) return value;
    auto n = makeNode(NodeKind::Conditional, take().column);
    NodePtr condition = orTest();
    expect("else", true);
    n->kids.push_back(std::move(value));
    n->kids.push_back(std::move(condition));
    n->kids.push_back(test());
    return built(std::move(n));
  }

  NodePtr orTest() { return boolChain(NodeKind::Or, "or", &Parser::andTest); }
  NodePtr andTest() { return boolChain(NodeKind::And, "and", &Parser::notTest); }
  NodePtr boolChain(NodeKind kind, const char* word, NodePtr (Parser::*operand)()) {
    NodePtr left = (this->*operand)();
    while (isWord(word)) {
      auto n = makeNode(kind, take().column);
      n->kids.push_back(std::move(left));
      n->kids.push_back((this->*operand)());
      left = built(std::move(n));
    }
    return left;
  }

  NodePtr notTest() {
    if (!isWord("not")) return comparison();
    auto n = makeNode(NodeKind::Not, take().column);
    const Nested level(*this);
    n->kids.push_back(notTest());
    return built(std::move(n));
  }

  bool comparisonOp(OpCode& op) {
    static const std::pair<const char*, OpCode> kOps[] = {{"==", OpCode::Eq}, {"!=", OpCode::Ne},
                                                          {"<=", OpCode::Le}, {">=", OpCode::Ge},
                                                          {"<", OpCode::Lt},  {">", OpCode::Gt}};
    for (const auto& [text, code] : kOps)
      if (isOp(text)) {
        op = code;
        return true;
      }
    if (isWord("in")) {
      op = OpCode::In;
      return true;
    }
    const bool notIn =
        isWord("not") && m_tokens[m_pos + 1].kind == Tok::Name && m_tokens[m_pos + 1].text == "in";
    if (notIn) op = OpCode::NotIn;
    return notIn;
  }

  // a < b <= c is one Compare node: Python evaluates b once and stops at the first false.
  NodePtr comparison() {
    NodePtr first = binary(1);
    OpCode op{};
    if (!comparisonOp(op)) return first;
    auto n = makeNode(NodeKind::Compare, peek().column);
    n->kids.push_back(std::move(first));
    while (comparisonOp(op)) {
      n->compareOps.push_back(op);
      n->compareColumns.push_back(take().column);
      if (op == OpCode::NotIn) ++m_pos;
      n->kids.push_back(binary(1));
    }
    return built(std::move(n));
  }

  // Precedence climbing over Python's binary levels between comparisons and unary operators,
  // loosest first: 1 is |, 2 is ^, 3 is &, 4 is << >>, 5 is + -, 6 is * / // %. So
  // a & 3 == 0 is (a & 3) == 0 (C reads a & (3 == 0)), and 1 << 2 + 1 is 8.
  bool binaryOp(int minLevel, OpCode& op, int& level) const {
    static const std::tuple<const char*, OpCode, int> kOps[] = {
        {"|", OpCode::BitOr, 1},      {"^", OpCode::BitXor, 2},      {"&", OpCode::BitAnd, 3},
        {"<<", OpCode::LeftShift, 4}, {">>", OpCode::RightShift, 4}, {"+", OpCode::Add, 5},
        {"-", OpCode::Sub, 5},        {"*", OpCode::Mul, 6},         {"/", OpCode::Div, 6},
        {"%", OpCode::Mod, 6},        {"//", OpCode::FloorDiv, 6}};
    for (const auto& [text, code, l] : kOps)
      if (isOp(text) && l >= minLevel) {
        op = code;
        level = l;
        return true;
      }
    return false;
  }
  NodePtr binary(int minLevel) {
    NodePtr left = unary();
    OpCode op{};
    int level = 0;
    while (binaryOp(minLevel, op, level)) {
      auto n = makeNode(NodeKind::Binary, take().column);
      n->op = op;
      n->kids.push_back(std::move(left));
      n->kids.push_back(binary(level + 1));
      left = built(std::move(n));
    }
    return left;
  }

  // -x ** 2 is -(x ** 2), and 2 ** -1 is allowed: the exponent is itself a unary expression.
  NodePtr unary() {
    static const std::pair<const char*, OpCode> kOps[] = {
        {"-", OpCode::Neg}, {"+", OpCode::Pos}, {"~", OpCode::Invert}};
    for (const auto& [text, code] : kOps) {
      if (!isOp(text)) continue;
      auto n = makeNode(NodeKind::Unary, take().column);
      n->op = code;
      const Nested level(*this);
      n->kids.push_back(unary());
      return built(std::move(n));
    }
    NodePtr base = postfix();
    if (!isOp("**")) return base;
    auto n = makeNode(NodeKind::Binary, take().column);
    n->op = OpCode::Pow;
    n->kids.push_back(std::move(base));
    const Nested level(*this);
    n->kids.push_back(unary());
    return built(std::move(n));
  }

  NodePtr postfix() {
    NodePtr n = atom();
    while (isOp("[")) {
      auto s = makeNode(NodeKind::Subscript, take().column);
      s->kids.push_back(std::move(n));
      s->kids.push_back(test());
      expect("]", false);
      n = built(std::move(s));
    }
    return n;
  }

  NodePtr atom() {
    const Token& t = peek();
    if (t.kind == Tok::Int || t.kind == Tok::Float || t.kind == Tok::String) {
      auto n = makeNode(NodeKind::Literal, t.column);
      n->value = take().value;
      return n;
    }
    if (t.kind == Tok::Name && (t.text == "True" || t.text == "False")) {
      auto n = makeNode(NodeKind::Literal, t.column);
      n->value = Value::boolean(take().text == "True");
      return n;
    }
    if (t.kind == Tok::Name && !isKeyword(t.text)) return nameOrCall();
    if (isOp("(")) return parenthesised();
    if (isOp("[")) return list();
    unexpected();
  }

  // (x) is x; a comma makes a tuple: (), (x,), (x, y) and (x, y,).
  NodePtr parenthesised() {
    auto n = makeNode(NodeKind::TupleDisplay, take().column);
    if (isOp(")")) {
      ++m_pos;
      return n;
    }
    NodePtr first = test();
    if (!isOp(",")) {
      expect(")", false);
      return first;
    }
    n->kids.push_back(std::move(first));
    while (isOp(",")) {
      ++m_pos;
      if (isOp(")")) break;  // trailing comma
      n->kids.push_back(test());
    }
    expect(")", false);
    return built(std::move(n));
  }

  NodePtr nameOrCall() {
    const Token& name = take();
    if (!isOp("(")) {
      auto n = makeNode(NodeKind::Name, name.column);
      n->name = name.text;
      return n;
    }
    if (!isBuiltin(name.text))
      throw Fault{"unknown function '" + name.text + "' (known: " + builtinNames() + ")",
                  name.column};
    auto n = makeNode(NodeKind::Call, name.column);
    n->name = name.text;
    ++m_pos;
    while (!isOp(")")) {
      n->kids.push_back(test());
      if (!isOp(",")) break;
      ++m_pos;
    }
    expect(")", false);
    return built(std::move(n));
  }

  // [a, b, c] or [element for x in iterable if condition ...]
  NodePtr list() {
    auto n = makeNode(NodeKind::ListDisplay, take().column);
    if (isOp("]")) {
      ++m_pos;
      return n;
    }
    n->kids.push_back(test());
    if (isWord("for")) {
      n->kind = NodeKind::Comprehension;
      while (isWord("for") || isWord("if")) {
        Clause c;
        c.isFor = peek().text == "for";
        c.column = take().column;
        if (c.isFor) {
          if (peek().kind != Tok::Name || isKeyword(peek().text)) unexpected();
          c.variable = take().text;
          expect("in", true);
        }
        // Python's grammar: the iterable and the condition are or_tests, so a following `if`
        // starts a clause rather than a conditional expression.
        c.expr = orTest();
        n->clauses.push_back(std::move(c));
      }
    } else {
      while (isOp(",")) {
        ++m_pos;
        if (isOp("]")) break;  // trailing comma
        n->kids.push_back(test());
      }
    }
    expect("]", false);
    return built(std::move(n));
  }

  std::vector<Token> m_tokens;
  std::size_t m_pos = 0;
  int m_nesting = 0;
};

// Turns each Name into a Variable or a comprehension Local, following Python's scoping: a
// comprehension's first iterable is evaluated outside it; everything else sees its variables.
class Resolver {
 public:
  explicit Resolver(const std::vector<std::string>& variables) : m_variables(variables) {}

  void resolve(Node& n) {
    if (n.kind == NodeKind::Name) {
      for (std::size_t i = m_scope.size(); i-- > 0;)
        if (m_scope[i] == n.name) {
          n.kind = NodeKind::Local;
          n.index = i;
          return;
        }
      for (std::size_t i = 0; i < m_variables.size(); ++i)
        if (m_variables[i] == n.name) {
          n.kind = NodeKind::Variable;
          n.index = i;
          m_used.insert(i);
          return;
        }
      throw Fault{"unknown name '" + n.name + "'", n.column};
    }
    if (n.kind != NodeKind::Comprehension) {
      for (NodePtr& kid : n.kids) resolve(*kid);
      return;
    }
    const std::size_t depth = m_scope.size();
    for (Clause& c : n.clauses) {
      resolve(*c.expr);
      if (!c.isFor) continue;
      c.local = m_scope.size();
      m_scope.push_back(c.variable);
      m_maxLocals = std::max(m_maxLocals, m_scope.size());
    }
    resolve(*n.kids[0]);
    m_scope.resize(depth);
  }

  std::size_t maxLocals() const { return m_maxLocals; }
  std::vector<std::size_t> used() const { return {m_used.begin(), m_used.end()}; }

 private:
  const std::vector<std::string>& m_variables;
  std::vector<std::string> m_scope;
  std::size_t m_maxLocals = 0;
  std::set<std::size_t> m_used;
};

[[noreturn]] void fail(const std::string& text, const Fault& f) {
  throw InputError("expression \"" + text + "\": " + f.message + " at column " +
                   std::to_string(f.column));
}

}  // namespace

Expression::Expression(std::string text, const std::vector<std::string>& variables)
    : m_text(std::move(text)) {
  try {
    NodePtr root = Parser(tokenize(m_text)).parseAll();
    Resolver resolver(variables);
    resolver.resolve(*root);
    m_locals = resolver.maxLocals();
    m_used = resolver.used();
    m_root = std::move(root);
  } catch (const Fault& f) {
    fail(m_text, f);
  }
}

Value Expression::evaluate(const Lookup& variable) const {
  Evaluation ev;
  ev.locals.resize(m_locals);
  try {
    return evaluateNode(*m_root, variable, ev);
  } catch (const Fault& f) {
    fail(m_text, f);
  }
}

Value Expression::evaluate(const std::vector<Value>& variables) const {
  return evaluate([&](std::size_t i) -> const Value& { return variables.at(i); });
}

}  // namespace opevo::t1
