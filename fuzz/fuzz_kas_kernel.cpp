// A Canvas kernel file: read, type-checked, written back and read again, its sizes solved for
// ResNet-18-like targets. A bad file must end in InputError, nothing else.

#include "common/error.h"
#include "fuzz_input.h"
#include "kas/budget_solver.h"
#include "kas/kas_json.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto j = opevo::fuzz::jsonOf(data, size);
  if (!j) return 0;
  try {
    const opevo::kas::MicroDag dag = opevo::kas::kernelFromJson(*j, "fuzz");
    const opevo::kas::MicroDag again =
        opevo::kas::kernelFromJson(opevo::kas::kernelToJson(dag), "round trip");
    if (again.canonicalHash() != dag.canonicalHash()) __builtin_trap();
    opevo::kas::ConvTarget t;
    t.name = "t";
    t.channels = 64;
    t.height = t.width = 14;
    for (std::int64_t g : {1, 2, 4}) opevo::kas::solveBudget(dag, {t}, g, {});
  } catch (const opevo::InputError&) {
  }
  return 0;
}
