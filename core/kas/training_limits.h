#pragma once

#include <string>

namespace opevo::kas {

// What opevo-kas-train accepts, in one place: its own options are checked against these, and
// `opevo kas train` and `opevo kas search` check theirs against the same figures before they start
// anything, instead of learning of a bad --batch from the child's exit status after a search was
// stored and its baseline trained.
struct TrainingLimits {
  static constexpr int maxEpochs = 1000;
  static constexpr int maxTrainImages = 60000;  // Fashion-MNIST's training split
  static constexpr int maxTestImages = 10000;   // its test split
  static constexpr int maxBatch = 4096;
  static constexpr int maxThreads = 1024;
};

// Where Debian's dataset-fashion-mnist package puts the gzipped IDX files.
inline constexpr const char* kFashionMnistDir = "/usr/share/datasets/fashion-mnist";

// Throws InputError naming the first of DIR's four Fashion-MNIST files that is missing (and the
// Debian package that installs them); "" is kFashionMnistDir. Only that they are there: the
// training program reads and checks their contents.
void checkFashionMnistFolder(const std::string& dir);

}  // namespace opevo::kas
