// The Python-style expressions of T1 files: values and precedence as Python computes them, and a
// one-line error quoting the text and the column for every kind of mistake.
#include "io/t1_expression.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace opevo::t1 {
namespace {

// Python's repr of the result, so each expectation reads like the Python REPL.
std::string eval(const std::string& text, const std::vector<std::string>& names = {},
                 const std::vector<Value>& values = {}) {
  return Expression(text, names).evaluate(values).repr();
}

// The message of the InputError that parsing and evaluating text throws, or "" when none.
std::string error(const std::string& text, const std::vector<std::string>& names = {},
                  const std::vector<Value>& values = {}) {
  try {
    Expression(text, names).evaluate(values);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(T1Expression, Literals) {
  EXPECT_EQ(eval("42"), "42");
  EXPECT_EQ(eval("1.5"), "1.5");
  EXPECT_EQ(eval(".5"), "0.5");
  EXPECT_EQ(eval("2."), "2.0");
  EXPECT_EQ(eval("1e3"), "1000.0");
  EXPECT_EQ(eval("2.5E-1"), "0.25");
  // Floats print as Python prints them: shortest digits, positional from 1e-4 to below 1e16.
  EXPECT_EQ(eval("1e16"), "1e+16");
  EXPECT_EQ(eval("1e15"), "1000000000000000.0");
  EXPECT_EQ(eval("0.0001"), "0.0001");
  EXPECT_EQ(eval("0.00001"), "1e-05");
  EXPECT_EQ(eval("-2.5e-7"), "-2.5e-07");
  EXPECT_EQ(eval("0.1 + 0.2"), "0.30000000000000004");
  EXPECT_EQ(eval("1.5e300 * 10"), "1.5e+301");
  EXPECT_EQ(eval("True"), "True");
  EXPECT_EQ(eval("False"), "False");
  EXPECT_EQ(eval("'abc'"), "'abc'");
  EXPECT_EQ(eval("\"it's\""), "'it\\'s'");
  EXPECT_EQ(eval("'a\\tb'"), "'a\tb'");
  EXPECT_EQ(eval("[]"), "[]");
  EXPECT_EQ(eval("[1, 2.0, 'x', True, [3]]"), "[1, 2.0, 'x', True, [3]]");
  EXPECT_EQ(eval("[1, 2, ]"), "[1, 2]");
  EXPECT_EQ(eval("  [ 16 ,\n 32 ]  "), "[16, 32]");
}

TEST(T1Expression, ArithmeticFollowsPython) {
  EXPECT_EQ(eval("7 / 2"), "3.5");
  EXPECT_EQ(eval("6 / 3"), "2.0");  // true division always gives a float
  EXPECT_EQ(eval("7 // 2"), "3");
  EXPECT_EQ(eval("-7 // 2"), "-4");  // floors, not truncates
  EXPECT_EQ(eval("7 // -2"), "-4");
  EXPECT_EQ(eval("-7 % 3"), "2");  // the remainder takes the divisor's sign
  EXPECT_EQ(eval("7 % -3"), "-2");
  EXPECT_EQ(eval("7.5 // 2"), "3.0");
  EXPECT_EQ(eval("-7.5 % 2"), "0.5");
  EXPECT_EQ(eval("2 ** 10"), "1024");
  EXPECT_EQ(eval("2 ** -1"), "0.5");
  EXPECT_EQ(eval("2.0 ** 3"), "8.0");
  EXPECT_EQ(eval("True + True"), "2");  // bool is an int
  EXPECT_EQ(eval("-True"), "-1");
  EXPECT_EQ(eval("+2.5"), "2.5");
  EXPECT_EQ(eval("1 + 2.5"), "3.5");
  EXPECT_EQ(eval("'ab' + 'cd'"), "'abcd'");
  EXPECT_EQ(eval("'ab' * 3"), "'ababab'");
  EXPECT_EQ(eval("[0] * 3"), "[0, 0, 0]");
  EXPECT_EQ(eval("2 * [1, 2]"), "[1, 2, 1, 2]");
  EXPECT_EQ(eval("[1] + [2, 3]"), "[1, 2, 3]");
  EXPECT_EQ(eval("[1] * -1"), "[]");
}

TEST(T1Expression, Precedence) {
  EXPECT_EQ(eval("1 + 2 * 3"), "7");
  EXPECT_EQ(eval("(1 + 2) * 3"), "9");
  EXPECT_EQ(eval("10 - 4 - 3"), "3");  // left-associative
  EXPECT_EQ(eval("100 // 10 // 3"), "3");
  EXPECT_EQ(eval("2 ** 3 ** 2"), "512");  // right-associative
  EXPECT_EQ(eval("-2 ** 2"), "-4");       // ** binds tighter than unary minus on its left
  EXPECT_EQ(eval("2 * -3"), "-6");
  EXPECT_EQ(eval("- - 3"), "3");
  EXPECT_EQ(eval("1 + 2 < 4"), "True");
  EXPECT_EQ(eval("not 1 == 2"), "True");               // not binds looser than comparisons
  EXPECT_EQ(eval("True or False and False"), "True");  // and binds tighter than or
  EXPECT_EQ(eval("(True or False) and False"), "False");
  EXPECT_EQ(eval("not True or True"), "True");
  EXPECT_EQ(eval("1 if 2 > 3 else 4 + 5"), "9");
  EXPECT_EQ(eval("8 % 3 * 2"), "4");
}

TEST(T1Expression, ComparisonsAndLogic) {
  EXPECT_EQ(eval("1 == 1.0"), "True");
  EXPECT_EQ(eval("True == 1"), "True");
  EXPECT_EQ(eval("1 == '1'"), "False");  // different types are unequal, not an error
  EXPECT_EQ(eval("'a' < 'b'"), "True");
  EXPECT_EQ(eval("[1, 2] < [1, 3]"), "True");
  EXPECT_EQ(eval("[1, 2] == [1, 2.0]"), "True");
  EXPECT_EQ(eval("1 < 2 < 3"), "True");
  EXPECT_EQ(eval("1 < 3 < 2"), "False");
  EXPECT_EQ(eval("3 > 2 == 2"), "True");  // chained: 3 > 2 and 2 == 2
  EXPECT_EQ(eval("1 < 2 > 0 != 5"), "True");
  EXPECT_EQ(eval("2 in [1, 2, 3]"), "True");
  EXPECT_EQ(eval("4 not in [1, 2, 3]"), "True");
  EXPECT_EQ(eval("'ell' in 'hello'"), "True");
  EXPECT_EQ(eval("0 or 'x'"), "'x'");  // and/or return an operand
  EXPECT_EQ(eval("2 and 3"), "3");
  EXPECT_EQ(eval("[] and 1"), "[]");
  EXPECT_EQ(eval("not []"), "True");
  EXPECT_EQ(eval("0.0 or ''"), "''");
  // Short-circuit: the right side is not evaluated, so its division by zero never happens.
  EXPECT_EQ(eval("False and 1 / 0"), "False");
  EXPECT_EQ(eval("True or 1 / 0"), "True");
  EXPECT_EQ(eval("1 > 2 > 1 / 0"), "False");
}

TEST(T1Expression, ListsRangesAndComprehensions) {
  EXPECT_EQ(eval("range(4)"), "[0, 1, 2, 3]");
  EXPECT_EQ(eval("range(2, 5)"), "[2, 3, 4]");
  EXPECT_EQ(eval("range(10, 0, -3)"), "[10, 7, 4, 1]");
  EXPECT_EQ(eval("range(5, 2)"), "[]");
  EXPECT_EQ(eval("[16*i for i in range(1,5)]"), "[16, 32, 48, 64]");
  EXPECT_EQ(eval("[2**i for i in range(6) if i % 2 == 0]"), "[1, 4, 16]");
  EXPECT_EQ(eval("[x for x in [1, 2, 3, 4] if x > 1 if x < 4]"), "[2, 3]");
  EXPECT_EQ(eval("[a*b for a in range(1,3) for b in range(a, 3)]"), "[1, 2, 4]");
  EXPECT_EQ(eval("[[i*j for j in range(3)] for i in range(1, 3)]"), "[[0, 1, 2], [0, 2, 4]]");
  EXPECT_EQ(eval("[x if x > 1 else -x for x in range(3)]"), "[0, -1, 2]");
  EXPECT_EQ(eval("[c for c in 'abc']"), "['a', 'b', 'c']");
  // The first iterable is evaluated outside the comprehension: i there is the parameter.
  EXPECT_EQ(eval("[i for i in range(i)]", {"i"}, {Value::integer(3)}), "[0, 1, 2]");
  EXPECT_EQ(eval("[1, 2, 3][-1]"), "3");
  EXPECT_EQ(eval("'abc'[1]"), "'b'");
  EXPECT_EQ(eval("len([1, 2]) + len('abc')"), "5");
  EXPECT_EQ(eval("min([3, 1, 2])"), "1");
  EXPECT_EQ(eval("max(3, 7.5, 2)"), "7.5");
  EXPECT_EQ(eval("abs(-3)"), "3");
  EXPECT_EQ(eval("int(7.9) + int('12')"), "19");
  EXPECT_EQ(eval("float(2)"), "2.0");
  EXPECT_EQ(eval("str(16) + 'x'"), "'16x'");
}

// The user's case: `a in (1, 8)` was a syntax error at the comma, while `a not in [2,4]` worked.
TEST(T1Expression, Tuples) {
  EXPECT_EQ(eval("a in (1, 8)", {"a"}, {Value::integer(8)}), "True");
  EXPECT_EQ(eval("a in (1, 8)", {"a"}, {Value::integer(2)}), "False");
  EXPECT_EQ(eval("a not in (2, 4)", {"a"}, {Value::integer(3)}), "True");
  EXPECT_EQ(eval("(1, 8)"), "(1, 8)");
  EXPECT_EQ(eval("(1, 'x', 2.5, [3], (4,))"), "(1, 'x', 2.5, [3], (4,))");
  EXPECT_EQ(eval("(1,)"), "(1,)");  // the comma makes the tuple
  EXPECT_EQ(eval("()"), "()");
  EXPECT_EQ(eval("(1, 2, )"), "(1, 2)");
  EXPECT_EQ(eval("(7)"), "7");  // parentheses alone only group
  EXPECT_EQ(eval("((1 + 2))"), "3");
  EXPECT_EQ(eval("(1 + 2) * 3"), "9");
  // Everywhere a list goes: iteration, len, indexing, min/max, +, *, truth, comparison.
  EXPECT_EQ(eval("[2 * x for x in (1, 2, 3)]"), "[2, 4, 6]");
  EXPECT_EQ(eval("len((1, 2, 3)) + len(())"), "3");
  EXPECT_EQ(eval("(10, 20, 30)[-1]"), "30");
  EXPECT_EQ(eval("max((3, 9, 4)) + min(5, 2)"), "11");
  EXPECT_EQ(eval("(1, 2) + (3,)"), "(1, 2, 3)");
  EXPECT_EQ(eval("(0,) * 3"), "(0, 0, 0)");
  EXPECT_EQ(eval("not ()"), "True");
  EXPECT_EQ(eval("(1, 2) < (1, 3)"), "True");
  EXPECT_EQ(eval("(1, 2) == (1, 2.0)"), "True");
  EXPECT_EQ(eval("(1, 2) == [1, 2]"), "False");  // as in Python: a tuple is never a list
  EXPECT_EQ(eval("[1, 2] in [(1, 2), [1, 2]]"), "True");
  EXPECT_EQ(eval("str((1,))"), "'(1,)'");
  EXPECT_EQ(error("(1, 2) + [3]"),
            "expression \"(1, 2) + [3]\": wrong operand types for '+': tuple and list at column 8");
  EXPECT_EQ(error("(1, 2) < [3]"),
            "expression \"(1, 2) < [3]\": wrong operand types for '<': tuple and list cannot be "
            "ordered at column 8");
  EXPECT_EQ(error("(1, 2"),
            "expression \"(1, 2\": expected ')' but found end of the expression at column 6");
  EXPECT_EQ(error("(1 2)"), "expression \"(1 2)\": expected ')' but found number 2 at column 4");
  EXPECT_EQ(error("(,)"), "expression \"(,)\": unexpected ',' at column 2");
  EXPECT_EQ(error("(1,,)"), "expression \"(1,,)\": unexpected ',' at column 4");
}

// Python's integer bitwise operators, with its precedence: below + - come the shifts, then &,
// then ^, then |, all above the comparisons (so `(a & 3) == 0` needs no parentheses, unlike C).
TEST(T1Expression, BitwiseOperators) {
  EXPECT_EQ(eval("(a & 3) == 0", {"a"}, {Value::integer(12)}), "True");
  EXPECT_EQ(eval("(a & 3) == 0", {"a"}, {Value::integer(13)}), "False");
  EXPECT_EQ(eval("12 & 10"), "8");
  EXPECT_EQ(eval("12 | 3"), "15");
  EXPECT_EQ(eval("12 ^ 10"), "6");
  EXPECT_EQ(eval("~5"), "-6");
  EXPECT_EQ(eval("~-1"), "0");
  EXPECT_EQ(eval("1 << 10"), "1024");
  EXPECT_EQ(eval("1024 >> 3"), "128");
  EXPECT_EQ(eval("-5 >> 1"), "-3");  // floors, as Python does
  EXPECT_EQ(eval("-1 >> 100"), "-1");
  EXPECT_EQ(eval("5 >> 100"), "0");
  EXPECT_EQ(eval("0 << 1000"), "0");
  EXPECT_EQ(eval("-6 & 7"), "2");  // two's complement, as Python's unbounded ints behave
  // Precedence, each checked against Python.
  EXPECT_EQ(eval("1 << 2 + 1"), "8");  // + binds tighter than <<
  EXPECT_EQ(eval("2 * 3 << 1"), "12");
  EXPECT_EQ(eval("1 | 2 ^ 3 & 4"), "3");   // 1 | (2 ^ (3 & 4))
  EXPECT_EQ(eval("6 & 3 << 1"), "6");      // 6 & (3 << 1)
  EXPECT_EQ(eval("5 ^ 1 | 8"), "12");      // (5 ^ 1) | 8
  EXPECT_EQ(eval("12 & 4 == 4"), "True");  // (12 & 4) == 4; C would read 12 & (4 == 4)
  EXPECT_EQ(eval("1 | 2 < 4"), "True");
  EXPECT_EQ(eval("~1 + 1"), "-1");   // ~ binds as unary minus does
  EXPECT_EQ(eval("~2 ** 2"), "-5");  // ** binds tighter: ~(2 ** 2)
  EXPECT_EQ(eval("- ~3"), "4");
  EXPECT_EQ(eval("16 >> 2 >> 1"), "2");  // left-associative
  // bool is an int: two bools give a bool for & | ^, anything else an int.
  EXPECT_EQ(eval("True & False"), "False");
  EXPECT_EQ(eval("True | False"), "True");
  EXPECT_EQ(eval("True ^ True"), "False");
  EXPECT_EQ(eval("True & 3"), "1");
  EXPECT_EQ(eval("True << 2"), "4");
  EXPECT_EQ(eval("~True"), "-2");
  EXPECT_EQ(eval("[x for x in range(8) if x & (x - 1) == 0]"), "[0, 1, 2, 4]");
  // Integers only, and 64 bits.
  EXPECT_EQ(error("1.5 & 1"),
            "expression \"1.5 & 1\": wrong operand types for '&': float and int (bitwise "
            "operators take integers) at column 5");
  EXPECT_EQ(error("'a' | 'b'"),
            "expression \"'a' | 'b'\": wrong operand types for '|': str and str (bitwise "
            "operators take integers) at column 5");
  EXPECT_EQ(error("[1] ^ [2]"),
            "expression \"[1] ^ [2]\": wrong operand types for '^': list and list (bitwise "
            "operators take integers) at column 5");
  EXPECT_EQ(error("2 << 1.0"),
            "expression \"2 << 1.0\": wrong operand types for '<<': int and float (bitwise "
            "operators take integers) at column 3");
  EXPECT_EQ(error("~2.0"),
            "expression \"~2.0\": wrong operand type for unary '~': float (bitwise operators "
            "take integers) at column 1");
  EXPECT_EQ(error("1 >> -1"), "expression \"1 >> -1\": negative shift count at column 3");
  EXPECT_EQ(error("1 << 63"),
            "expression \"1 << 63\": integer overflow (the result does not fit in 64 bits) at "
            "column 3");
  EXPECT_EQ(error("3 << 64"),
            "expression \"3 << 64\": integer overflow (the result does not fit in 64 bits) at "
            "column 3");
  EXPECT_EQ(eval("1 << 62"), "4611686018427387904");
  EXPECT_EQ(eval("-1 << 63"), "-9223372036854775808");
  EXPECT_EQ(error("1 & & 2"), "expression \"1 & & 2\": unexpected '&' at column 5");
}

// list() and tuple() of an iterable: the user's `list(range(-3,3))` was an unknown function.
TEST(T1Expression, ListAndTupleBuiltins) {
  EXPECT_EQ(eval("list(range(-3,3))"), "[-3, -2, -1, 0, 1, 2]");
  EXPECT_EQ(eval("tuple(range(3))"), "(0, 1, 2)");
  EXPECT_EQ(eval("list((1, 2))"), "[1, 2]");
  EXPECT_EQ(eval("tuple([1, 2])"), "(1, 2)");
  EXPECT_EQ(eval("list([1, 2])"), "[1, 2]");
  EXPECT_EQ(eval("list('ab')"), "['a', 'b']");
  EXPECT_EQ(eval("list()"), "[]");
  EXPECT_EQ(eval("tuple()"), "()");
  EXPECT_EQ(eval("list(range(3)) + [3]"), "[0, 1, 2, 3]");
  EXPECT_EQ(eval("tuple([x * x for x in range(3)])"), "(0, 1, 4)");
  EXPECT_EQ(error("list(5)"),
            "expression \"list(5)\": wrong type: cannot iterate over int 5 at column 1");
  EXPECT_EQ(error("tuple(1, 2)"),
            "expression \"tuple(1, 2)\": wrong number of arguments: tuple() takes at most 1, got "
            "2 at column 1");
}

TEST(T1Expression, NamesAreBoundByIndex) {
  const Expression e("use_shmem == 0 or (bx*tx + 14) * (by*ty + 14) < 12*1024",
                     {"bx", "by", "tx", "ty", "use_shmem", "unused"});
  EXPECT_EQ(e.variablesUsed(), (std::vector<std::size_t>{0, 1, 2, 3, 4}));
  auto run = [&](std::int64_t bx, std::int64_t by, std::int64_t shmem) {
    return e
        .evaluate({Value::integer(bx), Value::integer(by), Value::integer(1), Value::integer(1),
                   Value::integer(shmem), Value::string("x")})
        .truthy();
  };
  EXPECT_TRUE(run(16, 4, 1));     // 30 * 18 = 540
  EXPECT_FALSE(run(256, 64, 1));  // 270 * 78 = 21060
  EXPECT_TRUE(run(1024, 16, 0));
  // A lookup function, as the search space's constraints use it, is asked at every read.
  int calls = 0;
  const Value x = Value::integer(5);
  Expression("a * a + a", {"a"}).evaluate([&](std::size_t) -> const Value& {
    ++calls;
    return x;
  });
  EXPECT_EQ(calls, 3);
}

TEST(T1Expression, SyntaxErrorsQuoteTheTextAndColumn) {
  EXPECT_EQ(
      error("block_size_x*block_size_y<=1O24", {"block_size_x", "block_size_y"}),
      "expression \"block_size_x*block_size_y<=1O24\": unexpected character 'O' at column 29");
  EXPECT_EQ(error("1 +"), "expression \"1 +\": unexpected end of the expression at column 4");
  EXPECT_EQ(error(""), "expression \"\": unexpected end of the expression at column 1");
  EXPECT_EQ(error("[1, 2"),
            "expression \"[1, 2\": expected ']' but found end of the expression at column 6");
  EXPECT_EQ(error("(1 + 2"),
            "expression \"(1 + 2\": expected ')' but found end of the expression at column 7");
  EXPECT_EQ(error("1 2"), "expression \"1 2\": unexpected number 2 at column 3");
  EXPECT_EQ(error("a = 1", {"a"}),
            "expression \"a = 1\": unexpected character '=' (compare with '==') at column 3");
  // C's logical operators are not Python; its bitwise & | are (T1Expression.BitwiseOperators).
  EXPECT_EQ(error("a && b", {"a", "b"}),
            "expression \"a && b\": unexpected '&&' (Python writes 'and') at column 3");
  EXPECT_EQ(error("a || b", {"a", "b"}),
            "expression \"a || b\": unexpected '||' (Python writes 'or') at column 3");
  EXPECT_EQ(error("!a", {"a"}),
            "expression \"!a\": unexpected character '!' (Python writes 'not', and '!=' for not "
            "equal) at column 1");
  EXPECT_EQ(error("'abc"), "expression \"'abc\": unterminated string at column 1");
  EXPECT_EQ(error("1 if 2"),
            "expression \"1 if 2\": expected 'else' but found end of the expression at column 7");
  EXPECT_EQ(error("[x for in range(3)]"),
            "expression \"[x for in range(3)]\": unexpected keyword 'in' at column 8");
  EXPECT_EQ(error("[x for x range(3)]"),
            "expression \"[x for x range(3)]\": expected 'in' but found name 'range' at column 10");
  EXPECT_EQ(error("1 + )"), "expression \"1 + )\": unexpected ')' at column 5");
  EXPECT_EQ(error("a.b", {"a"}), "expression \"a.b\": unexpected character '.' at column 2");
  EXPECT_EQ(error("99999999999999999999"),
            "expression \"99999999999999999999\": integer 99999999999999999999 is too large "
            "(at most 9223372036854775807) at column 1");
}

TEST(T1Expression, UnknownNamesAndFunctions) {
  EXPECT_EQ(error("block_size_x * bloc_size_y", {"block_size_x", "block_size_y"}),
            "expression \"block_size_x * bloc_size_y\": unknown name 'bloc_size_y' at column 16");
  // A comprehension variable does not leak out of its comprehension.
  EXPECT_EQ(error("[i for i in range(3)] + [i]"),
            "expression \"[i for i in range(3)] + [i]\": unknown name 'i' at column 26");
  EXPECT_EQ(error("sqrt(4)"),
            "expression \"sqrt(4)\": unknown function 'sqrt' (known: range, len, min, max, abs, "
            "int, float, str, list, tuple) at column 1");
}

TEST(T1Expression, EvaluationErrorsPointAtTheOperator) {
  EXPECT_EQ(error("a / b", {"a", "b"}, {Value::integer(1), Value::integer(0)}),
            "expression \"a / b\": division by zero at column 3");
  EXPECT_EQ(error("7 // 0"), "expression \"7 // 0\": division by zero at column 3");
  EXPECT_EQ(error("7 % 0.0"), "expression \"7 % 0.0\": division by zero at column 3");
  EXPECT_EQ(error("0 ** -1"), "expression \"0 ** -1\": division by zero at column 3");
  EXPECT_EQ(error("'a' - 1"),
            "expression \"'a' - 1\": wrong operand types for '-': str and int at column 5");
  EXPECT_EQ(error("1 < 'a'"),
            "expression \"1 < 'a'\": wrong operand types for '<': int and str cannot be ordered at "
            "column 3");
  EXPECT_EQ(error("-'a'"),
            "expression \"-'a'\": wrong operand type for unary '-': str at column 1");
  EXPECT_EQ(error("1 in 2"),
            "expression \"1 in 2\": wrong operand types for 'in': int and int at column 3");
  EXPECT_EQ(error("range(1.5)"),
            "expression \"range(1.5)\": range() takes integers, got float 1.5 at column 1");
  EXPECT_EQ(error("range(1, 2, 3, 4)"),
            "expression \"range(1, 2, 3, 4)\": wrong number of arguments: range() takes 1 to 3, "
            "got 4 at column 1");
  EXPECT_EQ(error("range(1, 5, 0)"),
            "expression \"range(1, 5, 0)\": range() step must not be zero at column 1");
  EXPECT_EQ(error("[x for x in 5]"),
            "expression \"[x for x in 5]\": wrong type: cannot iterate over int 5 at column 4");
  EXPECT_EQ(error("[1, 2][2]"),
            "expression \"[1, 2][2]\": index 2 is out of range for a list of length 2 at column 7");
  EXPECT_EQ(
      error("2 ** 63"),
      "expression \"2 ** 63\": integer overflow (the result does not fit in 64 bits) at column 3");
  EXPECT_EQ(
      error("range(10**9)"),
      "expression \"range(10**9)\": range() would hold more than 1000000 elements at column 1");
  EXPECT_EQ(error("(-8) ** 0.5"),
            "expression \"(-8) ** 0.5\": a negative number raised to a fractional power is not a "
            "real number at column 6");
  EXPECT_EQ(error("len(3)"), "expression \"len(3)\": wrong type: len() of int at column 1");
  EXPECT_EQ(error("int('x1')"),
            "expression \"int('x1')\": int() cannot convert the string 'x1' at column 1");
  EXPECT_EQ(error("min([])"), "expression \"min([])\": min() of an empty list at column 1");
}

// Found while writing the fuzz target (fuzz/corpus/t1_expression/regression-*): an expression
// nested or chained deeply enough overflowed the stack of the recursive parser, evaluator and tree
// destructor, and a repeated list of large lists, or loops that build nothing, got past the size
// limit and ran out of memory or time. Each is now an InputError that says which limit it met.
TEST(T1Expression, DeepOrHugeExpressionsFailCleanly) {
  auto expectError = [](const std::string& text, const std::string& message) {
    const std::string what = error(text);
    EXPECT_NE(what.find(message), std::string::npos) << text.substr(0, 80) << ": " << what;
  };
  const std::string deep(100000, '(');
  expectError(deep + "1" + std::string(100000, ')'),
              "the expression nests more than 200 levels deep at column 201");
  expectError(std::string(100000, '-') + "1", "the expression nests more than 200 levels deep");
  expectError(std::string(100000, '['), "the expression nests more than 200 levels deep");
  std::string nots, powers, sum = "1";
  for (int i = 0; i < 10000; ++i) nots += "not ";
  for (int i = 0; i < 10000; ++i) powers += "2**";
  for (int i = 0; i < 10000; ++i) sum += "+1";
  expectError(nots + "1", "the expression nests more than 200 levels deep");
  expectError(powers + "1", "the expression nests more than 200 levels deep");
  expectError(sum, "the expression is more than 1000 operations deep");
  // Up to the limits, the same shapes evaluate.
  EXPECT_EQ(eval(std::string(150, '(') + "7" + std::string(150, ')')), "7");
  EXPECT_EQ(eval(sum.substr(0, 1 + 2 * 900)), "901");
  // Nested lists count in full, strings by their bytes.
  expectError("[range(1000)] * 100000",
              "the repeated sequence would hold more than 1000000 elements at column 15");
  expectError("[range(600000), range(600000)]",
              "the list would hold more than 1000000 elements at column 1");
  expectError("min(range(600000), range(600000))",
              "the arguments would hold more than 1000000 elements at column 1");
  expectError("[range(600000)] + [range(600000)]",
              "the list would hold more than 1000000 elements at column 17");
  expectError("'ab' * 400000 + 'ab' * 400000",
              "the string would hold more than 1000000 characters at column 15");
  EXPECT_EQ(eval("len([i for i in range(1000000)])"), "1000000");
  // An empty sequence repeated any number of times is empty at once.
  EXPECT_EQ(eval("[] * 9223372036854775807"), "[]");
  EXPECT_EQ(eval("'' * 9223372036854775807"), "''");
  // Loops that build nothing still stop.
  expectError("[0 for i in range(1000000) for j in range(1000000) if 0]",
              "the evaluation takes more than 5000000 steps (values built or read)");
}

}  // namespace
}  // namespace opevo::t1
