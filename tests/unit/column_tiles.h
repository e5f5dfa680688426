#pragma once

// A Conv2D layout configuration whose output tiles split the columns: layout.out_w in `tiles`
// tiles, and the register tile's columns (tile_x) the largest that still divides one. Such a
// producer no longer writes whole rows, so a depthwise reader on its channel blocks has its input
// converted (copying whole blocks) rather than read as it is.

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>

#include "space/search_space.h"

namespace opevo::test {

inline Config withColumnTiles(const SearchSpace& space, Config c, std::int64_t tiles) {
  const auto at = [&](const char* name) { return std::size_t(space.indexOf(name)); };
  const std::int64_t width = c[at("layout.out_w")][0] * c[at("layout.out_w")][1];
  const std::int64_t reg = std::gcd(c[at("tile_x")][1], width / tiles);
  c[at("layout.out_w")] = {tiles, width / tiles};
  c[at("tile_x")] = {width / reg, reg};
  EXPECT_TRUE(space.satisfies(c)) << space.format(c);
  return c;
}

}  // namespace opevo::test
