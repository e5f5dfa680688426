#pragma once

// What a picture of a layout shows: one plane of the logical tensor (two of its dims, the others
// at 0), each element's home offset in memory and the tile it belongs to. No drawing here: the
// window's layout view paints it, tests check it.

#include <cstdint>
#include <string>
#include <vector>

#include "layout/layout.h"

namespace opevo::layout {

struct LayoutPicture {
  std::string rowDim, colDim;                 // the logical dims drawn
  std::int64_t rowExtent = 0, colExtent = 0;  // their whole extents
  std::int64_t rows = 0, cols = 0;            // the cells drawn (at most the limit asked for)
  // Per cell, row-major: the element's home offset, -1 for an element in no tile (an unfold that
  // leaves a remainder), and the ordinal of its tile in order of first appearance (row-major),
  // -1 likewise. A tile is one combination of the outer dims that splits and unfolds made.
  std::vector<std::int64_t> offset;
  std::vector<int> tile;
  int tiles = 0;  // distinct tiles among the cells drawn
};

// Throws InputError when rowDim or colDim is not a logical dim of l, or they are the same dim.
LayoutPicture layoutPicture(const Layout& l, const std::string& rowDim, const std::string& colDim,
                            std::int64_t maxCells = 48);

}  // namespace opevo::layout
