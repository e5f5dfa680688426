// The figures a kernel search prints the same way everywhere: the FLOPs share, the shared
// convolution baseline, and the sampling `kas sample` and `kas search` both use.

#include <gtest/gtest.h>

#include "kas/backbone.h"
#include "kas/candidate_sampling.h"
#include "kas/conv_baseline.h"
#include "kas/conv_targets.h"
#include "kas/share_text.h"
#include "net/network_json.h"

namespace opevo::kas {
namespace {

TEST(KasShareText, TwoSignificantDigitsAndNeverZeroForANonZeroShare) {
  // The walk's kernel: 0.4% of the FLOPs, printed "0%" by kas search.
  EXPECT_EQ(shareText(0.004), "0.40%");
  EXPECT_EQ(shareText(0.00412), "0.41%");
  EXPECT_EQ(shareText(0.042), "4.2%");
  EXPECT_EQ(shareText(0.34), "34%");
  EXPECT_EQ(shareText(0.5), "50%");
  EXPECT_EQ(shareText(1), "100%");
  EXPECT_EQ(shareText(2.5), "250%");
  EXPECT_EQ(shareText(0), "0%");
  // Rounding up into the next decade keeps two digits.
  EXPECT_EQ(shareText(0.0996), "10%");
  EXPECT_EQ(shareText(0.000999), "0.10%");
  for (double share : {1e-3, 1e-5, 1e-8, 1e-12, 1e-20, 3.3e-7}) {
    const std::string text = shareText(share);
    EXPECT_NE(text, "0%") << share;
    EXPECT_NE(text.find_first_of("123456789"), std::string::npos) << text;
  }
}

TEST(KasConvBaseline, SumsItsLayersWithTheirCountsAndRoundTrips) {
  ConvBaseline b;
  b.library = "oneDNN 2.6.3 brgconv:avx512_core";
  b.repeats = 3;
  b.layers = {{"layer1.0.conv1", 4, 0.9, {1.0, 1.2, 0.9}},
              {"layer2.0.conv2", 3, 0.5, {0.5, 0.5, 0.6}}};
  EXPECT_DOUBLE_EQ(b.totalMs(), 4 * 0.9 + 3 * 0.5);
  EXPECT_DOUBLE_EQ(b.slowestMs(), 4 * 1.2 + 3 * 0.6);
  EXPECT_EQ(b.msOf("layer2.0.conv2"), 0.5);
  EXPECT_FALSE(b.msOf("layer9"));
  const std::string words = b.describe();
  EXPECT_NE(words.find("oneDNN convolution"), std::string::npos) << words;
  EXPECT_NE(words.find("fastest of 3 timings"), std::string::npos) << words;
  EXPECT_NE(words.find("shared by every kernel"), std::string::npos) << words;
  const auto back = ConvBaseline::fromJson(b.toJson());
  ASSERT_TRUE(back);
  EXPECT_EQ(back->library, b.library);
  EXPECT_DOUBLE_EQ(back->totalMs(), b.totalMs());
  EXPECT_EQ(back->layers[0].timings, b.layers[0].timings);
  EXPECT_FALSE(ConvBaseline::fromJson(nlohmann::json::object()));
  EXPECT_EQ(words.find("tuned before"), std::string::npos) << words;
  // A search stored before the figure was shared, resumed: its kernels tuned then keep their own.
  b.tunedBefore = 2;
  EXPECT_NE(b.describe().find("the 2 kernels tuned before it"), std::string::npos) << b.describe();
  EXPECT_EQ(ConvBaseline::fromJson(b.toJson())->tunedBefore, 2);
}

// kas sample and kas search draw their kernels through one function: the same seed gives the same
// kernels with the same G, each fitting the network and the backbone with it.
TEST(KasCandidateSampling, TheSameSeedGivesTheSameKernelsAndGroupsFittingBothTargetSets) {
  const auto network = replaceableConvolutions(net::loadNetwork("resnet18"));
  CandidateSampling sampling;
  sampling.seed = 1;
  sampling.count = 4;
  const auto a = sampleCandidates(network, sampling);
  const auto b = sampleCandidates(network, sampling);
  ASSERT_EQ(a.size(), 4u);
  ASSERT_EQ(b.size(), a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].dag.canonicalHash(), b[i].dag.canonicalHash());
    EXPECT_EQ(a[i].fit.groups, b[i].fit.groups);
    ASSERT_EQ(a[i].fit.solutions.size(), 2u);
    const Solution& speed = a[i].fit.solutions[0];
    EXPECT_LE(speed.flops / speed.convFlops, sampling.budget.flops + 1e-9);
    EXPECT_EQ(a[i].fit.solutions[1].layers.size(), backboneTargets().size());
  }
  sampling.groups = 2;
  for (const auto& c : sampleCandidates(network, sampling)) EXPECT_EQ(c.fit.groups, 2);
}

}  // namespace
}  // namespace opevo::kas
