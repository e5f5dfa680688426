#include "engine/run_status.h"

namespace opevo {

const EnumNames<RunStatus, 4>& runStatusNames() {
  static const EnumNames<RunStatus, 4> names{{{
      {RunStatus::Running, "running"},
      {RunStatus::Finished, "finished"},
      {RunStatus::Interrupted, "interrupted"},
      {RunStatus::Failed, "failed"},
  }}};
  return names;
}

const EnumNames<EndReason, 7>& endReasonNames() {
  // None is the empty text: what the store holds for a run that has not ended.
  static const EnumNames<EndReason, 7> names{{{
      {EndReason::None, ""},
      {EndReason::Trials, "trials"},
      {EndReason::Time, "time"},
      {EndReason::Target, "target"},
      {EndReason::Exhausted, "exhausted"},
      {EndReason::Stopped, "stopped"},
      {EndReason::Failed, "failed"},
  }}};
  return names;
}

RunStatus statusAfter(EndReason reason) {
  switch (reason) {
    case EndReason::None:
      return RunStatus::Running;
    case EndReason::Stopped:
      return RunStatus::Interrupted;
    case EndReason::Failed:
      return RunStatus::Failed;
    case EndReason::Trials:
    case EndReason::Time:
    case EndReason::Target:
    case EndReason::Exhausted:
      return RunStatus::Finished;
  }
  return RunStatus::Failed;
}

std::string endReasonText(EndReason reason, BudgetClock clock) {
  if (reason == EndReason::Time && clock == BudgetClock::Device)
    return std::string(budgetClockName(clock));
  return std::string(endReasonName(reason));
}

std::string runStatusText(RunStatus status, EndReason reason, BudgetClock clock) {
  // A run being tuned now has no reason yet; one stored running by a dead program has none either.
  if (status == RunStatus::Running || reason == EndReason::None)
    return std::string(runStatusName(status));
  return std::string(runStatusName(status)) + " (" + endReasonText(reason, clock) + ")";
}

std::string runStatusText(RunStatus status, EndReason reason, BudgetClock clock, long long trials) {
  if (status == RunStatus::Finished && trials == 0)
    return std::string(runStatusName(status)) + ", no trial";
  return runStatusText(status, reason, clock);
}

}  // namespace opevo
