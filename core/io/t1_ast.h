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
  TupleDisplay,
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
  BitAnd,
  BitOr,
  BitXor,
  LeftShift,
  RightShift,
  Neg,
  Pos,
  Invert,
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
  int height = 1;           // of the subtree: 1 for a leaf
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
// The elements `for` iterates over: a list's or tuple's items, a string's characters.
std::vector<Value> iterate(const Value& v);
bool isBuiltin(const std::string& name);
// The builtins' names, for an error about an unknown one: "range, len, ...".
std::string builtinNames();
Value callBuiltin(const std::string& name, const std::vector<Value>& args);
const char* opText(OpCode op);

// How deep an expression may nest. The parser, the name resolution, the evaluator and the tree's
// destructor all recurse, so a deeper one ("((((...1))))", "1+1+...+1" a million times) would
// overflow the stack instead of failing. Nesting counts brackets, parentheses, calls,
// subscripts, conditional expressions, unary operators and powers inside one another (Python's
// own parser allows 200 nested parentheses); the height counts every operation (a + b + c is 3
// high).
constexpr int kMaxNesting = 200;
constexpr int kMaxHeight = 1000;

// The largest list or string an expression may build, by Value::weight() (nested lists in full,
// strings by their bytes): a T1 value list or a comprehension far beyond this is a mistake
// (range(10**12)), and failing beats exhausting memory. A million values take about 90 MB, and
// importing a parameter copies its list a few times.
constexpr std::size_t kMaxListSize = 1'000'000;

// The most work one evaluation may do, counted as the weight of every value a node gives (a
// number is 1, range(1000) is 1001): [0 for i in range(10**6) for j in range(10**6) if 0] builds
// nothing large, but would run for hours. [i for i in range(10**6)] takes about 3 million, and
// the limit about a second.
constexpr std::uint64_t kMaxSteps = 5'000'000;

// One evaluation's comprehension variables and the work done so far.
struct Evaluation {
  std::vector<Value> locals;
  std::uint64_t steps = 0;
};

Value evaluateNode(const Node& node, const Expression::Lookup& variable, Evaluation& ev);

}  // namespace opevo::t1
