#pragma once

// Internal to the T1 expression code: the syntax tree shared by the parser and the evaluator,
// and the Python semantics of the operators and builtins.

#include <memory>
#include <string>
#include <vector>

#include "io/t1_expression.h"

namespace opevo::t1 {

enum class NodeKind {
  Literal,
  Name,      // before resolution only
  Variable,  // a T1 parameter: index into the evaluator's variables
  Local,     // a comprehension variable: index into the evaluator's locals
  ListDisplay,
  Comprehension,
  Call,
  Unary,
  Binary,
  Compare,
  And,
  Or,
  Not,
  Conditional,  // kids: value if true, condition, value if false
  Subscript
};

enum class OpCode {
  Add,
  Sub,
  Mul,
  Div,
  FloorDiv,
  Mod,
  Pow,
  Neg,
  Pos,
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  In,
  NotIn
};

struct Node;
using NodePtr = std::unique_ptr<Node>;

// One `for x in iterable` or `if condition` of a comprehension, in source order.
struct Clause {
  bool isFor = true;
  std::string variable;   // for: the name bound
  std::size_t local = 0;  // for: the slot of that name among the locals
  int column = 0;         // of the keyword, for errors about the iterable
  NodePtr expr;
};

struct Node {
  NodeKind kind = NodeKind::Literal;
  int column = 0;           // of the operator, call or first character: where an error points
  Value value;              // Literal
  std::string name;         // Name, Call
  std::size_t index = 0;    // Variable, Local
  OpCode op = OpCode::Add;  // Unary, Binary
  std::vector<OpCode> compareOps;  // Compare: one per comparison of the chain
  std::vector<int> compareColumns;
  std::vector<NodePtr> kids;    // operands; Comprehension: the element
  std::vector<Clause> clauses;  // Comprehension
};

// A failure inside evaluation. Column 0 means "where the caller is": the evaluator fills in the
// column of the node being evaluated, and Expression turns it into an InputError quoting the text.
struct Fault {
  std::string message;
  int column = 0;
};

// Python's semantics; each throws Fault (column 0) for a wrong operand type, a division by zero,
// an integer overflow or a list too large to build.
Value applyBinary(OpCode op, const Value& a, const Value& b);
Value applyUnary(OpCode op, const Value& a);
bool applyCompare(OpCode op, const Value& a, const Value& b);
Value subscript(const Value& container, const Value& index);
// The elements `for` iterates over: a list's items, a string's characters.
std::vector<Value> iterate(const Value& v);
bool isBuiltin(const std::string& name);
Value callBuiltin(const std::string& name, const std::vector<Value>& args);
const char* opText(OpCode op);

// The largest list an expression may build: a T1 value list or a comprehension far beyond this
// is a mistake (range(10**12)), and failing beats exhausting memory.
constexpr std::size_t kMaxListSize = 10'000'000;

Value evaluateNode(const Node& node, const Expression::Lookup& variable,
                   std::vector<Value>& locals);

}  // namespace opevo::t1
