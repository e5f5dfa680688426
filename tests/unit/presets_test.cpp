#include "ops/presets.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace opevo {
namespace {

TEST(Presets, MM1SizeMatchesThePaper) {
  const SearchSpace space = defaultSpace(preset("MM1"));
  ASSERT_EQ(space.dims(), 3u);
  EXPECT_EQ(space.param(space.indexOf("tile_k")).size().as64(), 66u);
  EXPECT_EQ(space.param(space.indexOf("tile_n")).size().as64(), 220u);
  EXPECT_EQ(space.param(space.indexOf("tile_m")).size().as64(), 286u);
  EXPECT_EQ(space.size().as64(), 66u * 220u * 286u);
}

TEST(Presets, EveryPresetHasItsSpace) {
  for (const std::string& name : presetNames()) {
    const OperatorSpec op = preset(name);
    const SearchSpace space = defaultSpace(op);
    EXPECT_GT(op.flops(), 0) << name;
    const std::size_t dims = op.kind == OpKind::Conv2D ? 8 : op.kind == OpKind::BatchMatMul ? 4 : 3;
    EXPECT_EQ(space.dims(), dims) << name;
    Rng rng(1);
    const auto c = space.randomValid(rng);
    ASSERT_TRUE(c.has_value()) << name;
    EXPECT_TRUE(space.contains(*c));
    EXPECT_LE(threadsPerBlock(op, space, *c), 1024);
    EXPECT_EQ(space.parse(space.format(*c)), *c) << name;
  }
}

TEST(Presets, GpuSpacesSplitK) {
  const SearchSpace space = defaultSpace(preset("MM1"), SpaceTarget::Gpu);
  ASSERT_EQ(space.dims(), 5u);
  EXPECT_EQ(space.param(3).name(), "split_k");
  EXPECT_EQ(space.param(3).spec(), "discrete:1,2,4,8,16");
  EXPECT_EQ(space.param(4).spec(), "discrete:1,2");
  // A configuration stored before these parameters existed reads as split_k 1, stages 1.
  const Config old = space.parse("tile_n=8,1,8,8; tile_m=8,2,8,8; tile_k=64,4,4");
  EXPECT_EQ(space.format(old),
            "tile_n=8,1,8,8; tile_m=8,2,8,8; tile_k=64,4,4; split_k=1; stages=1");
  // Double buffering fetches (16 * 128 + 16 * 128) / 64 = 64 floats per thread here: allowed;
  // twice as deep a stage is not.
  EXPECT_TRUE(space.satisfies(
      space.parse("tile_n=8,1,8,8; tile_m=8,2,8,8; tile_k=64,4,4; split_k=1; stages=2")));
  std::string broken;
  EXPECT_FALSE(space.satisfies(
      space.parse("tile_n=8,1,8,8; tile_m=8,2,8,8; tile_k=32,8,4; split_k=1; stages=2"), &broken));
  EXPECT_EQ(broken, "a double-buffered stage fetches at most 64 floats per thread");
  EXPECT_TRUE(
      space.satisfies(space.parse("tile_n=8,1,8,8; tile_m=8,2,8,8; tile_k=64,4,4; split_k=16")));
  EXPECT_FALSE(
      space.satisfies(space.parse("tile_n=8,1,8,8; tile_m=8,2,8,8; tile_k=4,64,4; split_k=8")));
  EXPECT_EQ(defaultSpace(preset("BMM1"), SpaceTarget::Gpu).dims(), 6u);
  // The convolutions' split_k is for outputs of at most 2^20 elements: C2 has 71.7 million.
  EXPECT_EQ(defaultSpace(preset("C2"), SpaceTarget::Gpu).dims(), 8u);
  // A block's z axis (output channels, batch) holds at most 64 threads on CUDA: C2's
  // 1 x 9 x 96 blocks failed to launch on the H200. The CPU's space has no such axis.
  const std::string deepBlock =
      "tile_f=1,1,96,2; tile_y=1,3,9,1; tile_x=27,1,1,1; tile_rc=64,1; tile_ry=1,5; tile_rx=5,1; "
      "auto_unroll_max_step=512; unroll_explicit=1";
  const SearchSpace c2 = defaultSpace(preset("C2"), SpaceTarget::Gpu);
  std::string why;
  EXPECT_FALSE(c2.satisfies(c2.parse(deepBlock), &why));
  EXPECT_EQ(why, "at most 64 threads along a block's z axis");
  const SearchSpace c2Cpu = defaultSpace(preset("C2"));
  EXPECT_TRUE(c2Cpu.satisfies(c2Cpu.parse(deepBlock)));
  const SearchSpace bmm = defaultSpace(preset("BMM1"), SpaceTarget::Gpu);
  const std::string bmmTiles = "tile_n=128,1,1,1; tile_m=64,1,1,1; tile_k=128,1,1; tile_b=";
  EXPECT_TRUE(bmm.satisfies(bmm.parse(bmmTiles + "15,64")));
  EXPECT_FALSE(bmm.satisfies(bmm.parse(bmmTiles + "10,96"), &why));
  EXPECT_EQ(why, "at most 64 threads along a block's z axis");
  EXPECT_EQ(defaultSpace(preset("MM1")).indexOf("split_k"), -1);
  EXPECT_EQ(parseSpaceTarget("gpu", "here"), SpaceTarget::Gpu);
  EXPECT_THROW(parseSpaceTarget("tpu", "here"), InputError);
}

// The direct GPU convolution splits its input channels (tile_rc's outer factor) over split_k
// blocks; the CPU space has no such parameter, and a configuration stored before it reads as 1.
TEST(Presets, GpuConvSpacesSplitTheInputChannels) {
  const SearchSpace layer4 = defaultSpace(preset("resnet18_conv5_b1"), SpaceTarget::Gpu);
  const int split = layer4.indexOf("split_k");
  ASSERT_EQ(split, 8);
  EXPECT_EQ(layer4.param(split).spec(), "discrete:1,2,4,8,16");
  EXPECT_EQ(defaultSpace(preset("resnet18_conv5_b1")).indexOf("split_k"), -1);
  const std::string tiles =
      "tile_f=16,1,8,4; tile_y=1,1,7,1; tile_x=1,1,7,1; tile_ry=1,3; tile_rx=1,3; "
      "auto_unroll_max_step=512; unroll_explicit=1; ";
  EXPECT_EQ(layer4.format(layer4.parse(tiles + "tile_rc=64,8")),
            "tile_f=16,1,8,4; tile_y=1,1,7,1; tile_x=1,1,7,1; tile_rc=64,8; tile_ry=1,3; "
            "tile_rx=1,3; auto_unroll_max_step=512; unroll_explicit=1; split_k=1");
  EXPECT_TRUE(layer4.satisfies(layer4.parse(tiles + "tile_rc=64,8; split_k=16")));
  std::string why;
  EXPECT_FALSE(layer4.satisfies(layer4.parse(tiles + "tile_rc=4,128; split_k=8"), &why));
  EXPECT_EQ(why, "split_k divides tile_rc's outer factor");
  // 64 images of 64 channels of 16 x 16 (2^20 outputs, the most that have split_k): in channel
  // blocks of one, 4096 (image, channel block) pairs, which the unsplit kernel loops over where
  // they exceed one launch's 65535 along z; splits have to be launched together.
  OperatorSpec wide = preset("resnet18_conv2_b1");
  wide.batch = 64;
  wide.height = wide.width = 16;
  const SearchSpace many = defaultSpace(wide, SpaceTarget::Gpu);
  ASSERT_GE(many.indexOf("split_k"), 0);
  const std::string manyTiles =
      "tile_rc=16,4; tile_ry=1,3; tile_rx=3,1; auto_unroll_max_step=512; unroll_explicit=1; ";
  const std::string oneTile = "tile_y=1,1,16,1; tile_x=1,16,1,1; ";
  EXPECT_TRUE(many.satisfies(many.parse(manyTiles + oneTile + "tile_f=64,1,1,1; split_k=1")));
  EXPECT_TRUE(many.satisfies(many.parse(manyTiles + oneTile + "tile_f=64,1,1,1; split_k=8")));
  const std::string limits =
      "split_k above 1: at most 65535 blocks along grid z (images x channel blocks x split_k) "
      "and per split";
  EXPECT_FALSE(many.satisfies(many.parse(manyTiles + oneTile + "tile_f=64,1,1,1; split_k=16"),
                              &why));  // 65536 along z
  EXPECT_EQ(why, limits);
  // 4096 pairs of 16 output tiles are 65536 blocks a split (each keeps a turn).
  EXPECT_FALSE(many.satisfies(
      many.parse(manyTiles + "tile_y=4,1,4,1; tile_x=4,4,1,1; tile_f=64,1,1,1; split_k=2"), &why));
  EXPECT_EQ(why, limits);
  wide.height = wide.width = 17;  // 64 x 64 x 17 x 17 outputs: more than 2^20, no split_k
  EXPECT_EQ(defaultSpace(wide, SpaceTarget::Gpu).indexOf("split_k"), -1);
  // A depthwise convolution has one input channel per group: nothing to split.
  const SearchSpace dw = defaultSpace(preset("mobilenet_v2_dw2_b1"), SpaceTarget::Gpu);
  Rng rng(3);
  for (int i = 0; i < 20; ++i) {
    const auto c = dw.randomValid(rng);
    ASSERT_TRUE(c.has_value());
    EXPECT_EQ(dw.format(*c).find("split_k=1"), dw.format(*c).size() - 9);
  }
}

TEST(Presets, PaperShapes) {
  const OperatorSpec c1 = preset("C1");
  EXPECT_EQ(c1.outHeight(), 55);
  EXPECT_EQ(preset("C2").outHeight(), 27);
  EXPECT_EQ(preset("BMM3").n, 64);
  EXPECT_TRUE(preset("BMM2").transA);
  EXPECT_DOUBLE_EQ(preset("MM1").flops(), 2.0 * 512 * 1024 * 1024);
  EXPECT_THROW(preset("MM9"), InputError);
}

TEST(SearchSpace, ParseNamesTheBadParameter) {
  const SearchSpace space = defaultSpace(preset("MM1"));
  EXPECT_THROW(space.parse("tile_n=512,1,1,1"), InputError);  // lacks tile_m, tile_k
  EXPECT_THROW(space.parse("tile_q=1"), InputError);
  EXPECT_THROW(space.parse("tile_n=3,1,1,1; tile_m=1024,1,1,1; tile_k=1024,1,1"), InputError);
}

TEST(SearchSpace, ConstraintReportsItsDescription) {
  const OperatorSpec op = preset("MM1");
  const SearchSpace space = defaultSpace(op);
  const Config c = space.parse("tile_n=1,1,512,1; tile_m=1,1,16,64; tile_k=1024,1,1");
  std::string broken;
  EXPECT_FALSE(space.satisfies(c, &broken));
  EXPECT_EQ(broken, "at most 1024 threads per block, a GPU's limit kept on every backend");
  // The GPU template's space names the limit plainly: there it is the device's.
  const SearchSpace gpu = defaultSpace(op, SpaceTarget::Gpu);
  EXPECT_FALSE(gpu.satisfies(gpu.parse("tile_n=1,1,512,1; tile_m=1,1,16,64; tile_k=1024,1,1; "
                                       "split_k=1; stages=1"),
                             &broken));
  EXPECT_EQ(broken, "at most 1024 threads per block");
}

}  // namespace
}  // namespace opevo
