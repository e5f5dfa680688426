#include <gtest/gtest.h>

#include "common/error.h"
#include "ops/presets.h"

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
  EXPECT_EQ(broken, "at most 1024 threads per block");
}

}  // namespace
}  // namespace opevo
