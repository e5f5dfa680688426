// A T1 expression (core/io/t1_expression.h), as the Values and Conditions of a T1 file hold
// them: parsed with the variables x, y, s and b, then evaluated with two of four bindings of them
// (the first always, another chosen by the input's length; they hold integers at the edges of 64
// bits, floats, strings, booleans and lists) and its value printed. A bad expression, or one that
// fails for some values (a division by zero, an overflow, a list too large, too many steps), must
// end in InputError, nothing else.

#include <cstdint>
#include <limits>
#include <vector>

#include "common/error.h"
#include "io/t1_expression.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using opevo::t1::Value;
  static const std::vector<std::vector<Value>> kBindings = {
      {Value::integer(16), Value::real(0.5), Value::string("row"), Value::boolean(true)},
      {Value::integer(0), Value::real(-1.0), Value::string(""), Value::boolean(false)},
      {Value::integer(std::numeric_limits<std::int64_t>::min()), Value::real(1e308),
       Value::string("a\xc3\xa9z"),
       Value::list({Value::integer(1), Value::integer(2), Value::integer(4)})},
      {Value::integer(std::numeric_limits<std::int64_t>::max()), Value::integer(-1),
       Value::list({}), Value::real(0.0)},
  };
  try {
    const opevo::t1::Expression e(std::string(reinterpret_cast<const char*>(data), size),
                                  {"x", "y", "s", "b"});
    // Two evaluations, not four: one that reaches the step limit takes about a second here.
    for (const std::vector<Value>* binding : {&kBindings[0], &kBindings[1 + size % 3]}) {
      try {
        const Value v = e.evaluate(*binding);
        v.repr();
        v.truthy();
      } catch (const opevo::InputError&) {
      }
    }
  } catch (const opevo::InputError&) {
  }
  return 0;
}
