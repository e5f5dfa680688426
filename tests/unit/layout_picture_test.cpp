// The data behind the window's layout view: each element's home offset and tile in one plane.

#include "layout/layout_picture.h"

#include <gtest/gtest.h>

#include <set>

#include "common/error.h"

namespace opevo::layout {
namespace {

TEST(LayoutPicture, ABlockedPlaneShowsItsTilesAndTheirOrderInMemory) {
  Layout l({{"c", 8}, {"h", 6}, {"w", 4}});
  l.split("h", 3).split("w", 2).reorder({"h_o", "w_o", "c", "h_i", "w_i"});
  const LayoutPicture p = layoutPicture(l, "h", "w");
  EXPECT_EQ(p.rows, 6);
  EXPECT_EQ(p.cols, 4);
  ASSERT_EQ(p.offset.size(), 24u);
  // 2 x 2 tiles of 3 x 2 elements, numbered as they first appear row by row.
  EXPECT_EQ(p.tiles, 4);
  EXPECT_EQ(p.tile[0], 0);                  // (0, 0)
  EXPECT_EQ(p.tile[2], 1);                  // (0, 2): the second column block
  EXPECT_EQ(p.tile[3 * 4 + 0], 2);          // (3, 0): the second row block
  EXPECT_EQ(p.tile[5 * 4 + 3], 3);          // (5, 3)
  EXPECT_EQ(p.tile[1 * 4 + 1], p.tile[0]);  // (1, 1) shares (0, 0)'s tile
  // Offsets are the layout's own: inside a tile, w_i is contiguous and h_i strides by 2.
  for (std::int64_t y = 0; y < 6; ++y)
    for (std::int64_t x = 0; x < 4; ++x) {
      const std::vector<std::int64_t> index{0, y, x};
      EXPECT_EQ(p.offset[std::size_t(y * 4 + x)], l.offset(index));
    }
  EXPECT_EQ(p.offset[1] - p.offset[0], 1);
  EXPECT_EQ(p.offset[4] - p.offset[0], 2);
  // The second column block starts after the whole first tile of every channel.
  EXPECT_EQ(p.offset[2], 8 * 3 * 2);
}

TEST(LayoutPicture, APlainLayoutIsOneTileAndALimitCutsTheDrawing) {
  const Layout l({{"n", 1}, {"c", 3}, {"h", 100}, {"w", 70}});
  const LayoutPicture p = layoutPicture(l, "h", "w", 48);
  EXPECT_EQ(p.rows, 48);
  EXPECT_EQ(p.cols, 48);
  EXPECT_EQ(p.rowExtent, 100);
  EXPECT_EQ(p.colExtent, 70);
  EXPECT_EQ(p.tiles, 1);
  EXPECT_EQ(p.offset[1], 1);
  EXPECT_EQ(p.offset[48], 70);  // the next row of the plain tensor
}

TEST(LayoutPicture, OverlappingWindowsPutEachElementInItsHomeTile) {
  Layout l({{"h", 10}, {"w", 5}});
  l.unfold("h", 4, 3);  // windows [0,4), [3,7), [6,10): rows 3 and 6 are stored twice
  const LayoutPicture p = layoutPicture(l, "h", "w");
  EXPECT_EQ(p.tiles, 3);
  std::set<int> firstColumn;
  for (std::int64_t y = 0; y < 10; ++y) firstColumn.insert(p.tile[std::size_t(y * 5)]);
  EXPECT_EQ(firstColumn, (std::set<int>{0, 1, 2}));
  // Home of a shared row is the window with the smallest index.
  EXPECT_EQ(p.tile[3 * 5], 0);
  EXPECT_EQ(p.tile[4 * 5], 1);
}

TEST(LayoutPicture, UnknownOrRepeatedDimsAreNamed) {
  const Layout l({{"h", 4}, {"w", 4}});
  try {
    layoutPicture(l, "h", "c");
    FAIL() << "an unknown dim was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'c'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("h, w"), std::string::npos) << e.what();
  }
  EXPECT_THROW(layoutPicture(l, "w", "w"), InputError);
}

}  // namespace
}  // namespace opevo::layout
