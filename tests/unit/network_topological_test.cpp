// ALT's topological tuning of a network (net/network_tuning.h, net/layout_constraints.h): the
// order, the shares of the budget, and the output layout an earlier task's choice imposes on a
// later one. Measured by a stand-in that answers at once, so that these tests check scheduling
// and spaces; the real CPU runs, the end-to-end conversions and libtorch's check are CliNet's.

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>

#include "layout/conv2d_layout.h"
#include "layout/operand_layouts.h"
#include "net/layout_constraints.h"
#include "net/network_json.h"
#include "net/network_tuning.h"
#include "space/factor_param.h"
#include "twin_test_support.h"

namespace opevo::net {
namespace {

const std::string kResidual =
    std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_residual_producer.json";

// Speeds drawn from the configuration itself, every configuration asked for kept, and a
// network's tasks over them: the twin tests' (twin_test_support.h).
using twintest::HashMeasurer;
using twintest::Tasks;

NetworkTuningPlan plan(SchedulerKind scheduler, layout::TuningMode mode, int trials) {
  NetworkTuningPlan p;
  p.algorithm = "opevo-m";
  p.seed = 5;
  p.trials = trials;
  p.unit = 2;
  p.scheduler = scheduler;
  p.mode = mode;
  return p;
}

// (task name, trials) of every unit.
std::vector<std::pair<std::string, int>> unitsOf(const NetworkTuning& t, const TaskGraph& g) {
  std::vector<std::pair<std::string, int>> out;
  int before = 0;
  for (const NetworkUnit& u : t.units()) {
    out.emplace_back(g.tasks[u.task].name, u.trials - before);
    before = u.trials;
  }
  return out;
}

layout::Layout outputLayout(const Tasks& t, std::size_t task, const Config& c) {
  return layout::operandLayouts(t.defs[task].op, t.defs[task].space, c).c;
}

TEST(TopologicalTuning, ResNetShortcutsRunBeforeTheAddThatReadsThem) {
  // layer2.0.conv2 comes first in the file, but its kernel (with the add fused) runs after the
  // downsampling convolution whose output it adds: that convolution is tuned first.
  const Network n = loadNetwork("resnet18");
  const TaskGraph g = extractTasks(n);
  auto at = [&](const std::string& name) {
    const auto it =
        std::find_if(g.tasks.begin(), g.tasks.end(), [&](const Task& t) { return t.name == name; });
    EXPECT_NE(it, g.tasks.end()) << name;
    return static_cast<std::size_t>(it - g.tasks.begin());
  };
  const std::vector<ResidualLink> links = residualLinks(g);
  ASSERT_EQ(links.size(), 3u);
  for (int stage : {2, 3, 4}) {
    const std::string block = "layer" + std::to_string(stage) + ".0.";
    const ResidualLink& l = links[static_cast<std::size_t>(stage - 2)];
    EXPECT_EQ(l.writer, at(block + "downsample.conv"));
    EXPECT_EQ(l.reader, at(block + "conv2"));
    EXPECT_EQ(l.tensor, block + "downsample.conv");
    EXPECT_LT(g.tasks[l.writer].position, g.tasks[l.reader].position);
    EXPECT_GT(at(block + "downsample.conv"), at(block + "conv2"));  // the file's order
  }
  EXPECT_EQ(g.tasks[at("conv1")].position, 1u);  // conv1 + relu1: its kernel stands at relu1
}

TEST(TopologicalTuning, TasksGoOneAfterAnotherEachToItsShare) {
  // Order by where the kernels run: a, b, then short (which fuses the add of b's output), d.
  // Shares of 22 trials: 22/4 = 5, 17/3 = 5, 12/2 = 6, the last the 6 left; units of 2.
  Tasks t(kResidual, layout::TuningMode::Joint);
  NetworkTuning tuning(t.graph, t.measurements(),
                       plan(SchedulerKind::Topological, layout::TuningMode::Joint, 22));
  tuning.run();
  const std::vector<std::pair<std::string, int>> want = {
      {"a", 2},     {"a", 2},     {"a", 1},     {"b", 2}, {"b", 2}, {"b", 1},
      {"short", 2}, {"short", 2}, {"short", 2}, {"d", 2}, {"d", 2}, {"d", 2}};
  EXPECT_EQ(unitsOf(tuning, t.graph), want);
  EXPECT_EQ(tuning.trials(), 22);
}

TEST(TopologicalTuning, AResidualsReaderTakesTheOutputLayoutItsWriterChose) {
  Tasks t(kResidual, layout::TuningMode::Joint);
  NetworkTuning tuning(t.graph, t.measurements(),
                       plan(SchedulerKind::Topological, layout::TuningMode::Joint, 40));
  tuning.run();
  const std::size_t b = t.index("b"), reader = t.index("short");
  const auto best = tuning.bestConfigs();
  ASSERT_TRUE(best[b] && best[reader]);
  const std::optional<LayoutConstraint>& c = tuning.layoutConstraint(reader);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->by, b);
  EXPECT_EQ(c->tensor, "b");
  EXPECT_EQ(c->outcome, ConstraintOutcome::Applied);
  for (std::size_t other : {t.index("a"), b, t.index("d")})
    EXPECT_FALSE(tuning.layoutConstraint(other).has_value()) << t.graph.tasks[other].name;
  // Every configuration the reader measured, its best among them, writes b's chosen layout: its
  // space holds that layout only.
  EXPECT_EQ(outputLayout(t, reader, *best[reader]), outputLayout(t, b, *best[b]));
  ASSERT_FALSE(t.measurers[reader]->measured.empty());
  for (const Config& m : t.measurers[reader]->measured)
    EXPECT_EQ(outputLayout(t, reader, m), outputLayout(t, b, *best[b]));
  const SearchSpace& narrowed = tuning.space(reader);
  for (const char* name : layout::kConv2DOutputLayoutParams) {
    const auto i = static_cast<std::size_t>(narrowed.indexOf(name));
    EXPECT_EQ(narrowed.param(i).size().as64(), 1u) << name;
    EXPECT_GT(t.defs[reader].space.param(i).size().as64(), 1u) << name;  // the task's own space
  }
  ASSERT_TRUE(narrowed.startPoint().has_value());  // the joint tuner begins from a blocking
  EXPECT_EQ(c->layout, "layout.out_c=" + narrowed.param(0).format((*best[reader])[0]) +
                           "; layout.out_h=" + narrowed.param(1).format((*best[reader])[1]) +
                           "; layout.out_w=" + narrowed.param(2).format((*best[reader])[2]));
}

TEST(TopologicalTuning, OnlyTheTopologicalSchedulerWithPropagationConstrains) {
  for (auto [scheduler, mode] :
       {std::pair{SchedulerKind::Gradient, layout::TuningMode::Joint},
        std::pair{SchedulerKind::RoundRobin, layout::TuningMode::Joint},
        std::pair{SchedulerKind::Topological, layout::TuningMode::JointNoPropagation},
        std::pair{SchedulerKind::Topological, layout::TuningMode::Loop}}) {
    SCOPED_TRACE(std::string(schedulerKindName(scheduler)) + ", " +
                 std::string(layout::tuningModeName(mode)));
    Tasks t(kResidual, mode);
    NetworkTuning tuning(t.graph, t.measurements(), plan(scheduler, mode, 16));
    EXPECT_EQ(tuning.propagatesAcrossTasks(), false);
    tuning.run();
    for (std::size_t i = 0; i < t.graph.tasks.size(); ++i)
      EXPECT_FALSE(tuning.layoutConstraint(i).has_value()) << t.graph.tasks[i].name;
  }
}

TEST(TopologicalTuning, AResumedRunConstrainsTheReaderAgainAndEndsAsIfNeverStopped) {
  // Uninterrupted, then stopped after the reader's first unit and restored from what was
  // measured (as a store resumes it): the same constraint, the same units to the end.
  Tasks whole(kResidual, layout::TuningMode::Joint);
  const NetworkTuningPlan p = plan(SchedulerKind::Topological, layout::TuningMode::Joint, 30);
  NetworkTuning first(whole.graph, whole.measurements(), p);
  first.run();

  Tasks part(kResidual, layout::TuningMode::Joint);
  NetworkTuning stopped(part.graph, part.measurements(), p);
  const std::size_t reader = part.index("short");
  while (stopped.step())
    if (stopped.units().back().task == reader) break;
  std::vector<TaskRestore> restores(part.graph.tasks.size());
  for (std::size_t i = 0; i < restores.size(); ++i) {
    const std::vector<Config>& measured = part.measurers[i]->measured;
    const std::vector<Measurement> again = HashMeasurer().measure(measured);
    for (std::size_t k = 0; k < measured.size(); ++k)
      restores[i].trials.emplace_back(measured[k], again[k]);
  }
  std::vector<UnitRecord> units;
  int before = 0;
  for (const NetworkUnit& u : stopped.units()) {
    units.push_back({u.task, u.trials - before});
    before = u.trials;
  }

  Tasks later(kResidual, layout::TuningMode::Joint);
  NetworkTuning resumed(later.graph, later.measurements(), p);
  EXPECT_TRUE(resumed.restore(restores, units).empty());
  ASSERT_TRUE(resumed.layoutConstraint(reader).has_value());
  EXPECT_EQ(resumed.layoutConstraint(reader)->layout, first.layoutConstraint(reader)->layout);
  const int outC = resumed.space(reader).indexOf("layout.out_c");
  EXPECT_EQ(resumed.space(reader).param(std::size_t(outC)).size().as64(), 1u);
  resumed.run();
  EXPECT_EQ(unitsOf(resumed, later.graph), unitsOf(first, whole.graph));
  for (const Config& m : later.measurers[reader]->measured)
    EXPECT_EQ(outputLayout(later, reader, m),
              outputLayout(whole, reader, *first.bestConfigs()[reader]));
}

TEST(TopologicalTuning, ALayoutThatLeavesNoValidConfigurationLeavesTheSpaceWhole) {
  Tasks t(kResidual, layout::TuningMode::Joint);
  const std::size_t b = t.index("b"), reader = t.index("short");
  std::vector<std::optional<Config>> best(t.graph.tasks.size());
  best[b] = *t.defs[b].space.startPoint();
  std::vector<const SearchSpace*> spaces;
  for (const OperatorDefinition& d : t.defs) spaces.push_back(&d.space);
  const int outC = t.defs[reader].space.indexOf("layout.out_c");

  // The reader's template refusing that very blocking (as a device limit would).
  SearchSpace refusing = t.defs[reader].space;
  const Vertex chosen = (*best[b])[std::size_t(outC)];
  refusing.addConstraint("not b's channel blocking", [outC, chosen](const Config& c) {
    return c[std::size_t(outC)] != chosen;
  });
  const SearchSpace before = refusing;
  const auto c = constrainLayout(t.graph, reader, {t.index("a"), b}, spaces, best, refusing, 1);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->outcome, ConstraintOutcome::NoValidConfiguration);
  EXPECT_EQ(refusing.param(std::size_t(outC)).size().as64(),
            before.param(std::size_t(outC)).size().as64());
  EXPECT_TRUE(refusing.startPoint().has_value());
  const nlohmann::json j = layoutConstraintJson(t.graph, c);
  EXPECT_EQ(j["by"], "b");
  EXPECT_EQ(j["applied"], false);
  EXPECT_EQ(j["outcome"], "no-valid-configuration");
  // With 1x1 inputs pinned, the next link is tried: short reads a's output as its input, and
  // that pin leaves its output channels free.
  std::vector<std::optional<Config>> withA = best;
  withA[t.index("a")] = *t.defs[t.index("a")].space.startPoint();
  SearchSpace next = before;
  const auto fallback =
      constrainLayout(t.graph, reader, {t.index("a"), b}, spaces, withA, next, 1, {true, true});
  ASSERT_TRUE(fallback.has_value());
  EXPECT_EQ(fallback->outcome, ConstraintOutcome::Applied);
  EXPECT_EQ(fallback->link, LinkKind::Input);
  EXPECT_EQ(fallback->by, t.index("a"));

  // Without the refusal the same call pins it; with b not yet tuned nothing constrains it (a,
  // which writes short's 1x1 input, has no configuration here).
  SearchSpace plain = t.defs[reader].space;
  EXPECT_EQ(constrainLayout(t.graph, reader, {t.index("a"), b}, spaces, best, plain, 1)->outcome,
            ConstraintOutcome::Applied);
  EXPECT_EQ(plain.param(std::size_t(outC)).size().as64(), 1u);
  SearchSpace untouched = t.defs[reader].space;
  EXPECT_FALSE(constrainLayout(t.graph, reader, {t.index("a")}, spaces, best, untouched, 1));
  EXPECT_TRUE(layoutConstraintJson(t.graph, std::nullopt).is_null());
  // short reads a's output (ar) as its 1x1 input, as large as b's residual: with 1x1 inputs
  // pinned, on equal sizes the residual decides; with a alone tuned, a's output layout becomes
  // short's input layout.
  best[t.index("a")] = *t.defs[t.index("a")].space.startPoint();
  SearchSpace both = t.defs[reader].space;
  const auto tie =
      constrainLayout(t.graph, reader, {t.index("a"), b}, spaces, best, both, 1, {true, true});
  ASSERT_TRUE(tie.has_value());
  EXPECT_EQ(tie->link, LinkKind::Residual);
  EXPECT_EQ(tie->by, b);
  SearchSpace byA = t.defs[reader].space;
  const auto input =
      constrainLayout(t.graph, reader, {t.index("a")}, spaces, best, byA, 1, {true, true});
  SearchSpace unasked = t.defs[reader].space;  // a run without --pin-inputs
  EXPECT_FALSE(constrainLayout(t.graph, reader, {t.index("a")}, spaces, best, unasked, 1));
  ASSERT_TRUE(input.has_value());
  EXPECT_EQ(input->link, LinkKind::Input);
  EXPECT_EQ(input->tensor, "ar");
}

}  // namespace
}  // namespace opevo::net
