// ALT's two stages over a joint layout space (tuners/joint_layout_tuner.h), on a synthetic speed
// so the stage logic is checked without compiling kernels.

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "codegen_test_util.h"
#include "common/error.h"
#include "layout/conv2d_layout.h"
#include "tuners/joint_layout_tuner.h"

namespace opevo::test {
namespace {

// A plan of trials only (the aggregate's later members keep their defaults).
JointStagePlan planOf(int jointTrials, int trialsPerLayout, bool crossExploration = true) {
  JointStagePlan plan;
  plan.jointTrials = jointTrials;
  plan.trialsPerLayout = trialsPerLayout;
  plan.crossExploration = crossExploration;
  return plan;
}

// Faster for 16-channel output tiles, wide register tiles and matching weight blocks: a smooth
// landscape with one best layout, like the real one's main trends.
double syntheticSpeed(const OperatorSpec& op, const SearchSpace& space, const Config& c) {
  const layout::Conv2DBlocking b = layout::conv2dBlocking(op, space, c);
  double s = 1.0 / (1.0 + std::abs(std::log2(double(b.outC) / 16)));
  s *= 1.0 / (1.0 + std::abs(std::log2(double(b.regF * b.regW) / 128)));
  s *= b.weightO == b.outC ? 1.0 : 0.5;
  s *= b.weightI == b.inC ? 1.0 : 0.7;
  return s;
}

struct Drive {
  std::vector<Config> proposed;
  std::optional<int> boundary;
  std::size_t layouts = 0;
};

Drive drive(JointLayoutTuner& t, const OperatorSpec& op, const SearchSpace& space, int budget,
            std::size_t batch) {
  Drive d;
  while (int(d.proposed.size()) < budget) {
    const auto got = t.propose(std::min<std::size_t>(batch, budget - d.proposed.size()));
    if (got.empty()) break;
    std::vector<Observation> results;
    for (const Config& c : got) {
      d.proposed.push_back(c);
      results.push_back({c, syntheticSpeed(op, space, c)});
    }
    t.observe(results);
  }
  d.boundary = t.stageBoundary();
  d.layouts = t.layoutsTried();
  return d;
}

Config layoutPart(const SearchSpace& space, const Config& c) {
  Config out;
  for (std::size_t i = 0; i < space.dims(); ++i)
    if (layout::isLayoutParameter(space.param(i).name())) out.push_back(c[i]);
  return out;
}

class JointTuner : public ::testing::TestWithParam<std::string> {};

TEST_P(JointTuner, TwoStagesToTheExactBudget) {
  const OperatorSpec op = smallConv(1, 64, 64, 28, 3, 1, 1);
  const SearchSpace space = layout::conv2dLayoutSpace(op);
  TunerSettings joint = jointSettings();
  const JointStagePlan plan = jointStagePlan(joint, 100);
  EXPECT_EQ(plan.jointTrials, 30);
  JointLayoutTuner t(space, GetParam(), {}, 3, plan);
  // Batches of 6 end exactly at the boundary, so every joint-stage trial is measured by then.
  const Drive d = drive(t, op, space, 100, 6);
  ASSERT_EQ(d.proposed.size(), 100u);
  std::set<Config> unique(d.proposed.begin(), d.proposed.end());
  EXPECT_EQ(unique.size(), 100u) << "a configuration was proposed twice";
  for (const Config& c : d.proposed) EXPECT_TRUE(space.satisfies(c)) << space.format(c);
  ASSERT_TRUE(d.boundary);
  EXPECT_EQ(*d.boundary, 30);
  EXPECT_GE(d.layouts, 30u / plan.trialsPerLayout);
  // The loop-only stage keeps the layout of the best configuration of the joint stage.
  std::size_t best = 0;
  for (std::size_t i = 1; i < 30; ++i)
    if (syntheticSpeed(op, space, d.proposed[i]) > syntheticSpeed(op, space, d.proposed[best]))
      best = i;
  for (std::size_t i = 30; i < d.proposed.size(); ++i)
    EXPECT_EQ(layoutPart(space, d.proposed[i]), layoutPart(space, d.proposed[best]))
        << "trial " << i;
}

TEST_P(JointTuner, DeterministicForASeed) {
  const OperatorSpec op = smallConv(1, 32, 64, 14, 3, 1, 1);
  const SearchSpace space = layout::conv2dLayoutSpace(op);
  const JointStagePlan plan = planOf(20, 5);
  JointLayoutTuner a(space, GetParam(), {}, 9, plan), b(space, GetParam(), {}, 9, plan);
  EXPECT_EQ(drive(a, op, space, 50, 4).proposed, drive(b, op, space, 50, 4).proposed);
}

TEST_P(JointTuner, ResumesWithoutProposingAMeasuredConfigurationAgain) {
  const OperatorSpec op = smallConv(1, 32, 64, 14, 3, 1, 1);
  const SearchSpace space = layout::conv2dLayoutSpace(op);
  const JointStagePlan plan = planOf(24, 6);
  JointLayoutTuner first(space, GetParam(), {}, 4, plan);
  const Drive before = drive(first, op, space, 17, 4);  // interrupted inside the joint stage
  JointLayoutTuner resumed(space, GetParam(), {}, 4, plan);
  std::vector<Observation> restored;
  for (const Config& c : before.proposed) restored.push_back({c, syntheticSpeed(op, space, c)});
  resumed.observe(restored);
  const Drive after = drive(resumed, op, space, 60 - 17, 4);
  EXPECT_EQ(after.proposed.size(), 43u);
  std::set<Config> all(before.proposed.begin(), before.proposed.end());
  for (const Config& c : after.proposed) EXPECT_TRUE(all.insert(c).second) << space.format(c);
  ASSERT_TRUE(after.boundary);
  EXPECT_EQ(*after.boundary, 24);
}

TEST_P(JointTuner, OneSearchOverEverythingAlsoEndsOnTheBestLayout) {
  const OperatorSpec op = smallConv(1, 64, 64, 28, 3, 1, 1);
  const SearchSpace space = layout::conv2dLayoutSpace(op);
  JointLayoutTuner t(space, GetParam(), {}, 5, planOf(30, 2, false));
  const Drive d = drive(t, op, space, 80, 6);
  ASSERT_EQ(d.proposed.size(), 80u);
  EXPECT_EQ(std::set<Config>(d.proposed.begin(), d.proposed.end()).size(), 80u);
  ASSERT_TRUE(d.boundary);
  EXPECT_EQ(*d.boundary, 30);
  std::size_t best = 0;
  for (std::size_t i = 1; i < 30; ++i)
    if (syntheticSpeed(op, space, d.proposed[i]) > syntheticSpeed(op, space, d.proposed[best]))
      best = i;
  for (std::size_t i = 30; i < d.proposed.size(); ++i)
    EXPECT_EQ(layoutPart(space, d.proposed[i]), layoutPart(space, d.proposed[best]))
        << "trial " << i;
}

TEST_P(JointTuner, AFreshRunTriesTheSpacesStartPointFirst) {
  const OperatorSpec op = smallConv(1, 64, 64, 28, 3, 1, 1);
  const SearchSpace space = layout::conv2dLayoutSpace(op);
  ASSERT_TRUE(space.startPoint());
  for (const JointStagePlan& plan :
       {planOf(30, 2, true), planOf(30, 2, false), planOf(0, 2, true)}) {
    JointLayoutTuner t(space, GetParam(), {}, 5, plan);
    const Drive d = drive(t, op, space, 12, 3);
    ASSERT_FALSE(d.proposed.empty());
    EXPECT_EQ(d.proposed.front(), *space.startPoint())
        << "joint trials " << plan.jointTrials << ", cross " << plan.crossExploration;
  }
}

// Each layout after the first is judged first with the best loops measured so far, moved to the
// nearest loops it admits (its own loop tuner's first guesses are random loops, which compare
// loops rather than layouts).
TEST_P(JointTuner, ANewLayoutFirstTriesTheBestLoopsSoFarMadeToFitIt) {
  const OperatorSpec op = smallConv(1, 64, 64, 28, 3, 1, 1);
  const SearchSpace space = layout::conv2dLayoutSpace(op);
  const JointStagePlan plan = planOf(40, 2, true);
  JointLayoutTuner t(space, GetParam(), {}, 7, plan);
  const Drive d = drive(t, op, space, 40, 2);
  ASSERT_EQ(d.proposed.size(), 40u);
  auto loopPart = [&](const Config& c) {
    Config out;
    for (std::size_t i = 0; i < space.dims(); ++i)
      if (!layout::isLayoutParameter(space.param(i).name())) out.push_back(c[i]);
    return out;
  };
  std::set<Config> layoutsSeen;
  int checked = 0, moved = 0;
  for (std::size_t k = 0; k < d.proposed.size(); ++k) {
    if (!layoutsSeen.insert(layoutPart(space, d.proposed[k])).second || k == 0) continue;
    std::size_t best = 0;
    for (std::size_t i = 1; i < k; ++i)
      if (syntheticSpeed(op, space, d.proposed[i]) > syntheticSpeed(op, space, d.proposed[best]))
        best = i;
    const Config want = loopPart(d.proposed[best]), got = loopPart(d.proposed[k]);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < want.size(); ++i) differ += want[i] != got[i] ? 1 : 0;
    EXPECT_LE(differ, 3u) << "trial " << k << ": " << space.format(d.proposed[k]) << " after best "
                          << space.format(d.proposed[best]);
    ++checked;
    moved += differ > 0 ? 1 : 0;
  }
  EXPECT_GE(checked, 10);
  EXPECT_GE(moved, 1) << "no layout needed its loops moved: the test checks nothing";
}

INSTANTIATE_TEST_SUITE_P(Algorithms, JointTuner,
                         ::testing::Values("opevo", "opevo-m", "random", "genetic", "autotvm"));

TEST(JointSettings, AreCheckedAndSplitFromTheAlgorithms) {
  const std::map<std::string, std::string> all{
      {"joint.share", "0.5"}, {"joint.layout_trials", "4"}, {"q", "0.3"}};
  EXPECT_EQ(jointPart(all).size(), 2u);
  EXPECT_EQ(algorithmPart(all).size(), 1u);
  TunerSettings s = jointSettings();
  s.apply("joint layout tuning", jointPart(all));
  const JointStagePlan plan = jointStagePlan(s, 60);
  EXPECT_EQ(plan.jointTrials, 30);
  EXPECT_EQ(plan.trialsPerLayout, 4);
  EXPECT_THROW(s.set("joint layout tuning", "joint.share", "1.5"), InputError);
  EXPECT_THROW(s.set("joint layout tuning", "joint.rounds", "3"), InputError);
}

}  // namespace
}  // namespace opevo::test
