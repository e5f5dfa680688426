#include "engine/measurement.h"

#include "common/enum_names.h"

namespace opevo {

namespace {

const EnumNames<TrialStatus, 7> kTrialStatusNames{{{
    {TrialStatus::Ok, "ok"},
    {TrialStatus::Rejected, "rejected"},
    {TrialStatus::CompileError, "compile_error"},
    {TrialStatus::LaunchError, "launch_error"},
    {TrialStatus::RuntimeFault, "runtime_fault"},
    {TrialStatus::Timeout, "timeout"},
    {TrialStatus::WrongResult, "wrong_result"},
}}};

}  // namespace

const EnumNames<TrialStatus, 7>& trialStatusNames() {
  return kTrialStatusNames;
}

std::string_view statusName(TrialStatus status) {
  return kTrialStatusNames.name(status);
}

bool parseStatus(std::string_view name, TrialStatus& out) {
  const auto s = kTrialStatusNames.parse(name);
  if (s) out = *s;
  return s.has_value();
}

}  // namespace opevo
