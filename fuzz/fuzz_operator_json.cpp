// An operator file (docs/operators.md): read into a definition and its search space, written back
// and read again. A bad file must end in InputError, nothing else.

#include "common/error.h"
#include "fuzz_input.h"
#include "ops/operator_json.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto j = opevo::fuzz::jsonOf(data, size);
  if (!j) return 0;
  try {
    const opevo::OperatorDefinition def = opevo::operatorDefinitionFromJson(*j, "fuzz");
    opevo::operatorDefinitionFromJson(opevo::operatorDefinitionToJson(def), "round trip");
  } catch (const opevo::InputError&) {
  }
  return 0;
}
