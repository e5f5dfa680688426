// Twin tasks (net/twin_tasks.h): tasks of one operator that only their fused epilogue sets
// apart, and a unit of one beginning with the best configurations its twins measured. Measured
// by a stand-in that answers at once from the configuration alone (so a configuration is as fast
// on both twins, as the same loop nest is), so these tests check what is measured and when; the
// CPU figures are in the report of the change, not in a timed test.

#include "net/twin_tasks.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <unordered_set>

#include "net/network_json.h"
#include "net/network_tuning.h"

namespace opevo::net {
namespace {

const std::string kTwins = std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_twins.json";

class HashMeasurer final : public Measurer {
 public:
  std::string label() const override { return "hash"; }
  bool isReplay() const override { return false; }
  std::string speedUnit() const override { return "TFLOPS"; }
  std::vector<Measurement> measure(const std::vector<Config>& configs) override {
    std::vector<Measurement> out;
    for (const Config& c : configs) {
      measured.push_back(c);
      Measurement m;
      m.speed = 1e-3 * static_cast<double>(1 + ConfigHash{}(c) % 997);
      m.medianMs = 1;
      out.push_back(m);
    }
    return out;
  }
  std::vector<Config> measured;
};

struct Tasks {
  Network net;
  TaskGraph graph;
  std::vector<OperatorDefinition> defs;
  std::vector<std::unique_ptr<HashMeasurer>> measurers;

  explicit Tasks(const std::string& network, layout::TuningMode mode = layout::TuningMode::Loop)
      : net(loadNetwork(network)), graph(extractTasks(net)) {
    for (const Task& t : graph.tasks) {
      defs.push_back(taskDefinition(t, mode));
      measurers.push_back(std::make_unique<HashMeasurer>());
    }
  }
  std::vector<TaskMeasurement> measurements() {
    std::vector<TaskMeasurement> m;
    for (std::size_t i = 0; i < defs.size(); ++i) m.push_back({&defs[i].space, measurers[i].get()});
    return m;
  }
  std::size_t index(const std::string& name) const {
    for (std::size_t i = 0; i < graph.tasks.size(); ++i)
      if (graph.tasks[i].name == name) return i;
    ADD_FAILURE() << "no task " << name;
    return 0;
  }
  std::vector<std::string> twinNames(const std::string& name) const {
    std::vector<std::string> out;
    const std::vector<std::vector<std::size_t>> twins = twinTasks(graph);
    for (std::size_t k : twins[index(name)]) out.push_back(graph.tasks[k].name);
    return out;
  }
};

NetworkTuningPlan plan(SchedulerKind scheduler, int trials) {
  NetworkTuningPlan p;
  p.algorithm = "opevo-m";
  p.seed = 3;
  p.trials = trials;
  p.unit = 4;
  p.scheduler = scheduler;
  return p;
}

// The measured configurations of a task, fastest first (ties: measured first), as HashMeasurer
// timed them.
std::vector<Config> fastestOf(const std::vector<Config>& measured) {
  std::vector<Config> order = measured;
  std::stable_sort(order.begin(), order.end(), [](const Config& a, const Config& b) {
    return ConfigHash{}(a) % 997 > ConfigHash{}(b) % 997;
  });
  return order;
}

bool allDistinct(const std::vector<Config>& configs) {
  return std::unordered_set<Config, ConfigHash>(configs.begin(), configs.end()).size() ==
         configs.size();
}

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

// The network stopped after `units` units and restored from what its tasks measured, as a store
// resumes it: `part` holds what was measured before the stop, `later` what after.
struct Resumed {
  Tasks part{kTwins};
  Tasks later{kTwins};
  std::unique_ptr<NetworkTuning> tuning;

  Resumed(const NetworkTuningPlan& p, std::size_t units) {
    NetworkTuning stopped(part.graph, part.measurements(), p);
    while (stopped.units().size() < units) EXPECT_TRUE(stopped.step());
    std::vector<TaskRestore> restores(part.graph.tasks.size());
    for (std::size_t i = 0; i < restores.size(); ++i) {
      const std::vector<Config>& measured = part.measurers[i]->measured;
      const std::vector<Measurement> again = HashMeasurer().measure(measured);
      for (std::size_t k = 0; k < measured.size(); ++k)
        restores[i].trials.emplace_back(measured[k], again[k]);
    }
    std::vector<UnitRecord> records;
    int before = 0;
    for (const NetworkUnit& u : stopped.units()) {
      records.push_back({u.task, u.trials - before});
      before = u.trials;
    }
    tuning = std::make_unique<NetworkTuning>(later.graph, later.measurements(), p);
    EXPECT_TRUE(tuning->restore(restores, records).empty());
  }
};

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
  ASSERT_EQ(r.tuning->units().size(), 2u);
  EXPECT_EQ(r.tuning->units()[1].fromTwins, first.units()[1].fromTwins);
  r.tuning->run();
  ASSERT_EQ(r.tuning->units().size(), first.units().size());
  for (std::size_t u = 0; u < first.units().size(); ++u) {
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
