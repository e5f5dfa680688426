#include "engine/measurement.h"

#include <thread>

#include "common/enum_names.h"
#include "common/median.h"

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

std::optional<SideBySide> timeSideBySide(Measurer& measurer, const Config& best, int rounds,
                                         std::chrono::milliseconds settle) {
  std::vector<double> kernel, library;
  SideBySide out;
  for (int r = 0; r < rounds; ++r) {
    std::this_thread::sleep_for(settle);
    const std::vector<Measurement> k = measurer.measure({best});
    std::this_thread::sleep_for(settle);
    const std::optional<Measurer::Reference> ref = measurer.reference();
    if (!ref) return std::nullopt;
    out.library = ref->library;
    if (k.empty() || k[0].status != TrialStatus::Ok || ref->measurement.status != TrialStatus::Ok)
      continue;
    kernel.push_back(k[0].speed);
    library.push_back(ref->measurement.speed);
  }
  if (kernel.empty()) return std::nullopt;
  out.rounds = static_cast<int>(kernel.size());
  out.bestSpeed = median(kernel);
  out.referenceSpeed = median(library);
  return out;
}

}  // namespace opevo
