// A measured dataset (resources/datasets/README.md): a Kernel Tuner cache or a T4 results file,
// plain or gzip-compressed, written to a file and loaded through loadReplayDataset (the format
// detected from the content, an unterminated cache repaired), then its points and best
// configuration formatted as the CLI prints them. A bad file must end in InputError, nothing else.

#include "common/error.h"
#include "fuzz_input.h"
#include "io/replay_dataset.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = opevo::fuzz::writeTemp("dataset.json", data, size);
  try {
    const opevo::ReplayDataset ds = opevo::loadReplayDataset(path);
    ds.failedCount();
    if (!ds.bestConfig.empty()) ds.space.format(ds.bestConfig);
    for (const opevo::Config& c : *ds.space.explicitPoints())
      if (!ds.space.satisfies(c) || !ds.table.count(c)) __builtin_trap();
  } catch (const opevo::InputError&) {
  }
  return 0;
}
