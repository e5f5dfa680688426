#pragma once

#include <optional>
#include <string>

// How a reference library's description reads, written where the library is timed and read
// back where a run is drawn: the description is what the store, the T4 files and the worker's
// replies keep, so the words are the one record of how the library's algorithm was chosen.
namespace opevo {

// Where the library's fastest algorithm does fewer multiply-adds than the operator counts
// (cuDNN's FFT or Winograd, whose "speed" can pass the GPU's peak), the fastest one doing every
// multiply-add: the mark a direct kernel's template can aim at. `slowerBy` is how many times
// slower the library timed it than its fastest; `name` is "algorithm 1 (implicit precomputed
// GEMM)".
struct EveryMultiplyAdd {
  double slowerBy = 1;
  std::string name;
};

// ", which timed it 5.14x faster than algorithm 1 (implicit precomputed GEMM), the fastest doing
// every multiply-add": the words a description carries for it.
std::string everyMultiplyAddWords(const EveryMultiplyAdd& direct);
// Those words read back from a whole description; nothing where it has none (a GEMM library, an
// algorithm that does every multiply-add, a description written before the words existed).
std::optional<EveryMultiplyAdd> everyMultiplyAddIn(const std::string& description);

// The description without the words on how its algorithm was chosen (", the fastest of 6 by
// cudnnFind, ...", ", the heuristic's first: ..."): "cuDNN convolution forward, algorithm 4 (FFT)
// (libcudnn.so.9)", with what follows the library's file kept (" + epilogue kernel"). Those
// words begin with ", the " and end at the file's " (lib"; a description without them is
// returned whole.
std::string withoutHowChosen(const std::string& description);

}  // namespace opevo
