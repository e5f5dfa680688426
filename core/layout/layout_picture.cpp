#include "layout/layout_picture.h"

#include <algorithm>
#include <map>

#include "common/error.h"

namespace opevo::layout {
namespace {

std::size_t logicalIndexOf(const Layout& l, const std::string& name) {
  for (std::size_t i = 0; i < l.logical().size(); ++i)
    if (l.logical()[i].name == name) return i;
  std::string known;
  for (const Dim& d : l.logical()) known += (known.empty() ? "" : ", ") + d.name;
  throw InputError("layout picture: no logical dim '" + name + "' (the dims are " + known + ")");
}

bool outerDim(const std::string& name) {
  return name.size() > 2 && name.compare(name.size() - 2, 2, "_o") == 0;
}

}  // namespace

LayoutPicture layoutPicture(const Layout& l, const std::string& rowDim, const std::string& colDim,
                            std::int64_t maxCells) {
  const std::size_t r = logicalIndexOf(l, rowDim), c = logicalIndexOf(l, colDim);
  if (r == c)
    throw InputError("layout picture: rows and columns are the same dim '" + rowDim + "'");
  LayoutPicture p;
  p.rowDim = rowDim;
  p.colDim = colDim;
  p.rowExtent = l.logical()[r].extent;
  p.colExtent = l.logical()[c].extent;
  p.rows = std::min(p.rowExtent, std::max<std::int64_t>(1, maxCells));
  p.cols = std::min(p.colExtent, std::max<std::int64_t>(1, maxCells));
  const std::vector<std::int64_t> strides = l.strides();
  const std::vector<Dim>& physical = l.physical();
  std::map<std::vector<std::int64_t>, int> tiles;
  std::vector<std::int64_t> index(l.logical().size(), 0), outer;
  for (std::int64_t y = 0; y < p.rows; ++y)
    for (std::int64_t x = 0; x < p.cols; ++x) {
      index[r] = y;
      index[c] = x;
      const std::int64_t at = l.offset(index);
      p.offset.push_back(at);
      if (at < 0) {
        p.tile.push_back(-1);
        continue;
      }
      // The home position's index along every physical dim; the outer ones name its tile.
      outer.clear();
      for (std::size_t k = 0; k < physical.size(); ++k)
        if (outerDim(physical[k].name)) outer.push_back((at / strides[k]) % physical[k].extent);
      const auto [it, added] = tiles.try_emplace(outer, static_cast<int>(tiles.size()));
      p.tile.push_back(it->second);
    }
  p.tiles = static_cast<int>(tiles.size());
  return p;
}

}  // namespace opevo::layout
