// Which operands a timed run evicts from the caches before each run (cpu/cache_eviction.h), the
// one rule the kernel's timing and the reference's follow: what the network's chain finds cold
// is what tuning times cold (TimingOptions::coldWeights, coldActivations, activationB).

#include "cpu/cache_eviction.h"

#include <gtest/gtest.h>

#include <vector>

#include "cpu/cpu_runner.h"

namespace opevo {
namespace {

struct Operands {
  float input[4], b[4], bias[2], residual[4], output[4];
  RunBuffers run() const {
    return {{input, sizeof input},
            {b, sizeof b},
            {bias, sizeof bias},
            {residual, sizeof residual},
            {output, sizeof output}};
  }
};

std::vector<CachedBuffer> evicted(const RunBuffers& run, const TimingOptions& t) {
  return evictedBeforeEachRun(run, t.coldWeights, t.coldB(), t.coldActivations);
}

TEST(CacheEviction, WeightsColdEvictTheWeightsAndBiasAlone) {
  const Operands o{};
  const RunBuffers r = o.run();
  TimingOptions t;
  EXPECT_TRUE(evicted(r, t).empty());
  t.coldWeights = true;
  EXPECT_EQ(evicted(r, t), (std::vector<CachedBuffer>{r.b, r.bias}));
}

TEST(CacheEviction, ActivationsColdEvictTheInputResidualAndOutputToo) {
  const Operands o{};
  const RunBuffers r = o.run();
  TimingOptions t;
  t.coldWeights = t.coldActivations = true;
  EXPECT_EQ(evicted(r, t), (std::vector<CachedBuffer>{r.b, r.bias, r.input, r.residual, r.output}));
  t.coldWeights = false;
  EXPECT_EQ(evicted(r, t), (std::vector<CachedBuffer>{r.input, r.residual, r.output}));
}

// Attention's keys and values are b, written by the layer before: cold with the activations, not
// with the weights, while the bias stays a weight.
TEST(CacheEviction, AnActivationBGoesWithTheActivations) {
  const Operands o{};
  const RunBuffers r = o.run();
  TimingOptions t;
  t.activationB = true;
  t.coldWeights = true;
  EXPECT_EQ(evicted(r, t), (std::vector<CachedBuffer>{r.bias}));
  t.coldWeights = false;
  t.coldActivations = true;
  EXPECT_EQ(evicted(r, t), (std::vector<CachedBuffer>{r.b, r.input, r.residual, r.output}));
}

// An operator without a residual (or a bias) has none to evict.
TEST(CacheEviction, AbsentOperandsAreLeftOut) {
  const Operands o{};
  RunBuffers r = o.run();
  r.residual = {};
  r.bias = {o.bias, 0};
  TimingOptions t;
  t.coldWeights = t.coldActivations = true;
  EXPECT_EQ(evicted(r, t), (std::vector<CachedBuffer>{r.b, r.input, r.output}));
}

}  // namespace
}  // namespace opevo
