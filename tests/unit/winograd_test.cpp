// Winograd's transforms checked against the direct correlation, and the template's space.

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <random>

#include "codegen/kernel_codegen.h"
#include "codegen/winograd_transforms.h"
#include "common/error.h"
#include "cpu/operator_buffers.h"
#include "ops/operator_json.h"
#include "ops/presets.h"
#include "ops/winograd_space.h"

namespace opevo {
namespace {

using codegen::WinogradTransforms;

// Y = AT [(G g G^T) .* (BT d BT^T)] AT^T against the direct two-dimensional correlation, in double
// precision: the largest difference over random tiles.
double worstTwoDimensionalError(const WinogradTransforms& w) {
  const int a = w.alpha, m = w.m, r = w.r;
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  double worst = 0;
  for (int rep = 0; rep < 20; ++rep) {
    std::vector<std::vector<double>> d(a, std::vector<double>(a)), g(r, std::vector<double>(r));
    for (auto& row : d)
      for (double& v : row) v = u(rng);
    for (auto& row : g)
      for (double& v : row) v = u(rng);
    // The element-wise product of the transformed weights and input.
    std::vector<std::vector<double>> prod(a, std::vector<double>(a));
    for (int i = 0; i < a; ++i)
      for (int j = 0; j < a; ++j) {
        double gu = 0, dv = 0;
        for (int k = 0; k < r; ++k)
          for (int l = 0; l < r; ++l) gu += w.g[i][k] * g[k][l] * w.g[j][l];
        for (int k = 0; k < a; ++k)
          for (int l = 0; l < a; ++l) dv += w.bt[i][k] * d[k][l] * w.bt[j][l];
        prod[i][j] = gu * dv;
      }
    for (int p = 0; p < m; ++p)
      for (int q = 0; q < m; ++q) {
        double y = 0, direct = 0;
        for (int i = 0; i < a; ++i)
          for (int j = 0; j < a; ++j) y += w.at[p][i] * prod[i][j] * w.at[q][j];
        for (int k = 0; k < r; ++k)
          for (int l = 0; l < r; ++l) direct += d[p + k][q + l] * g[k][l];
        worst = std::max(worst, std::abs(y - direct));
      }
  }
  return worst;
}

TEST(WinogradTransforms, EveryTileSizeComputesTheCorrelation) {
  for (auto [m, r] : {std::pair{2, 3}, {4, 3}, {2, 5}, {3, 4}, {5, 2}, {4, 5}, {6, 3}}) {
    const WinogradTransforms w = codegen::winogradTransforms(m, r);
    EXPECT_EQ(w.alpha, m + r - 1);
    ASSERT_EQ(w.at.size(), static_cast<std::size_t>(m));
    ASSERT_EQ(w.g.size(), static_cast<std::size_t>(w.alpha));
    EXPECT_LT(worstTwoDimensionalError(w), 1e-12) << "F(" << m << ", " << r << ")";
  }
}

// The input transform runs for every tile and channel: its rows are scaled to whole numbers with
// no common factor. F(4x4, 3x3) on the points 0, 1, -1, 1/2, -2 (up to the rows' signs).
TEST(WinogradTransforms, TheInputTransformMultipliesByWholeNumbers) {
  const WinogradTransforms w = codegen::winogradTransforms(4, 3);
  const std::vector<std::vector<double>> want = {{2, -3, -4, 3, 2, 0},  {0, -2, 1, 5, 2, 0},
                                                 {0, -2, 5, -1, -2, 0}, {0, 2, 1, -2, -1, 0},
                                                 {0, 1, -2, -1, 2, 0},  {0, 2, -3, -4, 3, 2}};
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double sign = w.bt[i][1] * want[i][1] < 0 || w.bt[i][0] * want[i][0] < 0 ? -1 : 1;
    for (std::size_t k = 0; k < want[i].size(); ++k)
      EXPECT_EQ(w.bt[i][k], sign * want[i][k]) << "row " << i << " column " << k;
  }
  for (auto [m, r] : {std::pair{2, 3}, {2, 5}, {4, 5}, {6, 3}})
    for (const std::vector<double>& row : codegen::winogradTransforms(m, r).bt) {
      long long common = 0;
      for (double v : row) {
        EXPECT_EQ(v, std::round(v)) << "F(" << m << ", " << r << ")";
        common = std::gcd(common, std::llabs(std::llround(v)));
      }
      EXPECT_EQ(common, 1) << "F(" << m << ", " << r << ")";
    }
  EXPECT_THROW(codegen::winogradTransforms(8, 5), InputError);
  EXPECT_THROW(codegen::winogradTransforms(0, 3), InputError);
}

// The transforms in fp32 as the kernels compute them (products summed over the channels one after
// another), against the direct correlation in double: the worst output over random tiles, by
// the verification's measure |c - ref| / (1 + |ref|).
double worstFloatError(int m, int r, int channels, int tiles) {
  const WinogradTransforms w = codegen::winogradTransforms(m, r);
  const int a = w.alpha;
  auto f = [](const std::vector<std::vector<double>>& x) {
    std::vector<std::vector<float>> y;
    for (const auto& row : x) y.emplace_back(row.begin(), row.end());
    return y;
  };
  const auto bt = f(w.bt), g = f(w.g), at = f(w.at);
  // out = x in x^T for in n x n and x a x n, rows first, in fp32 as the kernel computes it.
  auto twoSided = [a](const std::vector<std::vector<float>>& x, const float* in, int n,
                      std::vector<float>& out) {
    std::vector<float> tmp(static_cast<std::size_t>(a * n));
    for (int i = 0; i < a; ++i)
      for (int j = 0; j < n; ++j) {
        float s = 0;
        for (int l = 0; l < n; ++l) s += x[i][l] * in[l * n + j];
        tmp[i * n + j] = s;
      }
    for (int i = 0; i < a; ++i)
      for (int j = 0; j < a; ++j) {
        float s = 0;
        for (int l = 0; l < n; ++l) s += tmp[i * n + l] * x[j][l];
        out[i * a + j] = s;
      }
  };
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> d(static_cast<std::size_t>(channels * a * a)),
      k(static_cast<std::size_t>(channels * r * r));
  double worst = 0;
  for (int tile = 0; tile < tiles; ++tile) {
    for (float& v : d) v = u(rng);
    for (float& v : k) v = u(rng);
    std::vector<float> sum(static_cast<std::size_t>(a * a), 0.0f), uu(sum.size()), vv(sum.size());
    for (int c = 0; c < channels; ++c) {
      twoSided(bt, &d[static_cast<std::size_t>(c * a * a)], a, vv);
      twoSided(g, &k[static_cast<std::size_t>(c * r * r)], r, uu);
      for (int e = 0; e < a * a; ++e) sum[e] += uu[e] * vv[e];
    }
    for (int p = 0; p < m; ++p)
      for (int q = 0; q < m; ++q) {
        float y = 0;
        for (int i = 0; i < a; ++i) {
          float row = 0;
          for (int j = 0; j < a; ++j) row += sum[i * a + j] * at[q][j];
          y += at[p][i] * row;
        }
        double ref = 0;
        for (int c = 0; c < channels; ++c)
          for (int ky = 0; ky < r; ++ky)
            for (int kx = 0; kx < r; ++kx)
              ref += double(d[static_cast<std::size_t>(c * a * a + (p + ky) * a + q + kx)]) *
                     k[static_cast<std::size_t>(c * r * r + ky * r + kx)];
        worst = std::max(worst, std::abs(y - ref) / (1 + std::abs(ref)));
      }
  }
  return worst;
}

// What the points buy: 512 channels (ResNet-18's last layers) in 6 points, 64 channels (C2's, the
// most winogradAlpha gives 8 points) in 8, stay within half the verification's tolerance. On the
// points 0, +-1, +-2, F(4x4, 3x3) here reached 9.6e-4, a hair from failing verification
// (docs/codegen.md).
TEST(WinogradTransforms, FloatErrorStaysWellInsideTheTolerance) {
  EXPECT_LT(worstFloatError(4, 3, 512, 1500), kVerifyTolerance / 2);
  EXPECT_LT(worstFloatError(2, 5, 512, 1500), kVerifyTolerance / 2);
  EXPECT_LT(worstFloatError(4, 5, 64, 3000), kVerifyTolerance / 2);
  EXPECT_LT(worstFloatError(6, 3, 64, 3000), kVerifyTolerance / 2);
  EXPECT_LT(worstFloatError(7, 2, 64, 3000), kVerifyTolerance / 2);
}

TEST(WinogradTransforms, LinearCombinationsLeaveOutZerosAndUnits) {
  EXPECT_EQ(codegen::linearCombination({4, 0, -5, 0, 1}, {"a", "b", "c", "d", "e"}),
            "4.0f * a - 5.0f * c + e");
  EXPECT_EQ(codegen::linearCombination({-1, 0.25}, {"a", "b"}), "-a + 0.25f * b");
  EXPECT_EQ(codegen::linearCombination({0, 0}, {"a", "b"}), "0.0f");
}

TEST(WinogradSpace, TilesFollowTheKernelSize) {
  const WinogradShape c2 = winogradShape(preset("C2"));  // 5x5, 27 x 27 outputs, batch 512
  EXPECT_EQ(c2.m, 4);
  EXPECT_EQ(c2.alpha, 8);
  EXPECT_EQ(c2.tilesH, 7);
  EXPECT_EQ(c2.tiles, 512 * 7 * 7);
  const WinogradShape res = winogradShape(preset("resnet18_conv2_b1"));  // 3x3, 56 x 56
  EXPECT_EQ(res.m, 4);
  EXPECT_EQ(res.tiles, 14 * 14);

  const SearchSpace space = defaultSpace(preset("C2"), SpaceTarget::Winograd);
  EXPECT_TRUE(isWinogradSpace(space));
  EXPECT_FALSE(isWinogradSpace(defaultSpace(preset("C2"), SpaceTarget::Gpu)));
  for (const char* name : {"tile_f", "tile_t", "tile_e", "tile_rc"})
    EXPECT_GE(space.indexOf(name), 0) << name;
  EXPECT_EQ(parseSpaceTarget("winograd", "test"), SpaceTarget::Winograd);
  // Constraints: threads and accumulators.
  EXPECT_TRUE(
      space.satisfies(space.parse("tile_f=6,16,2; tile_t=784,16,2; tile_e=1,64; tile_rc=16,4")));
  EXPECT_FALSE(space.satisfies(space.parse(
      "tile_f=3,16,4; tile_t=392,16,4; tile_e=1,64; tile_rc=16,4")));  // 1024 accumulators
  EXPECT_FALSE(
      space.satisfies(space.parse("tile_f=3,64,1; tile_t=1568,16,1; tile_e=2,32; "
                                  "tile_rc=16,4")));  // 2048 threads
  const Config c = space.parse("tile_f=6,16,2; tile_t=784,16,2; tile_e=1,64; tile_rc=16,4");
  EXPECT_EQ(threadsPerBlock(preset("C2"), space, c), 256);
}

// The transform size: the smallest unless a larger one saves a fifth of the work, 8 points only
// for short sums.
TEST(WinogradSpace, TheTransformSizeFollowsTheOutputAndTheSums) {
  EXPECT_EQ(winogradAlpha(preset("C2")), 8);  // 7 x 7 tiles of 4 against 14 x 14 of 2
  for (const char* name : {"resnet18_conv2_b1", "resnet18_conv3_b1", "resnet18_conv4_b1",
                           "resnet18_conv5_b1", "alexnet_conv3_b1", "alexnet_conv5_b1"})
    EXPECT_EQ(winogradAlpha(preset(name)), 6) << name;  // F(6x6, 3x3) saves under a fifth
  OperatorSpec wide = preset("C2");
  wide.inChannels = 128;  // too many channels for 8 points
  EXPECT_EQ(winogradAlpha(wide), 6);
  OperatorSpec tiny = preset("resnet18_conv5_b1");
  tiny.height = tiny.width = 5;  // 5 x 5 outputs: 3 x 3 tiles of 2 beat 2 x 2 of 4
  EXPECT_EQ(winogradAlpha(tiny), 4);
  EXPECT_EQ(winogradShape(tiny).m, 2);
}

TEST(WinogradSpace, OperatorsItCannotTakeAreNamedWithTheReason) {
  auto reason = [](const OperatorSpec& op) {
    try {
      defaultSpace(op, SpaceTarget::Winograd);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(reason(preset("C1")).find("stride 4"), std::string::npos) << reason(preset("C1"));
  EXPECT_NE(reason(preset("MM1")).find("not a Conv2D"), std::string::npos);
  OperatorSpec grouped = preset("resnet18_conv3_b1");
  grouped.groups = 2;
  EXPECT_NE(reason(grouped).find("2 groups"), std::string::npos);
  OperatorSpec pointwise = preset("resnet18_conv3_b1");
  pointwise.kernelH = pointwise.kernelW = 1;
  pointwise.pad = 0;
  EXPECT_NE(reason(pointwise).find("1x1"), std::string::npos);
  EXPECT_FALSE(winogradApplies(preset("C1")));
  EXPECT_TRUE(winogradApplies(preset("C2")));
}

// An operator file's overrides of the direct template's parameters do not carry over to the
// Winograd template, which has none of them; its own target is kept through a round trip.
TEST(WinogradSpace, AFilesOverridesOfTheDirectTemplateStayBehind) {
  const nlohmann::json file = {{"name", "conv3"},
                               {"kind", "conv2d"},
                               {"shape",
                                {{"batch", 2},
                                 {"in_channels", 8},
                                 {"height", 10},
                                 {"width", 10},
                                 {"out_channels", 8},
                                 {"kernel_h", 3},
                                 {"kernel_w", 3},
                                 {"stride", 1},
                                 {"pad", 1}}},
                               {"space", {{"auto_unroll_max_step", "discrete:0,256"}}}};
  const OperatorDefinition direct = operatorDefinitionFromJson(file, "conv3.json");
  const OperatorDefinition w = withSpaceTarget(direct, SpaceTarget::Winograd);
  EXPECT_TRUE(isWinogradSpace(w.space));
  EXPECT_TRUE(w.spaceOverrides.empty()) << w.spaceOverrides.dump();
  const nlohmann::json stored = operatorDefinitionToJson(w);
  EXPECT_EQ(stored.at("target"), "winograd");
  EXPECT_TRUE(isWinogradSpace(operatorDefinitionFromJson(stored, "stored run").space));
  // Back to the direct template: the override is gone for good, as withTuningMode does.
  EXPECT_EQ(withSpaceTarget(w, SpaceTarget::Gpu).space.indexOf("tile_e"), -1);
}

TEST(WinogradSpace, EveryBackendTakesOneConfiguration) {
  const OperatorSpec op = preset("resnet18_conv5_b1");
  const SearchSpace space = defaultSpace(op, SpaceTarget::Winograd);
  const Config c = untunedConfig(space);
  EXPECT_TRUE(space.satisfies(c));
  for (auto backend : {codegen::Backend::Cpu, codegen::Backend::Cuda, codegen::Backend::Hip}) {
    const auto k = codegen::generateKernel(op, space, c, backend);
    EXPECT_NE(k.summary.find("F(4x4, 3x3)"), std::string::npos) << k.summary;
  }
}

}  // namespace
}  // namespace opevo
