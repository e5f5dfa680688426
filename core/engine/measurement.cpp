#include "engine/measurement.h"

#include <array>
#include <utility>

namespace opevo {
namespace {

constexpr std::array<std::pair<TrialStatus, std::string_view>, 7> kNames = {{
    {TrialStatus::Ok, "ok"},
    {TrialStatus::Rejected, "rejected"},
    {TrialStatus::CompileError, "compile_error"},
    {TrialStatus::LaunchError, "launch_error"},
    {TrialStatus::RuntimeFault, "runtime_fault"},
    {TrialStatus::Timeout, "timeout"},
    {TrialStatus::WrongResult, "wrong_result"},
}};

}  // namespace

std::string_view statusName(TrialStatus status) {
  for (const auto& [s, name] : kNames)
    if (s == status) return name;
  return "?";
}

bool parseStatus(std::string_view name, TrialStatus& out) {
  for (const auto& [s, n] : kNames)
    if (n == name) {
      out = s;
      return true;
    }
  return false;
}

}  // namespace opevo
