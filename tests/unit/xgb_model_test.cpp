#include "model/xgb_model.h"

#include <gtest/gtest.h>

#include <cmath>

#include "model/features.h"
#include "ops/presets.h"
#include "space/choice_param.h"
#include "space/discrete_param.h"
#include "space/factor_param.h"

namespace opevo {
namespace {

// y = 3a - b + noise-free interaction on a 2-feature grid.
void grid(FeatureMatrix& x, std::vector<float>& y) {
  x = FeatureMatrix(2);
  y.clear();
  for (int a = 0; a < 20; ++a) {
    for (int b = 0; b < 20; ++b) {
      const float row[] = {static_cast<float>(a), static_cast<float>(b)};
      x.addRow(row, 2);
      y.push_back(static_cast<float>(3 * a - b));
    }
  }
}

// Fraction of pairs the predictions order as the labels do.
double concordance(const std::vector<float>& p, const std::vector<float>& y) {
  std::size_t agree = 0, pairs = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    for (std::size_t j = i + 1; j < y.size(); ++j) {
      if (y[i] == y[j]) continue;
      ++pairs;
      agree += (p[i] < p[j]) == (y[i] < y[j]) && p[i] != p[j];
    }
  }
  return static_cast<double>(agree) / static_cast<double>(pairs);
}

TEST(XgbModel, RankObjectiveLearnsTheOrder) {
  FeatureMatrix x;
  std::vector<float> y;
  grid(x, y);
  XgbModel model({.objective = "rank:pairwise", .maxDepth = 3, .eta = 0.3, .rounds = 50});
  model.train(x, y);
  EXPECT_GT(concordance(model.predict(x), y), 0.9);
}

TEST(XgbModel, RegressionFitsTheValues) {
  FeatureMatrix x;
  std::vector<float> y;
  grid(x, y);
  XgbModel model({.objective = "reg:squarederror", .maxDepth = 6, .eta = 0.3, .rounds = 100});
  model.train(x, y);
  const std::vector<float> p = model.predict(x);
  ASSERT_EQ(p.size(), y.size());
  double worst = 0;
  for (std::size_t i = 0; i < y.size(); ++i) worst = std::max(worst, std::abs(double(p[i] - y[i])));
  EXPECT_LT(worst, 2.0);
}

TEST(XgbModel, SameSeedSameModel) {
  FeatureMatrix x;
  std::vector<float> y;
  grid(x, y);
  XgbModel a({.seed = 7}), b({.seed = 7});
  a.train(x, y);
  b.train(x, y);
  EXPECT_EQ(a.predict(x), b.predict(x));
}

TEST(XgbModel, ErrorsBecomeExceptionsWithXgboostText) {
  FeatureMatrix x;
  std::vector<float> y;
  grid(x, y);
  XgbModel bad({.objective = "no:such-objective"});
  try {
    bad.train(x, y);
    FAIL() << "an unknown objective was accepted";
  } catch (const XgbError& e) {
    EXPECT_NE(std::string(e.what()).find("no:such-objective"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(bad.trained());

  XgbModel model;
  EXPECT_THROW(model.predict(x), std::logic_error);
  y.pop_back();
  EXPECT_THROW(model.train(x, y), std::invalid_argument);
  EXPECT_THROW(model.train(FeatureMatrix(2), {}), std::invalid_argument);
  y.push_back(0);
  model.train(x, y);
  EXPECT_THROW(model.predict(FeatureMatrix(3)), std::invalid_argument);
  EXPECT_TRUE(model.predict(FeatureMatrix(2)).empty());
}

TEST(XgbModel, MovesOwnership) {
  FeatureMatrix x;
  std::vector<float> y;
  grid(x, y);
  XgbModel a;
  a.train(x, y);
  const std::vector<float> expected = a.predict(x);
  XgbModel b(std::move(a));
  EXPECT_FALSE(a.trained());  // NOLINT(bugprone-use-after-move): moved-from state is specified
  EXPECT_EQ(b.predict(x), expected);
  XgbModel c;
  c = std::move(b);
  EXPECT_EQ(c.predict(x), expected);
}

TEST(Features, MatMulHasLogsSegmentsAndCrossParameterProducts) {
  const SearchSpace space = defaultSpace(preset("MM1"));
  const FeatureExtractor features(space);
  ASSERT_EQ(features.names().size(), features.size());
  const Config c = space.parse("tile_n=4,2,16,4; tile_m=8,2,16,4; tile_k=64,8,2");
  const std::vector<float> f = features(c);
  ASSERT_EQ(f.size(), features.size());
  auto at = [&](const std::string& name) {
    for (std::size_t i = 0; i < features.size(); ++i)
      if (features.names()[i] == name) return f[i];
    ADD_FAILURE() << "no feature " << name;
    return -1.0f;
  };
  EXPECT_EQ(at("tile_n[2]"), 16);  // raw SearchSpace::features come first
  EXPECT_EQ(at("log2 tile_m[0]"), 3);
  EXPECT_EQ(at("log2 tile_n[1..3]"), 7);                // 2*16*4: a block's rows
  EXPECT_EQ(at("log2 prod[2](tile_n,tile_m)"), 8);      // 256 threads per block
  EXPECT_EQ(at("log2 prod[0](tile_n,tile_m)"), 5);      // 32 blocks
  EXPECT_EQ(at("log2 prod[1..3](tile_n,tile_m)"), 14);  // a block's output tile
  EXPECT_EQ(at("log2 prod[2..3](tile_n,tile_m)"), 12);  // threads x outputs per thread
  EXPECT_EQ(at("log2 tile_k[1..2]"), 4);
  // Wrong shapes are refused, not read past: same total length, different split.
  EXPECT_THROW(features(Config{}), std::invalid_argument);
  const Config shifted = {{4, 2, 16, 4, 1}, {8, 2, 16}, {64, 8, 2}};
  EXPECT_THROW(features(shifted), std::invalid_argument);
  // tile_k is alone with three parts: no cross-parameter group for it.
  for (const std::string& name : features.names())
    EXPECT_EQ(name.find("(tile_k"), std::string::npos) << name;
}

TEST(Features, OtherKindsGiveTheirRawFeatures) {
  SearchSpace space;
  space.add(std::make_shared<DiscreteParam>("unroll", std::vector<double>{0, 512, 1500}));
  space.add(std::make_shared<ChoiceParam>("explicit", std::vector<std::string>{"0", "1"}));
  space.add(std::make_shared<FactorParam>("f", 12, 2));
  const FeatureExtractor features(space);
  const std::vector<float> f = features(space.parse("unroll=512; explicit=1; f=3,4"));
  // 1 + 1 raw, 2 raw factors, 2 logs; a lone two-part factor has no segments.
  ASSERT_EQ(f.size(), 6u);
  EXPECT_EQ(f[0], 512);
  EXPECT_EQ(f[1], 1);
  EXPECT_EQ(f[2], 3);
  EXPECT_EQ(f[3], 4);
  EXPECT_FLOAT_EQ(f[4], std::log2(3.0f));
  EXPECT_EQ(f[5], 2);
  FeatureMatrix m = features.matrix({space.first(), space.first()});
  EXPECT_EQ(m.rows(), 2u);
  EXPECT_EQ(m.cols(), 6u);
}

}  // namespace
}  // namespace opevo
