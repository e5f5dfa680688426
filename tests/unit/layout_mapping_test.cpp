// sameMapping (core/layout/layout.h) against the ground truth: every element's offset.

#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include "common/rng.h"
#include "layout/conv2d_layout.h"
#include "layout/layout.h"

namespace opevo::layout {
namespace {

// Same buffer size, every logical element at the same offset.
bool sameOffsets(const Layout& a, const Layout& b) {
  if (a.size() != b.size() || a.logicalSize() != b.logicalSize()) return false;
  std::vector<std::int64_t> at(a.logical().size(), 0);
  for (std::int64_t e = 0; e < a.logicalSize(); ++e) {
    std::int64_t rest = e;
    for (std::size_t d = at.size(); d-- > 0;) {
      at[d] = rest % a.logical()[d].extent;
      rest /= a.logical()[d].extent;
    }
    if (a.offset(at) != b.offset(at)) return false;
  }
  return true;
}

TEST(LayoutMapping, SplitsWrittenInAnyOrderAreOneMapping) {
  Layout a({{"x", 8}, {"y", 12}}), b({{"u", 8}, {"v", 12}});
  a.split("x", 2).split("y", 4).reorder({"x_o", "y_o", "x_i", "y_i"});
  b.split("v", 4).split("u", 2).reorder({"u_o", "v_o", "u_i", "v_i"});
  EXPECT_FALSE(a == b);
  EXPECT_TRUE(sameMapping(a, b));
  EXPECT_TRUE(sameOffsets(a, b));
  Layout c({{"x", 8}, {"y", 12}});
  c.split("x", 2).split("y", 4).reorder({"y_o", "x_o", "x_i", "y_i"});  // another order
  EXPECT_FALSE(sameMapping(a, c));
  EXPECT_FALSE(sameOffsets(a, c));
  Layout d({{"x", 8}, {"y", 12}});
  d.split("x", 4).split("y", 4).reorder({"x_o", "y_o", "x_i", "y_i"});  // another tile
  EXPECT_FALSE(sameMapping(a, d));
  Layout e({{"x", 8}, {"y", 6}});  // other extents
  e.split("x", 2).split("y", 3).reorder({"x_o", "y_o", "x_i", "y_i"});
  EXPECT_FALSE(sameMapping(a, e));
}

TEST(LayoutMapping, PaddingAndOverlappingWindowsAreNotSplits) {
  Layout plain({{"x", 12}}), windows({{"x", 12}}), padded({{"x", 12}}), unfolded({{"x", 12}});
  plain.split("x", 4);
  windows.unfold("x", 4, 4);  // windows as wide as their stride: a split
  padded.pad("x", 0, 4).unfold("x", 8, 8);
  unfolded.unfold("x", 6, 3);
  EXPECT_TRUE(sameMapping(plain, windows));
  EXPECT_TRUE(sameOffsets(plain, windows));
  EXPECT_FALSE(sameMapping(plain, padded));
  EXPECT_FALSE(sameMapping(plain, unfolded));
  Layout paddedToo({{"y", 12}});
  paddedToo.pad("y", 0, 4).split("y", 8);
  EXPECT_TRUE(sameMapping(padded, paddedToo));
}

// A split whose parts stay side by side, or whose outer part has one element, moves nothing.
TEST(LayoutMapping, SplitsThatMoveNothingAreNoSplits) {
  Layout plain({{"x", 8}, {"y", 12}});
  Layout adjacent({{"x", 8}, {"y", 12}}), whole({{"x", 8}, {"y", 12}}),
      nested({{"x", 8}, {"y", 12}}), apart({{"x", 8}, {"y", 12}});
  adjacent.split("y", 4).reorder({"x", "y_o", "y_i"});
  whole.split("x", 8).reorder({"x_o", "y", "x_i"}).reorder({"x_i", "x_o", "y"});
  nested.split("y", 6).split("y_i", 3).reorder({"x", "y_o", "y_i_o", "y_i_i"});
  apart.split("y", 4).reorder({"y_o", "x", "y_i"});
  for (const Layout* same : {&adjacent, &whole, &nested}) {
    EXPECT_TRUE(sameMapping(plain, *same)) << same->describe();
    EXPECT_TRUE(sameOffsets(plain, *same)) << same->describe();
  }
  EXPECT_FALSE(sameMapping(plain, apart));
  EXPECT_FALSE(sameOffsets(plain, apart));
}

// Random splits and orders of one small tensor: sameMapping says two layouts are one only where
// every element's offset agrees, and says so for most such pairs written differently (it misses
// some whose splits nest otherwise: y split by 2, then its outer part by 3, is y split by 6,
// then its inner part by 2; a missed pair costs a conversion, a wrong one would lose data).
TEST(LayoutMapping, RandomSplitsAgreeWithTheOffsets) {
  const std::vector<Dim> logical{{"x", 4}, {"y", 6}, {"z", 1}};
  Rng rng(5);
  auto random = [&] {
    Layout l(logical);
    for (int k = 0; k < 3; ++k) {
      const std::vector<Dim>& dims = l.physical();
      const Dim d = dims[rng.below(dims.size())];
      std::vector<std::int64_t> divisors;
      for (std::int64_t f = 1; f <= d.extent; ++f)
        if (d.extent % f == 0) divisors.push_back(f);
      l.split(d.name, divisors[rng.below(divisors.size())]);
    }
    std::vector<std::string> order;
    for (const Dim& d : l.physical()) order.push_back(d.name);
    for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);
    return l.reorder(order);
  };
  int same = 0, found = 0;
  for (int k = 0; k < 3000; ++k) {
    const Layout a = random(), b = random();
    const bool offsets = sameOffsets(a, b), mapping = sameMapping(a, b);
    ASSERT_TRUE(offsets || !mapping) << a.describe() << " / " << b.describe();
    if (!offsets || a == b) continue;
    ++same;
    found += mapping;
  }
  std::printf("sameMapping found %d of %d pairs written differently with the same offsets\n", found,
              same);
  EXPECT_GT(found * 4, same * 3);
}

// A ResNet-50 bottleneck: the 3x3 convolution's output read by the 1x1 convolution after it.
TEST(LayoutMapping, AOneByOneConvolutionReadsItsProducersOutputAsItIs) {
  OperatorSpec producer;
  producer.kind = OpKind::Conv2D;
  producer.inChannels = 64, producer.height = producer.width = 28;
  producer.outChannels = 64, producer.kernelH = producer.kernelW = 3, producer.pad = 1;
  OperatorSpec reader = producer;
  reader.outChannels = 256, reader.kernelH = reader.kernelW = 1, reader.pad = 0;
  Conv2DBlocking written, read;
  written.outC = 16, written.outH = 7, written.outW = 28;
  read.inC = 16, read.outH = 7, read.outW = 28, read.outC = 32;
  const Layout out = conv2dLayouts(producer, written).c, in = conv2dLayouts(reader, read).a;
  EXPECT_TRUE(sameMapping(out, in));
  EXPECT_TRUE(sameOffsets(out, in));
  read.inC = 32;
  EXPECT_FALSE(sameMapping(out, conv2dLayouts(reader, read).a));
  // Tiles of whole rows: any split of the rows puts every element where the image with blocked
  // channels has it. Once the columns are split too, the row tiles count.
  read.inC = 16, read.outH = 14;
  EXPECT_TRUE(sameMapping(out, conv2dLayouts(reader, read).a));
  EXPECT_TRUE(sameOffsets(out, conv2dLayouts(reader, read).a));
  written.outW = read.outW = 14;
  const Layout split = conv2dLayouts(producer, written).c;
  EXPECT_FALSE(sameMapping(split, conv2dLayouts(reader, read).a));
  EXPECT_FALSE(sameOffsets(split, conv2dLayouts(reader, read).a));
  read.outH = 7;
  EXPECT_TRUE(sameMapping(split, conv2dLayouts(reader, read).a));
  // A 3x3 convolution's input holds its padding: never its producer's output.
  Conv2DBlocking three = read;
  three.outH = 7;
  EXPECT_FALSE(sameMapping(out, conv2dLayouts(producer, three).a));
}

}  // namespace
}  // namespace opevo::layout
