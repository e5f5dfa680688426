#pragma once

// The pieces of generateKasGpuKernel's text that address tensors and spread work over a block's
// threads (kas_gpu_codegen.cpp).

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "codegen/code_writer.h"
#include "kas/kas_gpu_layout.h"

namespace opevo::kas::detail {

// A grid of lanes: (index name, extent), outermost first.
using KasAxes = std::vector<std::pair<std::string, std::int64_t>>;

// A kernel's tensors: where each node's region lies and how its elements are addressed.
class KasGpuTensors {
 public:
  explicit KasGpuTensors(const KasGpuLayout& layout) : m_layout(layout) {}

  const KasRegions& regions() const { return m_layout.regions; }
  const FlatShape& shape(std::size_t i) const { return regions().nodes[i].shape; }
  std::int64_t height() const { return regions().height; }
  std::int64_t width() const { return regions().width; }
  std::size_t root(std::size_t i) const {
    return static_cast<std::size_t>(regions().nodes[i].root);
  }
  KasArena arena(std::size_t i) const { return m_layout.buffers[root(i)].arena; }

  // Image coordinate of the first row (column) of node i's region: "0" where it is the whole
  // image or the node has no such dim, else the tile's corner (ty, tx) moved by the reach.
  std::string originY(std::size_t i) const;
  std::string originX(std::size_t i) const;
  // Whether node i's region may reach past the image's edge (at the image's border tiles).
  bool beyondY(std::size_t i) const;
  bool beyondX(std::size_t i) const;

  // Rows, columns and channel stride of the storage node i's elements are in.
  std::int64_t storageRows(std::size_t i) const;
  std::int64_t storageCols(std::size_t i) const;
  std::int64_t channelStride(std::size_t i) const { return storageRows(i) * storageCols(i); }

  // Element (c, y, x) of node k, y and x in image coordinates (ignored along a dim it lacks):
  // input/output, or buffer bR indexed from its region's origin ybR, xbR.
  std::string at(std::size_t k, const std::string& c, const std::string& y,
                 const std::string& x) const;

 private:
  bool global(std::size_t i) const {
    return arena(i) == KasArena::Input || arena(i) == KasArena::Output;
  }

  const KasGpuLayout& m_layout;
};

// Spreads the points of a grid over the block's threads (tid, `threads` apart), one point per
// iteration, and names each axis' index. Extents are constants, so the divisions are cheap.
void openLanes(codegen::CodeWriter& w, const KasAxes& axes, std::int64_t threads);

// Image coordinates y (from yy) and x (from xx) of a lane in node i's region, and leaving the
// lane where they fall outside the image.
void openPixel(codegen::CodeWriter& w, const KasGpuTensors& t, std::size_t i, bool withY,
               bool withX);

// The lanes over node i's region: `channels` named `channel`, then its rows (yy) and columns (xx)
// where it has them.
KasAxes regionAxes(const KasGpuTensors& t, std::size_t i, const std::string& channel,
                   std::int64_t channels);

// Lanes over every element of node i's region, with their pixel.
void openRegion(codegen::CodeWriter& w, const KasGpuTensors& t, std::size_t i, std::int64_t threads,
                const std::string& channel = "c");

}  // namespace opevo::kas::detail
