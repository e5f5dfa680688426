#include "kas_train/fashion_mnist.h"

#include <zlib.h>

#include <memory>

#include "common/error.h"
#include "kas/training_limits.h"

namespace opevo::kastrain {
namespace {

// A whole gzip file (also reads an uncompressed one, as gzread passes those through).
std::vector<std::uint8_t> readGzip(const std::string& path) {
  std::unique_ptr<gzFile_s, int (*)(gzFile)> file(gzopen(path.c_str(), "rb"), gzclose);
  if (!file) throw InputError(path + ": cannot open");
  std::vector<std::uint8_t> out;
  std::vector<std::uint8_t> chunk(1 << 20);
  for (;;) {
    const int n = gzread(file.get(), chunk.data(), static_cast<unsigned>(chunk.size()));
    if (n < 0) throw InputError(path + ": not a readable gzip file");
    if (n == 0) break;
    out.insert(out.end(), chunk.begin(), chunk.begin() + n);
  }
  return out;
}

std::int64_t bigEndian(const std::vector<std::uint8_t>& bytes, std::size_t at) {
  std::int64_t v = 0;
  for (std::size_t k = 0; k < 4; ++k) v = (v << 8) | bytes[at + k];
  return v;
}

// IDX header: magic 0x0000 08 DIMS (unsigned bytes), then DIMS big-endian sizes.
std::vector<std::int64_t> idxDims(const std::vector<std::uint8_t>& bytes, int dims,
                                  const std::string& path) {
  const auto header = static_cast<std::size_t>(4 + 4 * dims);
  if (bytes.size() < header || bigEndian(bytes, 0) != 0x800 + dims)
    throw InputError(path + ": not an IDX file of unsigned bytes with " + std::to_string(dims) +
                     " dim(s)");
  std::vector<std::int64_t> out;
  std::int64_t total = 1;
  for (int k = 0; k < dims; ++k) {
    out.push_back(bigEndian(bytes, static_cast<std::size_t>(4 + 4 * k)));
    total *= out.back();
  }
  if (bytes.size() != header + static_cast<std::size_t>(total))
    throw InputError(path + ": truncated (the header promises " + std::to_string(total) +
                     " bytes of data)");
  return out;
}

}  // namespace

ImageSet loadFashionMnist(const std::string& dir, bool train) {
  // A missing file is named as opevo names it before it starts this program.
  kas::checkFashionMnistFolder(dir);
  const std::string prefix = dir + "/" + (train ? "train" : "t10k");
  const std::string imagesPath = prefix + "-images-idx3-ubyte.gz";
  const std::string labelsPath = prefix + "-labels-idx1-ubyte.gz";
  std::vector<std::uint8_t> images = readGzip(imagesPath);
  std::vector<std::uint8_t> labels = readGzip(labelsPath);
  const auto imageDims = idxDims(images, 3, imagesPath);
  const auto labelDims = idxDims(labels, 1, labelsPath);
  if (imageDims[0] != labelDims[0])
    throw InputError(labelsPath + ": " + std::to_string(labelDims[0]) + " labels for " +
                     std::to_string(imageDims[0]) + " images");
  ImageSet set;
  set.count = imageDims[0];
  set.rows = imageDims[1];
  set.cols = imageDims[2];
  set.pixels.assign(images.begin() + 16, images.end());
  set.labels.assign(labels.begin() + 8, labels.end());
  for (std::uint8_t l : set.labels)
    if (l > 9) throw InputError(labelsPath + ": label " + std::to_string(l) + " is not 0..9");
  return set;
}

}  // namespace opevo::kastrain
