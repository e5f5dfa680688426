#pragma once

#include <string>
#include <string_view>

#include "common/enum_names.h"

namespace opevo {

// Where a stored run stands. Only a finished run is closed: an interrupted or failed one resumes
// from its stored trials, and one still "running" in the store was killed with its program.
enum class RunStatus { Running, Finished, Interrupted, Failed };

// Why a run ended. None while it goes on.
enum class EndReason {
  None,
  Trials,     // its trial budget is spent
  Time,       // its tuning time is spent (pauses excluded)
  Target,     // it reached the target speed
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

// "finished (trials)", "interrupted (stopped)", or the status alone where no reason was stored
// (a run killed with its program reads "interrupted"): how the window and `opevo runs` list it.
std::string runStatusText(RunStatus status, EndReason reason);

}  // namespace opevo
