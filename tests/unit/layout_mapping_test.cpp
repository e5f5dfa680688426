// sameMapping (core/layout/layout.h) against the ground truth: every element's offset.

#include <gtest/gtest.h>

#include <vector>

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
  read.inC = 16, read.outH = 14;
  EXPECT_FALSE(sameMapping(out, conv2dLayouts(reader, read).a));
  // A 3x3 convolution's input holds its padding: never its producer's output.
  Conv2DBlocking three = read;
  three.outH = 7;
  EXPECT_FALSE(sameMapping(out, conv2dLayouts(producer, three).a));
}

}  // namespace
}  // namespace opevo::layout
