#pragma once

#include <string>
#include <string_view>

#include "common/enum_names.h"
#include "engine/budget.h"

namespace opevo {

// Where a stored run stands. Only a finished run is closed: an interrupted or failed one resumes
// from its stored trials, and one still "running" in the store was killed with its program.
enum class RunStatus { Running, Finished, Interrupted, Failed };

// Why a run ended. None while it goes on.
enum class EndReason {
  None,
  Trials,  // its trial budget is spent
  Time,    // its time is spent on its budget clock (budget.h): tuning time, a replay's device time
  Target,  // it reached the target speed
  Exhausted,  // its tuner found no new configuration
  Stopped,    // a user stopped it (Stop, Ctrl-C)
  Failed,     // an error in a stage (measurement, store, tuner) ended it
};

const EnumNames<RunStatus, 4>& runStatusNames();
const EnumNames<EndReason, 7>& endReasonNames();
inline std::string_view runStatusName(RunStatus s) {
  return runStatusNames().name(s);
}
inline std::string_view endReasonName(EndReason r) {
  return endReasonNames().name(r);
}

// The status a run is left in when it ends for this reason.
RunStatus statusAfter(EndReason reason);

// The reason in words: its stored name, but for a time budget spent, the clock it counted
// ("device time" for a replay, "time" otherwise), so a replay's run does not read as having run
// out of time on this machine.
std::string endReasonText(EndReason reason, BudgetClock clock = BudgetClock::Tuning);

// "finished (trials)", "interrupted (stopped)", "finished (device time)" for a replay that spent
// its time budget, or the status alone where no reason was stored (a run killed with its program
// reads "interrupted"): how the window and `opevo runs` list it.
std::string runStatusText(RunStatus status, EndReason reason,
                          BudgetClock clock = BudgetClock::Tuning);
// As above, with the run's trials: a finished run that has none (a network's task its budget
// never reached) reads "finished, no trial", not "finished (trials)" as if it had spent its own.
std::string runStatusText(RunStatus status, EndReason reason, BudgetClock clock, long long trials);

}  // namespace opevo
