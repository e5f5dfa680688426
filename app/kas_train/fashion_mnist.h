#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kas/training_limits.h"

namespace opevo::kastrain {

using kas::kFashionMnistDir;

// One split of Fashion-MNIST: `count` grey rows x cols images, row-major bytes, one label each.
struct ImageSet {
  std::int64_t count = 0, rows = 0, cols = 0;
  std::vector<std::uint8_t> pixels;
  std::vector<std::uint8_t> labels;
};

// DIR/{train,t10k}-images-idx3-ubyte.gz and the matching labels. Throws InputError naming the
// file at fault (and, when one is missing, the Debian package that installs them).
ImageSet loadFashionMnist(const std::string& dir, bool train);

}  // namespace opevo::kastrain
