// A network file (docs/networks.md): read, its shapes inferred and checked, batch norms folded
// and not. A bad file must end in InputError, nothing else.

#include "common/error.h"
#include "fuzz_input.h"
#include "net/network_json.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto j = opevo::fuzz::jsonOf(data, size);
  if (!j) return 0;
  for (bool fold : {true, false}) {
    try {
      opevo::net::networkFromJson(*j, "fuzz", {}, fold);
    } catch (const opevo::InputError&) {
    }
  }
  return 0;
}
