#pragma once

// A Conv2D layout configuration whose output tiles split the columns: layout.out_w in `tiles`
// tiles, and the register tile's columns (tile_x) the largest that still divides one. Where its
// tiles hold more than one row, such a producer no longer lays its rows out as the image does, so
// a depthwise reader on its channel blocks has its input converted (copying whole blocks) rather
// than read as it is: the configuration must have row tiles of more than one row.

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>

#include "space/search_space.h"

namespace opevo::test {

inline Config withColumnTiles(const SearchSpace& space, Config c, std::int64_t tiles) {
  const auto at = [&](const char* name) { return std::size_t(space.indexOf(name)); };
  const std::int64_t width = c[at("layout.out_w")][0] * c[at("layout.out_w")][1];
  EXPECT_GT(c[at("layout.out_h")][1], 1) << space.format(c);
  const std::int64_t reg = std::gcd(c[at("tile_x")][1], width / tiles);
  c[at("layout.out_w")] = {tiles, width / tiles};
  c[at("tile_x")] = {width / reg, reg};
  EXPECT_TRUE(space.satisfies(c)) << space.format(c);
  return c;
}

}  // namespace opevo::test
