// A 1x1 convolution tuned on the input layout it runs with (net/layout_constraints.h's input link,
// net tune --pin-inputs with --mode joint --scheduler topological): tuned after the task that
// writes its input, its input channel blocks and its output rows and columns are pinned to that
// task's chosen output layout, so that the program passes the producer's buffer to it as it is,
// with the configuration its tuning measured. Unpinned (the default) it tunes a blocking of its
// own, and the program either converts its input or gives it the producer's blocking after
// tuning, untimed.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/rng.h"
#include "layout/conv2d_layout.h"
#include "layout/layout.h"
#include "layout/operand_layouts.h"
#include "net/layout_constraints.h"
#include "net/network_json.h"
#include "net/network_plan.h"
#include "net/network_program.h"
#include "net/network_session.h"
#include "net/network_tuning.h"
#include "net/stored_network_run.h"
#include "net/untuned_configs.h"
#include "old_network_run.h"
#include "store/store.h"
#include "temp_dir.h"
#include "twin_test_support.h"

namespace opevo::net {
namespace {

const std::string kDepthwise = std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_depthwise.json";

// The links a run with --pin-inputs pins.
constexpr PinnedLinks kInputs{true, true};

std::size_t param(const SearchSpace& s, const char* name) {
  const int i = s.indexOf(name);
  EXPECT_GE(i, 0) << name;
  return std::size_t(std::max(i, 0));
}

// Whether the task step of `task` reads `tensor` as its input (another task's buffer, passed as
// it is), not a conversion of it.
bool readsAsItIs(const NetworkProgram& p, const std::string& task, const std::string& tensor) {
  return std::any_of(p.steps.begin(), p.steps.end(), [&](const ProgramStep& s) {
    return s.kind == StepKind::Task && s.name == task &&
           p.tensors[std::size_t(s.in[0].index)].name == tensor;
  });
}

struct DepthwiseBlock {
  Network net = loadNetwork(kDepthwise);
  TaskGraph g = extractTasks(net);
  std::vector<OperatorDefinition> defs;
  std::vector<const SearchSpace*> spaces;
  std::size_t expand = 0, dw = 0, project = 0;
  DepthwiseBlock() {
    for (const Task& t : g.tasks) defs.push_back(taskDefinition(t, layout::TuningMode::Joint));
    for (const OperatorDefinition& d : defs) spaces.push_back(&d.space);
    for (std::size_t i = 0; i < g.tasks.size(); ++i) {
      if (g.tasks[i].name == "expand") expand = i;
      if (g.tasks[i].name == "dw") dw = i;
      if (g.tasks[i].name == "project") project = i;
    }
  }
};

// net_depthwise's projection (1x1, 48 -> 16 channels) reads the depthwise convolution's output.
// dw chose one block of all 48 channels; the projection's own start blocks its input by at most
// 32, so unpinned its input is converted (or its blocking changed after tuning). Pinned, it reads
// dw's buffer as it is, and the program runs the configuration it was tuned with.
TEST(InputLink, AOneByOneReaderTunedAfterItsProducerReadsItsOutputAsItIs) {
  DepthwiseBlock b;
  const std::vector<InputLink> links = inputLinks(b.g);
  ASSERT_EQ(links.size(), 1u);  // expand reads the image, which no task writes
  EXPECT_EQ(links[0].writer, b.dw);
  EXPECT_EQ(links[0].reader, b.project);
  EXPECT_EQ(links[0].tensor, "dw_relu");
  EXPECT_EQ(links[0].stride, 1);

  std::vector<std::optional<Config>> best(b.g.tasks.size());
  best[b.expand] = *b.defs[b.expand].space.startPoint();
  Config dwChoice = *b.defs[b.dw].space.startPoint();
  const SearchSpace& dws = b.defs[b.dw].space;
  dwChoice[param(dws, "layout.out_c")] = {1, 48};
  ASSERT_TRUE(dws.contains(dwChoice));
  best[b.dw] = dwChoice;

  SearchSpace space = b.defs[b.project].space;
  const auto c =
      constrainLayout(b.g, b.project, {b.expand, b.dw}, b.spaces, best, space, 1, kInputs);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->outcome, ConstraintOutcome::Applied);
  EXPECT_EQ(c->link, LinkKind::Input);
  EXPECT_EQ(c->by, b.dw);
  EXPECT_EQ(c->tensor, "dw_relu");
  const nlohmann::json j = layoutConstraintJson(b.g, c);
  EXPECT_EQ(j["link"], "input");
  EXPECT_EQ(j["output_layout"].get<std::string>().rfind("layout.in_c=1,48; layout.out_h=", 0), 0u)
      << j.dump();
  for (const char* name : {"layout.in_c", "layout.out_h", "layout.out_w"})
    EXPECT_EQ(space.param(param(space, name)).size().as64(), 1u) << name;
  EXPECT_GT(space.param(param(space, "layout.out_c")).size().as64(), 1u);
  ASSERT_TRUE(space.startPoint().has_value());

  // The projection's input layout is dw's output layout, and the program passes the buffer.
  const Config pinned = *space.startPoint();
  EXPECT_TRUE(layout::sameMapping(layout::operandLayouts(b.defs[b.project].op, space, pinned).a,
                                  layout::operandLayouts(b.defs[b.dw].op, dws, dwChoice).c));
  std::vector<Config> configs = untunedConfigs(b.g, layout::TuningMode::Joint);
  configs[b.expand] = *best[b.expand];
  configs[b.dw] = dwChoice;
  configs[b.project] = pinned;
  const NetworkProgram p = buildNetworkProgram(b.net, b.g, configs, layout::TuningMode::Joint, 3);
  EXPECT_TRUE(readsAsItIs(p, "project", "dw.laid_out"));
  EXPECT_EQ(p.configs[b.project], pinned);  // what its tuning measured

  // Its own start, unpinned: the program had to convert or change it.
  configs[b.project] = *b.defs[b.project].space.startPoint();
  ASSERT_NE(configs[b.project], pinned);
  const NetworkProgram own = buildNetworkProgram(b.net, b.g, configs, layout::TuningMode::Joint, 3);
  EXPECT_TRUE(!readsAsItIs(own, "project", "dw.laid_out") ||
              own.configs[b.project] != configs[b.project]);

  // A run that did not ask for the pin (PinnedLinks::input false), or dw not tuned yet: nothing.
  SearchSpace untouched = b.defs[b.project].space;
  EXPECT_FALSE(constrainLayout(b.g, b.project, {b.expand, b.dw}, b.spaces, best, untouched, 1));
  EXPECT_FALSE(constrainLayout(b.g, b.project, {b.expand}, b.spaces, best, untouched, 1, kInputs));
  EXPECT_GT(untouched.param(param(untouched, "layout.in_c")).size().as64(), 1u);
}

// The program does not undo, after tuning, a residual the reader reads as it is for an input as
// large or smaller: net_residual_producer's short (1x1) reads a's output and adds b's, both
// 16x12x12. With b writing short's output layout and a another row blocking short's loops would
// take, the program gives short a's blocking only where b can follow it into short's new output
// layout (its loops fitting), both links kept; where b cannot, it used to give short a's blocking
// all the same (a configuration it was not timed with) and convert the residual, and now keeps
// short as tuned. Where a's output is four times the residual (net_residual_producer_wide), short
// takes a's blocking whether or not b can follow: the residual is the smaller conversion.
TEST(InputLink, TheProgramKeepsAResidualReadAsItIsOverAnInputNoLarger) {
  for (const bool wide : {false, true}) {
    SCOPED_TRACE(wide ? "input larger than the residual" : "input as large as the residual");
    const Network net =
        loadNetwork(std::string(OPEVO_SOURCE_DIR) + "/tests/data/" +
                    (wide ? "net_residual_producer_wide" : "net_residual_producer") + ".json");
    const TaskGraph g = extractTasks(net);
    std::vector<OperatorDefinition> defs;
    for (const Task& t : g.tasks) defs.push_back(taskDefinition(t, layout::TuningMode::Joint));
    const auto at = [&](const std::string& name) {
      std::size_t i = 0;
      while (g.tasks.at(i).name != name) ++i;
      return i;
    };
    const std::size_t a = at("a"), b = at("b"), reader = at("short");
    const SearchSpace &as = defs[a].space, &bs = defs[b].space, &ss = defs[reader].space;
    const auto outputOf = [&](const SearchSpace& space, const Config& c) {
      std::vector<Vertex> out;
      for (const char* name : layout::kConv2DOutputLayoutParams)
        out.push_back(c[param(space, name)]);
      return out;
    };
    for (const bool follows : {false, true}) {
      SCOPED_TRACE(follows ? "b can follow" : "b cannot follow");
      std::vector<Config> configs = untunedConfigs(g, layout::TuningMode::Joint);
      Config adopted;
      Rng rng(7);
      bool found = false;
      for (int tries = 0; tries < 5000 && !found; ++tries) {
        const Config ca = *as.randomValid(rng), cb = *bs.randomValid(rng);
        Config cs = *ss.randomValid(rng);
        for (const char* name : layout::kConv2DOutputLayoutParams)
          cs[param(ss, name)] = cb[param(bs, name)];
        adopted = cs;
        for (const auto& [mine, theirs] :
             {std::pair{"layout.in_c", "layout.out_c"}, std::pair{"layout.out_h", "layout.out_h"},
              std::pair{"layout.out_w", "layout.out_w"}})
          adopted[param(ss, mine)] = ca[param(as, theirs)];
        Config follow = cb;
        for (const char* name : layout::kConv2DOutputLayoutParams)
          follow[param(bs, name)] = adopted[param(ss, name)];
        // Another output layout, not the same one written otherwise (whole rows split another
        // way), which the residual would still be read in.
        if (!ss.satisfies(cs) || !ss.satisfies(adopted) || bs.satisfies(follow) != follows ||
            layout::sameMapping(layout::operandLayouts(g.tasks[reader].op, ss, adopted).c,
                                layout::operandLayouts(g.tasks[reader].op, ss, cs).c))
          continue;
        configs[a] = ca;
        configs[b] = cb;
        configs[reader] = cs;
        found = true;
      }
      ASSERT_TRUE(found);
      const NetworkProgram p = buildNetworkProgram(net, g, configs, layout::TuningMode::Joint, 3);
      const bool takesInput = follows || wide;
      EXPECT_EQ(p.configs[reader], takesInput ? adopted : configs[reader]);
      if (follows) {
        EXPECT_EQ(outputOf(bs, p.configs[b]), outputOf(ss, adopted));
      }
      bool residualAsItIs = false;
      for (const ProgramStep& s : p.steps)
        if (s.kind == StepKind::Task && s.name == "short")
          residualAsItIs = p.tensors[std::size_t(s.in[3].index)].name == "b.laid_out";
      EXPECT_EQ(residualAsItIs, follows || !wide);
      EXPECT_EQ(readsAsItIs(p, "short", "a.laid_out"), takesInput);
    }
  }
}

// A grouped 1x1 convolution (2 groups) has no layout template (its loops are tuned on plain
// layouts), so neither tuning nor the program ties it to its producer's layout
// (layout::readsProducerLayout): no input link, and its input is read converted.
TEST(InputLink, AGroupedOneByOneReaderIsNotLinked) {
  const Network net =
      loadNetwork(std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_grouped_1x1.json");
  const TaskGraph g = extractTasks(net);
  ASSERT_EQ(g.tasks.size(), 2u);
  EXPECT_EQ(g.tasks[1].op.groups, 2);
  EXPECT_FALSE(layout::readsProducerLayout(g.tasks[1].op));
  EXPECT_TRUE(inputLinks(g).empty());
  const NetworkProgram p = buildNetworkProgram(net, g, untunedConfigs(g, layout::TuningMode::Joint),
                                               layout::TuningMode::Joint, 3);
  EXPECT_FALSE(readsAsItIs(p, "g", "a.laid_out"));
}

// A stride-2 reader (ResNet-18's downsampling 1x1) reads 2t of its producer's rows per t output
// rows: a producer's row blocks of 4 become its blocks of 2; blocks of one row cannot be halved,
// and then nothing is pinned.
TEST(InputLink, AStridedReaderTakesHalfItsProducersRowBlocks) {
  const Network net = loadNetwork("resnet18");
  const TaskGraph g = extractTasks(net);
  const std::vector<InputLink> links = inputLinks(g);
  const auto it = std::find_if(links.begin(), links.end(), [&](const InputLink& l) {
    return g.tasks[l.reader].name == "layer2.0.downsample.conv";
  });
  ASSERT_NE(it, links.end());
  EXPECT_EQ(it->stride, 2);
  std::vector<OperatorDefinition> defs;
  for (const Task& t : g.tasks) defs.push_back(taskDefinition(t, layout::TuningMode::Joint));
  std::vector<const SearchSpace*> spaces;
  for (const OperatorDefinition& d : defs) spaces.push_back(&d.space);
  const SearchSpace& ws = defs[it->writer].space;  // 64 x 56 x 56
  Config chosen = *ws.startPoint();
  chosen[param(ws, "layout.out_h")] = {14, 4};
  chosen[param(ws, "layout.out_w")] = {14, 4};
  ASSERT_TRUE(ws.contains(chosen));
  std::vector<std::optional<Config>> best(g.tasks.size());
  best[it->writer] = chosen;

  SearchSpace space = defs[it->reader].space;  // 28 x 28 out
  const auto c = constrainLayout(g, it->reader, {it->writer}, spaces, best, space, 1, kInputs);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->link, LinkKind::Input);
  EXPECT_EQ(c->outcome, ConstraintOutcome::Applied);
  const auto only = [&](const char* name, const Vertex& v) {
    const opevo::Parameter& q = space.param(param(space, name));
    EXPECT_EQ(q.size().as64(), 1u) << name;
    EXPECT_TRUE(q.contains(v)) << name;
  };
  only("layout.out_h", {14, 2});
  only("layout.out_w", {14, 2});
  only("layout.in_c", chosen[param(ws, "layout.out_c")]);

  chosen[param(ws, "layout.out_h")] = {56, 1};
  best[it->writer] = chosen;
  SearchSpace odd = defs[it->reader].space;
  EXPECT_FALSE(constrainLayout(g, it->reader, {it->writer}, spaces, best, odd, 1, kInputs));
}

// MobileNetV2's projections that add the block's input read a depthwise output six times the
// residual's size: the input link decides, though the residual's writer was tuned first (the
// larger conversion saved). Every such task of the network.
TEST(InputLink, TheLargerTensorsLinkDecides) {
  const Network net = loadNetwork("mobilenet_v2");
  const TaskGraph g = extractTasks(net);
  std::vector<OperatorDefinition> defs;
  for (const Task& t : g.tasks) defs.push_back(taskDefinition(t, layout::TuningMode::Joint));
  std::vector<const SearchSpace*> spaces;
  std::vector<std::optional<Config>> best;
  for (const OperatorDefinition& d : defs) {
    spaces.push_back(&d.space);
    best.push_back(d.space.startPoint());
  }
  int checked = 0;
  for (const InputLink& in : inputLinks(g))
    for (const ResidualLink& r : residualLinks(g)) {
      if (r.reader != in.reader || r.writer == in.writer) continue;
      SCOPED_TRACE(g.tasks[in.reader].name);
      ASSERT_GT(g.tasks[in.writer].op.outputElements(), g.tasks[in.reader].op.outputElements());
      SearchSpace space = defs[in.reader].space;
      const auto c =
          constrainLayout(g, in.reader, {r.writer, in.writer}, spaces, best, space, 1, kInputs);
      ASSERT_TRUE(c.has_value());
      EXPECT_EQ(c->link, LinkKind::Input);
      EXPECT_EQ(c->by, in.writer);
      ++checked;
    }
  EXPECT_GE(checked, 3);
}

// Tuned in topological order with the pin asked for (a stand-in timing): every configuration the
// projection measured reads dw's chosen output layout as it is; the plan keeps the choice as
// stored, and a plan without it (the default, and every run stored before the field) tunes the
// projection freely.
TEST(InputLink, TopologicalTuningPinsTheReaderAndAnOldPlanDoesNot) {
  using twintest::Tasks;
  NetworkTuningPlan p;
  p.algorithm = "opevo-m";
  p.seed = 5;
  p.trials = 30;
  p.unit = 2;
  p.scheduler = SchedulerKind::Topological;
  p.mode = layout::TuningMode::Joint;
  p.inputPins = true;
  Tasks t(kDepthwise, layout::TuningMode::Joint);
  NetworkTuning tuning(t.graph, t.measurements(), p);
  tuning.run();
  const std::size_t dw = t.index("dw"), project = t.index("project");
  const auto best = tuning.bestConfigs();
  ASSERT_TRUE(best[dw] && best[project]);
  ASSERT_TRUE(tuning.layoutConstraint(project).has_value());
  EXPECT_EQ(tuning.layoutConstraint(project)->link, LinkKind::Input);
  const layout::Layout written =
      layout::operandLayouts(t.defs[dw].op, t.defs[dw].space, *best[dw]).c;
  ASSERT_FALSE(t.measurers[project]->measured.empty());
  for (const Config& m : t.measurers[project]->measured)
    EXPECT_TRUE(layout::sameMapping(
        layout::operandLayouts(t.defs[project].op, t.defs[project].space, m).a, written));

  // The plan as stored, and as a run stored before the pin reads it back.
  nlohmann::json stored = planToJson(p);
  EXPECT_TRUE(planFromJson(stored.dump(), "").inputPins);
  stored.erase("input_pin");
  NetworkTuningPlan old = planFromJson(stored.dump(), "");
  EXPECT_FALSE(old.inputPins);
  Tasks again(kDepthwise, layout::TuningMode::Joint);
  NetworkTuning unpinned(again.graph, again.measurements(), old);
  unpinned.run();
  EXPECT_FALSE(unpinned.layoutConstraint(project).has_value());
}

// A run tuned with the pin and interrupted after its projection's first unit pins it again on
// resume (the plan as stored decides, from the restored choices of the tasks before it): every
// trial of the projection, before and after the resume, in the pinned space. One tuned without
// it resumes without it, the projection tuned over its whole space.
TEST(InputLink, AResumeKeepsThePlansChoice) {
  for (const bool pinned : {true, false}) {
    SCOPED_TRACE(pinned ? "tuned with --pin-inputs" : "tuned without");
    test::TempDir dir;
    const std::string db = dir.file("runs.db");
    // expand's two units, dw's two, project's first: project began (pinned or not) before the
    // interruption, and its first trials are stored.
    const std::int64_t id =
        test::tuneNetworkAndInterrupt(db, kDepthwise, layout::TuningMode::Joint, 20, 5, pinned);
    Store store(db);
    EXPECT_EQ(readStoredNetworkRun(store, id).planNote, "");  // nothing differs from a new run
    NetworkSession s(store, id, test::quickNetworkTiming());
    EXPECT_EQ(s.source().plan.inputPins, pinned);
    std::size_t project = 0;
    while (s.graph().tasks.at(project).name != "project") ++project;
    while (s.step()) {
    }
    EXPECT_EQ(s.tuning().trials(), 20);
    const auto& c = s.tuning().layoutConstraint(project);
    EXPECT_EQ(c.has_value(), pinned);
    if (c) {
      EXPECT_EQ(c->link, LinkKind::Input);
    }
    const SearchSpace& space = s.tuning().space(project);
    EXPECT_EQ(space.param(param(space, "layout.in_c")).size().as64() == 1, pinned);
    const std::vector<TrialRow> trials =
        store.trials(s.tuning().engine(project).runs().front().storeId);
    EXPECT_FALSE(trials.empty());
    for (const TrialRow& t : trials) EXPECT_TRUE(space.contains(space.parse(t.config))) << t.config;
  }
}

}  // namespace
}  // namespace opevo::net
