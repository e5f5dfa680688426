#include "kas/training_limits.h"

#include <filesystem>

#include "common/error.h"

namespace opevo::kas {

void checkFashionMnistFolder(const std::string& dir) {
  const std::string folder = dir.empty() ? kFashionMnistDir : dir;
  for (const char* name : {"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
                           "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"}) {
    const std::string path = folder + "/" + name;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
      throw InputError(path +
                       ": not found (Fashion-MNIST comes with the Debian package "
                       "dataset-fashion-mnist; or pass --data DIR holding the four .gz files)");
  }
}

}  // namespace opevo::kas
