#include "engine/trial_failures.h"

#include <algorithm>

namespace opevo {

int TrialFailures::failed() const {
  int n = 0;
  for (const auto& [status, count] : byStatus) n += count;
  return n;
}

std::string TrialFailures::text() const {
  std::vector<std::pair<TrialStatus, int>> counts(byStatus.begin(), byStatus.end());
  std::stable_sort(counts.begin(), counts.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (const auto& [status, count] : counts)
    out += (out.empty() ? "" : ", ") + std::to_string(count) + " " + failedAs(status);
  return out;
}

TrialFailures countFailures(const std::vector<TrialStatus>& statuses) {
  TrialFailures f;
  f.trials = static_cast<int>(statuses.size());
  for (TrialStatus s : statuses)
    if (s != TrialStatus::Ok) ++f.byStatus[s];
  return f;
}

std::string failedAs(TrialStatus status) {
  switch (status) {
    case TrialStatus::Ok:
      return "worked";
    case TrialStatus::Rejected:
      return "rejected (over a device limit)";
    case TrialStatus::CompileError:
      return "did not compile";
    case TrialStatus::LaunchError:
      return "did not launch";
    case TrialStatus::RuntimeFault:
      return "faulted while running";
    case TrialStatus::Timeout:
      return "timed out";
    case TrialStatus::WrongResult:
      return "gave a wrong result";
  }
  return std::string(statusName(status));
}

}  // namespace opevo
