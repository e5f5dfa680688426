// Twin tasks (net/twin_tasks.h): tasks of one operator that only their fused epilogue sets
// apart, and a unit of one beginning with the best configurations its twins measured. Measured
// by a stand-in that answers at once from the configuration alone (so a configuration is as fast
// on both twins, as the same loop nest is), so these tests check what is measured and when; the
// CPU figures are in the report of the change, not in a timed test.

#include "net/twin_tasks.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "twin_test_support.h"

namespace opevo::net {
namespace {

using twintest::allDistinct;
using twintest::fastestOf;
using twintest::kTwins;
using twintest::plan;
using twintest::Resumed;
using twintest::Tasks;

TEST(TwinTasks, ResNet18sBlocksAreTwinsThatDifferOnlyInTheirEpilogue) {
  const Tasks t("resnet18");
  // A block's last convolution (bias, add, relu) and the next block's first (bias, relu).
  EXPECT_EQ(t.twinNames("layer1.0.conv2"), std::vector<std::string>{"layer1.0.conv1"});
  EXPECT_EQ(t.twinNames("layer2.1.conv1"), std::vector<std::string>{"layer2.0.conv2"});
  EXPECT_EQ(t.twinNames("layer3.0.conv2"), std::vector<std::string>{"layer3.1.conv1"});
  EXPECT_EQ(t.twinNames("layer4.1.conv1"), std::vector<std::string>{"layer4.0.conv2"});
  // The stride-2 and 1x1 convolutions, the stem and fc have none.
  for (const char* name : {"conv1", "layer2.0.conv1", "layer2.0.downsample.conv", "fc"})
    EXPECT_TRUE(t.twinNames(name).empty()) << name;
  const auto twins = twinTasks(t.graph);
  std::size_t withTwins = 0;
  for (std::size_t i = 0; i < twins.size(); ++i) {
    withTwins += twins[i].empty() ? 0 : 1;
    for (std::size_t k : twins[i]) {
      const OperatorSpec& a = t.graph.tasks[i].op;
      const OperatorSpec& b = t.graph.tasks[k].op;
      EXPECT_NE(a.epilogue, b.epilogue) << t.graph.tasks[i].name;
      OperatorSpec bare = b;
      bare.name = a.name;
      bare.epilogue = a.epilogue;
      EXPECT_EQ(bare.describe(), a.describe()) << t.graph.tasks[i].name;
    }
  }
  EXPECT_EQ(withTwins, 8u);
}

TEST(TwinTasks, AlexNetAndTasksOfOtherShapesHaveNone) {
  for (const char* network :
       {"alexnet", OPEVO_SOURCE_DIR "/tests/data/net_residual_producer.json"}) {
    const Tasks t(network);
    for (const auto& twins : twinTasks(t.graph)) EXPECT_TRUE(twins.empty()) << network;
  }
  const Tasks t(kTwins);
  EXPECT_EQ(t.twinNames("a"), std::vector<std::string>{"b"});
  EXPECT_EQ(t.graph.tasks[t.index("a")].weightCount(), 2);  // c is a's task: identical epilogue
  EXPECT_TRUE(t.twinNames("p").empty());
  EXPECT_TRUE(t.twinNames("d").empty());
}

TEST(TwinTasks, TwinsAreTunedOverTheSameSpaceInEveryMode) {
  // The epilogue changes how an output is stored, not the loop nest: every configuration of one
  // twin's space is one of the other's, with the same text.
  for (layout::TuningMode mode : {layout::TuningMode::Loop, layout::TuningMode::Joint}) {
    const Tasks t("resnet18", mode);
    const std::size_t a = t.index("layer2.1.conv1"), b = t.index("layer2.0.conv2");
    const SearchSpace& sa = t.defs[a].space;
    const SearchSpace& sb = t.defs[b].space;
    ASSERT_EQ(sa.dims(), sb.dims());
    Rng rng(11);
    for (int k = 0; k < 50; ++k) {
      const std::optional<Config> c = sa.randomValid(rng);
      ASSERT_TRUE(c);
      const Config other = sb.parse(sa.format(*c));
      EXPECT_EQ(other, *c);
      EXPECT_TRUE(sb.satisfies(other));
    }
  }
}

TEST(TwinTasks, ATasksUnitBeginsWithItsTwinsBestConfigurations) {
  Tasks t(kTwins);
  const std::size_t a = t.index("a"), b = t.index("b");
  NetworkTuning tuning(t.graph, t.measurements(), plan(SchedulerKind::RoundRobin, 24));
  EXPECT_EQ(tuning.twins(a), std::vector<std::size_t>{b});
  ASSERT_TRUE(tuning.step());  // a's first unit: nothing measured by b, its tuner's own four
  ASSERT_EQ(tuning.units().back().task, a);
  EXPECT_TRUE(tuning.units().back().fromTwins.empty());
  ASSERT_TRUE(tuning.step());
  ASSERT_EQ(tuning.units().back().task, b);
  // b's first unit: a's best two, then two of its tuner's.
  EXPECT_EQ(tuning.units().back().fromTwins, (std::vector<std::size_t>{a, a}));
  const std::vector<Config> best = fastestOf(t.measurers[a]->measured);
  const std::vector<Config>& measured = t.measurers[b]->measured;
  ASSERT_EQ(measured.size(), 4u);
  EXPECT_EQ(measured[0], best[0]);
  EXPECT_EQ(measured[1], best[1]);
  EXPECT_TRUE(allDistinct(measured));
  // Counted in the budget; b is at least as fast as a (a configuration is as fast on both here).
  EXPECT_EQ(tuning.trials(), 8);
  EXPECT_GE(tuning.engine(b).runs().front().best, tuning.engine(a).runs().front().best);
}

TEST(TwinTasks, NoTaskMeasuresAConfigurationTwiceAndTwinsSeeEachOthersFinds) {
  Tasks t(kTwins);
  const std::size_t a = t.index("a"), b = t.index("b");
  NetworkTuning tuning(t.graph, t.measurements(), plan(SchedulerKind::Gradient, 80));
  tuning.run();
  EXPECT_EQ(tuning.trials(), 80);
  std::size_t fromTwins = 0;
  for (const NetworkUnit& u : tuning.units()) {
    fromTwins += u.fromTwins.size();
    EXPECT_LE(u.fromTwins.size(), kTwinConfigsPerUnit);
    if (u.task != a && u.task != b) {
      EXPECT_TRUE(u.fromTwins.empty());
    }
  }
  EXPECT_GT(fromTwins, 2u);
  for (const auto& m : t.measurers) EXPECT_TRUE(allDistinct(m->measured));
  // The twin whose last unit came later measured the other's final best then.
  std::size_t lastA = 0, lastB = 0;
  for (std::size_t u = 0; u < tuning.units().size(); ++u) {
    if (tuning.units()[u].task == a) lastA = u;
    if (tuning.units()[u].task == b) lastB = u;
  }
  const std::size_t later = lastA > lastB ? a : b, earlier = later == a ? b : a;
  const std::vector<Config>& mine = t.measurers[later]->measured;
  const Config& theirs = *tuning.engine(earlier).runs().front().bestConfig;
  EXPECT_NE(std::find(mine.begin(), mine.end(), theirs), mine.end());
}

TEST(TwinTasks, ProposedAreTheTwinsBestTwoThatTheTaskHasNotMeasuredAndItsSpaceHolds) {
  const Tasks t(kTwins);
  const SearchSpace& sa = t.defs[t.index("a")].space;
  Rng rng(5);
  std::vector<Config> c;
  while (c.size() < 4) {
    const Config x = *sa.randomValid(rng);
    if (std::find(c.begin(), c.end(), x) == c.end()) c.push_back(x);
  }
  std::vector<Observation> theirs{{c[0], 1.0}, {c[1], 3.0}, {c[2], 2.0}, {c[3], 0.0}};
  std::vector<Observation> mine;
  SearchSpace narrowed = sa;
  std::vector<const SearchSpace*> spaces{&sa, &narrowed};
  const MeasuredTrials measured = [&](std::size_t k) -> const std::vector<Observation>& {
    return k == 0 ? theirs : mine;
  };
  const auto configs = [](const std::vector<TwinProposal>& got) {
    std::vector<Config> out;
    for (const TwinProposal& p : got) {
      EXPECT_EQ(p.from, 0u);
      out.push_back(p.config);
    }
    return out;
  };
  // The best two, the best first; the third is the tuner's to find.
  EXPECT_EQ(configs(twinProposals(1, {0}, spaces, measured, 4)), (std::vector<Config>{c[1], c[2]}));
  EXPECT_EQ(configs(twinProposals(1, {0}, spaces, measured, 1)), std::vector<Config>{c[1]});
  EXPECT_TRUE(twinProposals(1, {0}, spaces, measured, 0).empty());
  // One the task measured, even one that failed there, is not measured again.
  mine.push_back({c[1], 0.0});
  EXPECT_EQ(configs(twinProposals(1, {0}, spaces, measured, 4)), std::vector<Config>{c[2]});
  // Nor one its space does not hold (a layout constraint), nor one of a space of other
  // parameters (the dense layer's).
  narrowed.addConstraint("not c2", [&](const Config& x) { return x != c[2]; });
  EXPECT_TRUE(twinProposals(1, {0}, spaces, measured, 4).empty());
  mine.clear();
  spaces[1] = &t.defs[t.index("d")].space;
  EXPECT_TRUE(twinProposals(1, {0}, spaces, measured, 4).empty());
  // A twin's failed trial is nobody's best.
  theirs = {{c[3], 0.0}};
  spaces[1] = &sa;
  EXPECT_TRUE(twinProposals(1, {0}, spaces, measured, 4).empty());
}

TEST(TwinTasks, AResumedNetworkFindsItsTwinTrialsAgainAndMeasuresNothingTwice) {
  const NetworkTuningPlan p = plan(SchedulerKind::RoundRobin, 60);
  Tasks whole(kTwins);
  NetworkTuning first(whole.graph, whole.measurements(), p);
  first.run();
  const std::size_t a = whole.index("a"), b = whole.index("b");
  ASSERT_EQ(first.units()[1].task, b);
  ASSERT_EQ(first.units()[1].fromTwins, (std::vector<std::size_t>{a, a}));

  // Stopped after b's first unit: the replay finds which of its trials were a's.
  Resumed r(p, 2);
  EXPECT_TRUE(r.added.empty());
  ASSERT_EQ(r.tuning->units().size(), 2u);
  EXPECT_EQ(r.tuning->units()[1].fromTwins, first.units()[1].fromTwins);
  r.tuning->run();
  // Round-robin's units up to the closing round (which measures what the resumed tuners found,
  // Engine::restore: not trial for trial what they found uninterrupted), the budget less its
  // reserve.
  EXPECT_EQ(first.closingReserve(), 4);
  std::size_t scheduled = 0;
  while (scheduled < first.units().size() && first.units()[scheduled].trials <= 56) ++scheduled;
  ASSERT_GE(r.tuning->units().size(), scheduled);
  EXPECT_EQ(r.tuning->trials(), 60);  // the round's leftover goes to p and d
  for (std::size_t u = 0; u < scheduled; ++u) {
    EXPECT_EQ(r.tuning->units()[u].task, first.units()[u].task) << "unit " << u + 1;
    EXPECT_EQ(r.tuning->units()[u].trials, first.units()[u].trials) << "unit " << u + 1;
  }
  for (std::size_t i = 0; i < whole.graph.tasks.size(); ++i) {
    std::vector<Config> all = r.part.measurers[i]->measured;
    const std::vector<Config>& after = r.later.measurers[i]->measured;
    all.insert(all.end(), after.begin(), after.end());
    EXPECT_TRUE(allDistinct(all)) << whole.graph.tasks[i].name;
  }

  // Stopped after a's first unit: b's first unit begins with a's best two as restored, as it did
  // uninterrupted.
  Resumed s(p, 1);
  EXPECT_TRUE(s.added.empty());
  ASSERT_TRUE(s.tuning->step());
  EXPECT_EQ(s.tuning->units().back().fromTwins, first.units()[1].fromTwins);
  const std::vector<Config>& resumedB = s.later.measurers[b]->measured;
  const std::vector<Config>& wholeB = whole.measurers[b]->measured;
  ASSERT_GE(resumedB.size(), 2u);
  EXPECT_EQ(std::vector<Config>(resumedB.begin(), resumedB.begin() + 2),
            std::vector<Config>(wholeB.begin(), wholeB.begin() + 2));
}

}  // namespace
}  // namespace opevo::net
