#include "net/tuning_budget.h"

#include <algorithm>

#include "common/error.h"

namespace opevo::net {

std::size_t tasksReached(std::size_t tasks, const NetworkTuningPlan& plan) {
  if (plan.trials < 1) return 0;
  const auto trials = static_cast<std::size_t>(plan.trials);
  if (plan.scheduler == SchedulerKind::Topological) return std::min(tasks, trials);
  const std::size_t unit = std::max<std::size_t>(plan.unit, 1);
  return std::min(tasks, (trials + unit - 1) / unit);
}

int trialsToReachAll(std::size_t tasks, const NetworkTuningPlan& plan) {
  const std::size_t perTask =
      plan.scheduler == SchedulerKind::Topological ? 1 : std::max<std::size_t>(plan.unit, 1);
  return static_cast<int>(tasks * perTask);
}

int closingReserve(std::size_t tasks, std::size_t closingTasks, const NetworkTuningPlan& plan) {
  if (!plan.closingRound) return 0;
  const int beyond = plan.trials - trialsToReachAll(tasks, plan);
  return std::clamp(static_cast<int>(closingTasks * kTwinConfigsPerUnit), 0, std::max(beyond, 0));
}

std::string budgetNote(std::size_t tasks, const NetworkTuningPlan& plan) {
  const std::size_t reached = tasksReached(tasks, plan);
  if (reached >= tasks) return "";
  const std::size_t left = tasks - reached;
  const bool topological = plan.scheduler == SchedulerKind::Topological;
  return std::to_string(plan.trials) + (plan.trials == 1 ? " trial" : " trials") +
         (topological ? "" : " in units of " + std::to_string(plan.unit)) +
         (plan.trials == 1 ? " reaches " : " reach ") + std::to_string(reached) + " of the " +
         std::to_string(tasks) + " tasks: " + std::to_string(left) +
         (left == 1 ? " task" : " tasks") +
         " will get no trial, and the network's latency needs a kernel for every task; --trials " +
         std::to_string(trialsToReachAll(tasks, plan)) + " or more (tasks x " +
         (topological ? "1" : "--unit") + ") reaches them all";
}

void requireTasks(const std::string& networkName, std::size_t tasks) {
  if (tasks > 0) return;
  throw InputError("network " + networkName +
                   " has no task to tune: every layer runs a fixed kernel or is a view (a task "
                   "is a conv2d, dense, matmul or batch_matmul; opevo net run times it as it is)");
}

}  // namespace opevo::net
