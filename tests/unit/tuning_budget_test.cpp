// What a network's budget reaches before it starts (net/tuning_budget.h): the command line's note
// and the Networks page's come from it.

#include "net/tuning_budget.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace opevo::net {
namespace {

NetworkTuningPlan plan(int trials, std::size_t unit, SchedulerKind scheduler) {
  NetworkTuningPlan p;
  p.trials = trials;
  p.unit = unit;
  p.scheduler = scheduler;
  return p;
}

TEST(TuningBudget, UnitsReachOneTaskEachAndTopologicalSharesReachOneTrialEach) {
  // The walk: AlexNet's 8 tasks at 24 trials in units of 4, a 2-task network at 3 in units of 4.
  EXPECT_EQ(tasksReached(8, plan(24, 4, SchedulerKind::Gradient)), 6u);
  EXPECT_EQ(tasksReached(2, plan(3, 4, SchedulerKind::RoundRobin)), 1u);
  EXPECT_EQ(tasksReached(8, plan(32, 4, SchedulerKind::Gradient)), 8u);
  EXPECT_EQ(tasksReached(8, plan(29, 4, SchedulerKind::Gradient)), 8u);  // the last unit: 1
  // Topological gives each task its share, (budget left) / (tasks left), at least one trial.
  EXPECT_EQ(tasksReached(8, plan(24, 4, SchedulerKind::Topological)), 8u);
  EXPECT_EQ(tasksReached(8, plan(5, 4, SchedulerKind::Topological)), 5u);
  EXPECT_EQ(trialsToReachAll(8, plan(24, 4, SchedulerKind::Gradient)), 32);
  EXPECT_EQ(trialsToReachAll(8, plan(5, 4, SchedulerKind::Topological)), 8);
}

TEST(TuningBudget, TheNoteSaysWhatIsLeftOutAndWhatReachesAll) {
  EXPECT_EQ(budgetNote(8, plan(24, 4, SchedulerKind::Gradient)),
            "24 trials in units of 4 reach 6 of the 8 tasks: 2 tasks will get no trial, and the "
            "network's latency needs a kernel for every task; --trials 32 or more (tasks x "
            "--unit) reaches them all");
  EXPECT_EQ(budgetNote(2, plan(3, 4, SchedulerKind::Gradient)),
            "3 trials in units of 4 reach 1 of the 2 tasks: 1 task will get no trial, and the "
            "network's latency needs a kernel for every task; --trials 8 or more (tasks x --unit) "
            "reaches them all");
  EXPECT_EQ(budgetNote(8, plan(32, 4, SchedulerKind::Gradient)), "");
  EXPECT_EQ(budgetNote(8, plan(24, 4, SchedulerKind::Topological)), "");
}

TEST(TuningBudget, ANetworkWithoutTasksIsRefusedByName) {
  EXPECT_NO_THROW(requireTasks("tiny", 2));
  try {
    requireTasks("just_relu", 0);
    FAIL() << "no throw";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("network just_relu has no task to tune: ", 0), 0u)
        << e.what();
  }
}

}  // namespace
}  // namespace opevo::net
