// A T1 search-space file (docs: resources/datasets/README.md), plain or gzip-compressed: written
// to a file, imported (every Values expression evaluated, every Condition compiled into a
// constraint) and, when the space has at most 32 points, its valid configurations counted, which
// evaluates every condition for each of them, and where none is valid the reason `opevo t1` gives
// worked out. A bad file, or a condition that fails for some values, must end in InputError,
// nothing else.

#include "common/error.h"
#include "fuzz_input.h"
#include "io/t1_space.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = opevo::fuzz::writeTemp("t1.json", data, size);
  try {
    const opevo::T1Space t1 = opevo::importT1(path);
    if (opevo::countValidConfigs(t1.space, 32) == 0u) opevo::explainNoValidConfig(t1, 32);
  } catch (const opevo::InputError&) {
  }
  return 0;
}
