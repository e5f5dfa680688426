// The closing round of twin tasks (NetworkTuning): a network's tuning ends with every task with
// twins having measured its twins' final best configurations, within the budget, and a resume
// replays the round's units as they went. Measured by twintest::HashMeasurer (a configuration is
// as fast on both twins), so these check what is measured and when.

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "net/network_plan.h"
#include "net/tuning_budget.h"
#include "twin_test_support.h"

namespace opevo::net {
namespace {

using twintest::allDistinct;
using twintest::fastestOf;
using twintest::kTwins;
using twintest::plan;
using twintest::Resumed;
using twintest::Tasks;

bool holds(const std::vector<Config>& measured, const Config& c) {
  return std::find(measured.begin(), measured.end(), c) != measured.end();
}

// Whether `task` measured the best two configurations of `twin` (by what each measured).
bool measuredTheTwinsBestTwo(const Tasks& t, std::size_t task, std::size_t twin) {
  const std::vector<Config> theirs = fastestOf(t.measurers[twin]->measured);
  for (std::size_t k = 0; k < std::min<std::size_t>(2, theirs.size()); ++k)
    if (!holds(t.measurers[task]->measured, theirs[k])) return false;
  return true;
}

std::size_t firstClosingUnit(const NetworkTuning& tuning) {
  for (std::size_t u = 0; u < tuning.units().size(); ++u)
    if (tuning.units()[u].closing) return u;
  return tuning.units().size();
}

TEST(TwinClosingRound, ATwinsBestFoundAfterTheOthersLastUnitIsMeasuredThereWithinTheBudget) {
  // Topological: a is tuned to its share before b begins, so b's finds come after a's last unit.
  // For this seed b's tuner beat the two configurations of a it began with.
  NetworkTuningPlan p = plan(SchedulerKind::Topological, 40);
  p.seed = 11;
  {
    // Without the round (as runs stored before it): b's best is a configuration a never measured.
    p.closingRound = false;
    Tasks t(kTwins);
    NetworkTuning tuning(t.graph, t.measurements(), p);
    tuning.run();
    const std::size_t a = t.index("a"), b = t.index("b");
    EXPECT_EQ(tuning.trials(), 40);
    ASSERT_FALSE(holds(t.measurers[a]->measured, *tuning.engine(b).runs().front().bestConfig));
    p.closingRound = true;
  }
  Tasks t(kTwins);
  const std::size_t a = t.index("a"), b = t.index("b");
  NetworkTuning tuning(t.graph, t.measurements(), p);
  EXPECT_EQ(tuning.closingReserve(), 4);  // two tasks with twins, two configurations each
  tuning.run();
  // Each twin measured the other's final best two; no configuration twice; within the budget.
  EXPECT_TRUE(measuredTheTwinsBestTwo(t, a, b));
  EXPECT_TRUE(measuredTheTwinsBestTwo(t, b, a));
  EXPECT_TRUE(holds(t.measurers[a]->measured, *tuning.engine(b).runs().front().bestConfig));
  for (const auto& m : t.measurers) EXPECT_TRUE(allDistinct(m->measured));
  EXPECT_LE(tuning.trials(), 40);
  // The scheduler handed out the budget less the reserve, then a's closing unit: b's best two.
  const std::size_t first = firstClosingUnit(tuning);
  ASSERT_LT(first, tuning.units().size());
  EXPECT_EQ(tuning.units()[first - 1].trials, 36);
  const NetworkUnit& closing = tuning.units()[first];
  EXPECT_EQ(closing.task, a);
  EXPECT_EQ(closing.fromTwins, (std::vector<std::size_t>{b, b}));
  EXPECT_EQ(tuning.trials(), 38);
  for (std::size_t u = first; u < tuning.units().size(); ++u) {
    const NetworkUnit& unit = tuning.units()[u];
    EXPECT_TRUE(unit.closing);
    EXPECT_TRUE(unit.task == a || unit.task == b);
    EXPECT_LE(unit.fromTwins.size(), kTwinConfigsPerUnit);
  }
}

TEST(TwinClosingRound, UnderTheGradientPolicyTheRestOfTheReserveGoesToTasksWithoutTwins) {
  Tasks t(kTwins);
  const std::size_t a = t.index("a"), b = t.index("b");
  NetworkTuning tuning(t.graph, t.measurements(), plan(SchedulerKind::Gradient, 80));
  tuning.run();
  EXPECT_EQ(tuning.trials(), 80);  // the whole budget
  EXPECT_TRUE(measuredTheTwinsBestTwo(t, a, b));
  EXPECT_TRUE(measuredTheTwinsBestTwo(t, b, a));
  for (const auto& m : t.measurers) EXPECT_TRUE(allDistinct(m->measured));
  // After the round begins, no unit goes to a task with twins but the round's own.
  const std::size_t first = firstClosingUnit(tuning);
  EXPECT_EQ(tuning.units()[first - 1].trials, 76);
  for (std::size_t u = first; u < tuning.units().size(); ++u) {
    const NetworkUnit& unit = tuning.units()[u];
    EXPECT_EQ(unit.closing, unit.task == a || unit.task == b) << "unit " << u + 1;
  }
}

TEST(TwinClosingRound, TheReserveNeverLeavesATaskWithoutATrial) {
  // 4 tasks, 2 with twins: units of 4 reach every task with 16 trials, one trial each with 4.
  EXPECT_EQ(closingReserve(4, 2, plan(SchedulerKind::Gradient, 16)), 0);
  EXPECT_EQ(closingReserve(4, 2, plan(SchedulerKind::Gradient, 19)), 3);
  EXPECT_EQ(closingReserve(4, 2, plan(SchedulerKind::Gradient, 80)), 4);
  EXPECT_EQ(closingReserve(4, 2, plan(SchedulerKind::Topological, 5)), 1);
  EXPECT_EQ(closingReserve(4, 0, plan(SchedulerKind::Gradient, 80)), 0);
  NetworkTuningPlan without = plan(SchedulerKind::Gradient, 80);
  without.closingRound = false;
  EXPECT_EQ(closingReserve(4, 2, without), 0);
  // A budget with no room for the round still measures it with what the scheduler left: none.
  Tasks t(kTwins);
  NetworkTuning tuning(t.graph, t.measurements(), plan(SchedulerKind::Gradient, 16));
  tuning.run();
  EXPECT_EQ(tuning.trials(), 16);
  for (const auto& m : t.measurers) EXPECT_EQ(m->measured.size(), 4u);
}

// A network stopped before its closing round or after any of its units (or in the middle of one,
// its row never stored) and resumed measures what it did uninterrupted: the round's units and
// the twins' every trial. (What the tasks without twins measure after it may differ: a resumed
// tuner observed its trials in one batch, Engine::restore, and proposes from there.)
void resumesAsUninterrupted(const NetworkTuningPlan& p) {
  Tasks whole(kTwins);
  const std::size_t a = whole.index("a"), b = whole.index("b");
  NetworkTuning first(whole.graph, whole.measurements(), p);
  first.run();
  const std::size_t closing = firstClosingUnit(first);
  std::size_t end = closing;
  while (end < first.units().size() && first.units()[end].closing) ++end;
  ASSERT_LT(closing, end) << "no closing unit to stop in";
  for (std::size_t units = closing; units <= end; ++units) {
    const NetworkUnit& last = first.units()[units - 1];
    const int lastTrials = last.trials - (units > 1 ? first.units()[units - 2].trials : 0);
    for (int cut : {-1, 1}) {
      if (cut >= 0 && !(last.closing && lastTrials > cut)) continue;
      SCOPED_TRACE("stopped after unit " + std::to_string(units) +
                   (cut >= 0 ? ", cut after its first trial" : ""));
      Resumed r(p, units, cut);
      EXPECT_EQ(r.added.size(), cut >= 0 ? 1u : 0u);
      EXPECT_TRUE(r.tuning->closingRound());
      r.tuning->run();
      EXPECT_EQ(r.tuning->trials(), first.trials());
      EXPECT_EQ(r.measured(a), whole.measurers[a]->measured);
      EXPECT_EQ(r.measured(b), whole.measurers[b]->measured);
      // The units up to the round's end, the one a cut split in two apart.
      std::vector<std::pair<std::size_t, int>> got, want;
      for (const std::vector<NetworkUnit>* units : {&r.tuning->units(), &first.units()}) {
        std::vector<std::pair<std::size_t, int>>& out = units == &first.units() ? want : got;
        for (const NetworkUnit& u : *units)
          if (u.closing) {
            if (!out.empty() && out.back().first == u.task)
              out.back().second += static_cast<int>(u.fromTwins.size());
            else
              out.emplace_back(u.task, static_cast<int>(u.fromTwins.size()));
          }
      }
      EXPECT_EQ(got, want);
    }
  }
}

TEST(TwinClosingRound, AResumeBeforeOrDuringTheRoundMeasuresWhatItWouldHave) {
  {
    SCOPED_TRACE("topological");
    resumesAsUninterrupted(plan(SchedulerKind::Topological, 40));
  }
  {
    SCOPED_TRACE("gradient");
    resumesAsUninterrupted(plan(SchedulerKind::Gradient, 80));
  }
}

TEST(TwinClosingRound, ARunStoredBeforeTheRoundResumesWithoutOne) {
  // Tuned without the round (the whole budget to the scheduler, topological shares of it), its
  // units past where the round would begin replay only without it: it goes on as it began.
  NetworkTuningPlan before = plan(SchedulerKind::Topological, 40);
  before.closingRound = false;
  const NetworkTuningPlan now = plan(SchedulerKind::Topological, 40);
  Tasks whole(kTwins);
  NetworkTuning first(whole.graph, whole.measurements(), before);
  first.run();
  const std::size_t units = first.units().size() - 1;
  ASSERT_GT(first.units()[units - 1].trials, 36);
  Resumed r(before, units, -1, &now);
  EXPECT_FALSE(r.tuning->closingRound());
  EXPECT_EQ(r.tuning->closingReserve(), 0);
  r.tuning->run();
  EXPECT_EQ(r.tuning->trials(), 40);
  ASSERT_EQ(r.tuning->units().size(), first.units().size());
  for (std::size_t u = 0; u < first.units().size(); ++u) {
    EXPECT_EQ(r.tuning->units()[u].task, first.units()[u].task) << "unit " << u + 1;
    EXPECT_EQ(r.tuning->units()[u].trials, first.units()[u].trials) << "unit " << u + 1;
    EXPECT_FALSE(r.tuning->units()[u].closing);
  }
  // Stopped early, before its scheduler's budget ran past the reserve, it ends with the round.
  Resumed early(before, 2, -1, &now);
  EXPECT_TRUE(early.tuning->closingRound());
}

// Task b1 (blocks b1 and b2) reads in b2 the residual short writes, and first runs (so is tuned,
// topologically) before short: short is pinned to b1's output layout, so b1 keeps its choice
// through the closing round (a new best of its twin c's, in another layout, would leave short
// writing a layout b2 no longer reads). Before, b1 took part in the round.
TEST(TwinClosingRound, AResidualsReaderTunedBeforeItsWriterKeepsItsChoice) {
  const std::string file =
      std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_residual_reader_first.json";
  NetworkTuningPlan p = plan(SchedulerKind::Gradient, 60);
  p.mode = layout::TuningMode::Joint;
  {
    Tasks t(file, layout::TuningMode::Joint);
    ASSERT_EQ(t.twinNames("b1"), std::vector<std::string>{"c"});
    ASSERT_LT(t.graph.tasks[t.index("b1")].position, t.graph.tasks[t.index("short")].position);
    const NetworkTuning side(t.graph, t.measurements(), p);
    EXPECT_EQ(side.closingReserve(), int(2 * kTwinConfigsPerUnit));
  }
  p.scheduler = SchedulerKind::Topological;
  {
    // A run stored before the field planned its round with b1 in it, and resumes so: stopped
    // before the round, it replays and ends with the units it would have had.
    nlohmann::json stored = planToJson(p);
    stored.erase("residual_reader_keeps");
    const NetworkTuningPlan old = planFromJson(stored.dump(), "");
    EXPECT_FALSE(old.residualReaderKeeps);
    Tasks t(file, layout::TuningMode::Joint);
    NetworkTuning whole(t.graph, t.measurements(), old);
    EXPECT_EQ(whole.closingReserve(), int(2 * kTwinConfigsPerUnit));
    whole.run();
    const std::size_t round = firstClosingUnit(whole);
    ASSERT_LT(round, whole.units().size());
    EXPECT_EQ(whole.units()[round].task, t.index("b1"));
    Resumed r(old, round - 1, -1, nullptr, file, layout::TuningMode::Joint);
    r.tuning->run();
    ASSERT_EQ(r.tuning->units().size(), whole.units().size());
    for (std::size_t u = 0; u < whole.units().size(); ++u) {
      EXPECT_EQ(r.tuning->units()[u].task, whole.units()[u].task) << "unit " << u + 1;
      EXPECT_EQ(r.tuning->units()[u].closing, whole.units()[u].closing) << "unit " << u + 1;
    }
  }
  for (std::uint64_t seed : {1, 2, 3, 4}) {
    SCOPED_TRACE(seed);
    p.seed = seed;
    Tasks t(file, layout::TuningMode::Joint);
    NetworkTuning tuning(t.graph, t.measurements(), p);
    EXPECT_EQ(tuning.closingReserve(), int(kTwinConfigsPerUnit));
    tuning.run();
    const std::size_t b = t.index("b1"), shortcut = t.index("short");
    for (const NetworkUnit& u : tuning.units())
      if (u.closing) {
        EXPECT_EQ(u.task, t.index("c"));
      }
    // The premise: short was pinned to b1's output layout.
    ASSERT_TRUE(tuning.layoutConstraint(shortcut));
    EXPECT_EQ(tuning.layoutConstraint(shortcut)->by, b);
    EXPECT_EQ(tuning.layoutConstraint(shortcut)->link, LinkKind::Residual);
  }
}

// A run stored before residual readers kept their choice says so: its one reader tuned ahead of
// its writer (b1) takes part in its closing round. A new plan, another scheduler, or a run that
// has no closing round says nothing.
TEST(TwinClosingRound, ARunStoredBeforeResidualReadersKeptTheirChoiceSaysSo) {
  const std::string file =
      std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_residual_reader_first.json";
  NetworkTuningPlan p = plan(SchedulerKind::Topological, 60);
  p.mode = layout::TuningMode::Joint;
  nlohmann::json stored = planToJson(p);
  stored.erase("residual_reader_keeps");
  const NetworkTuningPlan old = planFromJson(stored.dump(), "");
  const Tasks t(file, layout::TuningMode::Joint);
  const std::string head =
      "stored before a residual's reader tuned ahead of its writer kept its choice, this run ";
  EXPECT_EQ(storedPlanNote(t.graph, old, false),
            head +
                "goes on as it was tuned: its residual reader tuned ahead of its writer takes "
                "part in its closing round, where a new best of another output layout leaves its "
                "writer a layout it was not timed with, or the residual converted (a new run "
                "keeps such a reader's choice)");
  EXPECT_EQ(storedPlanNote(t.graph, old, true),
            head +
                "let its residual reader tuned ahead of its writer take part in its closing "
                "round, where a new best of another output layout could leave its writer a "
                "layout it was not timed with, or the residual converted (a new run keeps such a "
                "reader's choice)");
  EXPECT_EQ(storedPlanNote(t.graph, p, false), "");
  NetworkTuningPlan other = old;
  other.scheduler = SchedulerKind::Gradient;
  EXPECT_EQ(storedPlanNote(t.graph, other, false), "");

  // A run in hand says it of the round it has: resumed early, the old run has its round and says
  // so; one tuned before the round existed (its whole budget to the scheduler, stopped after its
  // last unit) resumes without one, and none of its tasks takes part.
  const Resumed early(old, 2, -1, &old, file, layout::TuningMode::Joint);
  ASSERT_TRUE(early.tuning->closingRound());
  EXPECT_EQ(early.tuning->planNote(false), storedPlanNote(t.graph, old, false));
  NetworkTuningPlan before = old;
  before.closingRound = false;
  Tasks whole(file, layout::TuningMode::Joint);
  NetworkTuning first(whole.graph, whole.measurements(), before);
  first.run();
  const Resumed late(before, first.units().size(), -1, &old, file, layout::TuningMode::Joint);
  ASSERT_FALSE(late.tuning->closingRound());
  EXPECT_EQ(late.tuning->planNote(false), "");
  EXPECT_EQ(late.tuning->planNote(true), "");
}

}  // namespace
}  // namespace opevo::net
