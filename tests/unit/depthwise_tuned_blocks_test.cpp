// A depthwise convolution tuned on the channel blocks it runs with (net/layout_constraints.h,
// --mode joint --scheduler topological): its layout.out_c is pinned to its producer's chosen one
// (or its producer's to its own, when the producer is tuned after it), so that the program, which
// gives a depthwise convolution its producer's channel blocks (gpu/net/network_program.cpp), runs
// the configuration the task's tuning measured and has nothing left to change in it.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "codegen/cpu_compiler.h"
#include "column_tiles.h"
#include "cpu/operator_buffers.h"
#include "layout/conv2d_layout.h"
#include "net/cpu_network.h"
#include "net/layout_constraints.h"
#include "net/network_json.h"
#include "net/network_program.h"
#include "net/network_session.h"
#include "net/network_tuning.h"
#include "net/untuned_configs.h"
#include "network_test_util.h"
#include "store/store.h"
#include "twin_test_support.h"

namespace opevo::net {
namespace {

const std::string kDepthwise = std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_depthwise.json";

using test::taskNamed;

Vertex outC(const SearchSpace& space, const Config& c) {
  return c[std::size_t(space.indexOf("layout.out_c"))];
}

const std::string kDwBlocks =
    "dw takes the channel blocks of its input (expand_relu) as expand writes them: ";
const std::string kDwCopies = kDwBlocks + "its conversion copies whole blocks";
const std::string kDwReads = kDwBlocks + "it reads them as they are, with no conversion";

bool says(const std::vector<std::string>& sentences, const std::string& sentence) {
  return std::find(sentences.begin(), sentences.end(), sentence) != sentences.end();
}

// net_depthwise tuned for real on this CPU (two trials a task, in topological order): dw was
// tuned with the expansion's chosen channel blocks, every trial of it; its stored best
// configuration is the one the program runs, which says it reads the expansion's buffer as it is
// (the expansion's best writes whole rows) or that its conversion copies whole blocks, and the
// program computes what the loop program computes. Before the constraint, dw tuned its own
// blocking (its start: 16 channels) and the program ran it on the expansion's (48).
TEST(DepthwiseTunedBlocks, TheDepthwiseTasksStoredBestIsWhatTheProgramRuns) {
  TempDir dir("opevo-dw-tuned");
  Store store(dir.path() + "/opevo.db");
  NetworkSource src;
  src.source = kDepthwise;
  src.text = networkText(kDepthwise);
  src.plan.trials = 10;
  src.plan.unit = 2;
  src.plan.seed = 3;
  src.plan.scheduler = SchedulerKind::Topological;
  src.plan.mode = layout::TuningMode::Joint;
  BackendOptions options;
  options.cpu.timing.minTotalMs = 1;
  NetworkSession session(store, std::move(src), options);
  while (session.step()) {
  }
  const TaskGraph& g = session.graph();
  const std::size_t expand = taskNamed(g, "expand"), dw = taskNamed(g, "dw");
  ASSERT_LT(expand, dw);  // the expansion runs, and is tuned, first
  const std::optional<LayoutConstraint>& lc = session.tuning().layoutConstraint(dw);
  ASSERT_TRUE(lc.has_value());
  EXPECT_EQ(lc->by, expand);
  EXPECT_EQ(lc->link, LinkKind::DepthwiseInput);
  EXPECT_EQ(lc->tensor, "expand_relu");
  EXPECT_EQ(lc->outcome, ConstraintOutcome::Applied);
  const std::vector<std::optional<Config>> best = session.tuning().bestConfigs();
  ASSERT_TRUE(best[expand] && best[dw]);
  const Vertex chosen = outC(session.space(expand), *best[expand]);
  EXPECT_EQ(lc->layout,
            "layout.out_c=" + session.space(expand)
                                  .param(std::size_t(session.space(expand).indexOf("layout.out_c")))
                                  .format(chosen));

  // Every trial stored for dw has the expansion's blocks; the best of them is the one tuned.
  const std::vector<TrialRow> rows =
      store.trials(session.tuning().engine(dw).runs().front().storeId);
  ASSERT_GE(rows.size(), 2u);
  const TrialRow* stored = nullptr;
  for (const TrialRow& t : rows) {
    EXPECT_EQ(outC(session.space(dw), session.space(dw).parse(t.config)), chosen) << t.config;
    if (t.status == TrialStatus::Ok && (!stored || t.speed > stored->speed)) stored = &t;
  }
  ASSERT_NE(stored, nullptr);
  EXPECT_EQ(session.space(dw).format(*best[dw]), stored->config);

  // The program runs that configuration, as the tuning measured it, and says why its input
  // costs little or nothing.
  const Network& n = session.network();
  CpuNetworkRun joint(n, g, session.configs(), layout::TuningMode::Joint, 3);
  ASSERT_EQ(joint.program().configs.size(), g.tasks.size());
  EXPECT_EQ(session.space(dw).format(joint.program().configs[dw]), stored->config);
  // Read as it is where the expansion's chosen tiles lay its rows out as the image does (whole
  // rows, or one row each), so that the program has no conversion step for dw.
  bool convertsDw = false;
  for (const ProgramStep& s : joint.program().steps)
    convertsDw = convertsDw || (s.kind == StepKind::Convert && s.name == "dw");
  EXPECT_TRUE(says(joint.adoptedLayouts(), convertsDw ? kDwCopies : kDwReads))
      << ::testing::PrintToString(joint.adoptedLayouts());
  CpuNetworkRun loop(n, g, untunedConfigs(g, layout::TuningMode::Loop), layout::TuningMode::Loop,
                     3);
  EXPECT_LT(maxRelativeError(joint.forward(), loop.forward()), 1e-5);
}

// The constraint alone, both ways round, on net_depthwise's spaces: dw tuned after the expansion
// takes its chosen channel blocks; the expansion tuned after dw (as where dw's first occurrence
// read a tensor no task writes) is tied to dw's. Only layout.out_c is pinned: the rows and
// columns stay free. In loop mode there is nothing to pin.
TEST(DepthwiseTunedBlocks, TheChannelBlockingIsPinnedEitherWayRound) {
  const Network n = loadNetwork(kDepthwise);
  const TaskGraph g = extractTasks(n);
  const std::size_t expand = taskNamed(g, "expand"), dw = taskNamed(g, "dw"),
                    project = taskNamed(g, "project"), dw2 = taskNamed(g, "dw2");
  const std::vector<DepthwiseLink> links = depthwiseLinks(g);
  ASSERT_EQ(links.size(), 2u);
  EXPECT_EQ(links[0].writer, expand);
  EXPECT_EQ(links[0].reader, dw);
  EXPECT_EQ(links[0].tensor, "expand_relu");
  EXPECT_EQ(links[1].writer, project);  // its kernel writes the residual add fused into it
  EXPECT_EQ(links[1].reader, dw2);
  EXPECT_EQ(links[1].tensor, "residual");

  std::vector<OperatorDefinition> defs;
  for (const Task& t : g.tasks) defs.push_back(taskDefinition(t, layout::TuningMode::Joint));
  std::vector<const SearchSpace*> spaces;
  for (const OperatorDefinition& d : defs) spaces.push_back(&d.space);
  std::vector<std::optional<Config>> best(g.tasks.size());
  best[expand] = *defs[expand].space.startPoint();
  best[dw] = *defs[dw].space.startPoint();
  const Vertex expandBlocks = outC(defs[expand].space, *best[expand]);
  const Vertex dwBlocks = outC(defs[dw].space, *best[dw]);
  ASSERT_NE(expandBlocks, dwBlocks);  // 48 channels by 48, and by 16

  SearchSpace reader = defs[dw].space;
  const auto c = constrainLayout(g, dw, {expand}, spaces, best, reader, 1);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->outcome, ConstraintOutcome::Applied);
  EXPECT_EQ(c->by, expand);
  const nlohmann::json j = layoutConstraintJson(g, c);
  EXPECT_EQ(j["link"], "depthwise-input");
  EXPECT_EQ(j["tensor"], "expand_relu");
  EXPECT_EQ(j["output_layout"].get<std::string>().rfind("layout.out_c=", 0), 0u) << j.dump();
  EXPECT_EQ(j["output_layout"].get<std::string>().find(';'), std::string::npos) << j.dump();
  const auto at = [](const SearchSpace& s, const char* name) {
    return std::size_t(s.indexOf(name));
  };
  EXPECT_EQ(reader.param(at(reader, "layout.out_c")).size().as64(), 1u);
  EXPECT_EQ(outC(reader, *reader.startPoint()), expandBlocks);
  EXPECT_GT(reader.param(at(reader, "layout.out_h")).size().as64(), 1u);
  EXPECT_GT(reader.param(at(reader, "layout.out_w")).size().as64(), 1u);

  SearchSpace producer = defs[expand].space;
  const auto r = constrainLayout(g, expand, {dw}, spaces, best, producer, 1);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->outcome, ConstraintOutcome::Applied);
  EXPECT_EQ(r->by, dw);
  EXPECT_EQ(r->link, LinkKind::DepthwiseInput);
  EXPECT_EQ(producer.param(at(producer, "layout.out_c")).size().as64(), 1u);
  EXPECT_EQ(outC(producer, *producer.startPoint()), dwBlocks);
  EXPECT_GT(producer.param(at(producer, "layout.out_h")).size().as64(), 1u);

  // Tasks no link joins, or a task not tuned yet, constrain nothing; loop spaces have no layout.
  SearchSpace untouched = defs[dw].space;
  EXPECT_FALSE(constrainLayout(g, dw, {project}, spaces, best, untouched, 1));
  std::vector<std::optional<Config>> none(g.tasks.size());
  EXPECT_FALSE(constrainLayout(g, dw, {expand}, spaces, none, untouched, 1));
  SearchSpace loop = taskDefinition(g.tasks[dw], layout::TuningMode::Loop).space;
  EXPECT_FALSE(constrainLayout(g, dw, {expand}, spaces, best, loop, 1));
}

// A depthwise task tuned on its producer's blocks: the program changes nothing in its
// configuration and still says what it saves: where the producer splits its columns, that its
// conversion copies whole blocks (192 bytes: 48 floats); where it writes whole rows, that it
// reads the producer's buffer as it is.
TEST(DepthwiseTunedBlocks, AProgramWithNothingToChangeStillSaysWhatItSaves) {
  const Network n = loadNetwork(kDepthwise);
  const TaskGraph g = extractTasks(n);
  const std::size_t expand = taskNamed(g, "expand"), dw = taskNamed(g, "dw");
  std::vector<Config> configs = untunedConfigs(g, layout::TuningMode::Joint);
  const SearchSpace es = taskDefinition(g.tasks[expand], layout::TuningMode::Joint).space;
  const Config wholeRows = configs[expand];
  configs[expand] = test::withColumnTiles(es, configs[expand], 2);
  SearchSpace ds = taskDefinition(g.tasks[dw], layout::TuningMode::Joint).space;
  std::vector<std::optional<Config>> best(g.tasks.size());
  best[expand] = configs[expand];
  std::vector<const SearchSpace*> spaces(g.tasks.size(), nullptr);
  spaces[expand] = &es;
  ASSERT_EQ(constrainLayout(g, dw, {expand}, spaces, best, ds, 1)->outcome,
            ConstraintOutcome::Applied);
  configs[dw] = *ds.startPoint();  // what the tuning of dw starts from, and measures

  const NetworkProgram p = buildNetworkProgram(n, g, configs, layout::TuningMode::Joint, 3);
  EXPECT_EQ(p.configs[dw], configs[dw]);
  EXPECT_TRUE(says(p.adopted, kDwCopies)) << ::testing::PrintToString(p.adopted);
  bool copies = false;
  for (const ProgramStep& s : p.steps)
    if (s.kind == StepKind::Convert && s.name == "dw") {
      EXPECT_EQ(p.tensors[std::size_t(s.in[0].index)].name, "expand.laid_out");
      const std::size_t at = p.source.find("void " + s.entry + "(");
      ASSERT_NE(at, std::string::npos) << s.entry;
      const std::string body = p.source.substr(at, p.source.find("\n}", at) - at);
      copies = body.find(", 192);") != std::string::npos;
    }
  EXPECT_TRUE(copies);

  configs[expand] = wholeRows;
  const NetworkProgram q = buildNetworkProgram(n, g, configs, layout::TuningMode::Joint, 3);
  EXPECT_EQ(q.configs[dw], configs[dw]);
  EXPECT_TRUE(says(q.adopted, kDwReads)) << ::testing::PrintToString(q.adopted);
  for (const ProgramStep& s : q.steps) EXPECT_FALSE(s.kind == StepKind::Convert && s.name == "dw");
}

// Two blocks whose expansions are twins (one operator, relu against relu6) and whose depthwise
// convolutions are too. Tuned in topological order, each depthwise task is pinned to its
// expansion's blocks, so an expansion must keep its choice: no closing round for it (a new best
// of other blocks would leave its reader on blocks it no longer writes), as for a residual's
// producer; the depthwise tasks, tuned after, still take part. Side by side (gradient) nothing is
// pinned and all four do.
TEST(DepthwiseTunedBlocks, AnExpansionADepthwiseTaskWasPinnedToKeepsItsChoice) {
  const std::string file = std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_dw_twins.json";
  NetworkTuningPlan p;
  p.algorithm = "opevo-m";
  p.seed = 5;
  p.trials = 40;
  p.unit = 2;
  p.mode = layout::TuningMode::Joint;
  p.scheduler = SchedulerKind::Gradient;
  {
    twintest::Tasks t(file, layout::TuningMode::Joint);
    ASSERT_EQ(t.twinNames("e1"), std::vector<std::string>{"e2"});
    ASSERT_EQ(t.twinNames("dw1"), std::vector<std::string>{"dw2"});
    const NetworkTuning side(t.graph, t.measurements(), p);
    EXPECT_EQ(side.closingReserve(), int(4 * kTwinConfigsPerUnit));
  }
  p.scheduler = SchedulerKind::Topological;
  twintest::Tasks t(file, layout::TuningMode::Joint);
  NetworkTuning tuning(t.graph, t.measurements(), p);
  EXPECT_EQ(tuning.closingReserve(), int(2 * kTwinConfigsPerUnit));
  tuning.run();
  for (const NetworkUnit& u : tuning.units())
    if (u.closing) {
      EXPECT_TRUE(u.task == t.index("dw1") || u.task == t.index("dw2")) << u.task;
    }
  // Each depthwise task measured its expansion's final choice of blocks alone.
  for (const auto& [e, dw] : {std::pair{"e1", "dw1"}, std::pair{"e2", "dw2"}}) {
    const std::size_t writer = t.index(e), reader = t.index(dw);
    const Vertex chosen = outC(tuning.space(writer), *tuning.bestConfigs()[writer]);
    ASSERT_FALSE(t.measurers[reader]->measured.empty());
    for (const Config& c : t.measurers[reader]->measured)
      EXPECT_EQ(outC(tuning.space(reader), c), chosen) << dw;
  }
}

}  // namespace
}  // namespace opevo::net
