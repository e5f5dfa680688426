#pragma once

#include <cstdint>
#include <vector>

#include "kas/interpreter.h"
#include "kas/micro_dag.h"

namespace opevo::kas {

// The part of a tensor one image tile needs along one image dim: [tile start + lo, tile end + hi),
// or all of it (full). Shared by the CPU and GPU generators, which fuse a kernel the same way.
struct Reach {
  bool set = false, full = false;
  std::int64_t lo = 0, hi = 0;
  void widen(const Reach& r);
  Reach shifted(std::int64_t a, std::int64_t b) const;
};

struct NodeRegion {
  FlatShape shape;
  Reach h, w;
  int root = 0;  // the node whose buffer holds its elements (itself unless a view)
};

// Every node's region for tiles of tileH x tileW pixels, found from the output (one tile) back to
// the input: an unfold or shift widens what its source must hold by its reach, a fold or softmax
// along an image dim needs all of it. Views (group, group_each) take their source's region, since
// they share its buffer.
struct KasRegions {
  std::vector<NodeRegion> nodes;
  std::int64_t height = 1, width = 1, tileH = 1, tileW = 1;

  // Extent of node i's buffer: the whole image for the input and along a full reach, else the
  // tile widened by the reach; 1 along a dim the tensor lacks. Unclamped: at the image border
  // part of it lies outside the image and is never read.
  std::int64_t rows(std::size_t i) const;
  std::int64_t cols(std::size_t i) const;
};
KasRegions kasRegions(const MicroDag& dag, const std::vector<std::vector<std::int64_t>>& dims,
                      std::int64_t tileH, std::int64_t tileW);

bool isView(PrimitiveKind kind);

// Which dim a primitive that takes one acts on, as a role of its (first) input.
enum class Along { None, Channel, Height, Width };
Along along(const MicroDag& dag, std::size_t node);

}  // namespace opevo::kas
