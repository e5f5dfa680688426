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

std::optional<SideBySide> timeSideBySide(Measurer& measurer, const std::vector<Config>& candidates,
                                         int rounds, std::chrono::milliseconds settle,
                                         const std::atomic<bool>* stop) {
  if (candidates.empty()) return std::nullopt;
  // Per candidate, its speed in each round where the library succeeded (0: it failed there).
  std::vector<std::vector<double>> kernel(candidates.size());
  std::vector<double> library;
  SideBySide out;
  out.candidates = candidates.size();
  for (int r = 0; r < rounds; ++r) {
    if (stop && stop->load()) break;
    ++out.roundsRun;
    std::this_thread::sleep_for(settle);
    std::vector<Measurement> k;
    for (const Config& c : candidates) {
      std::vector<Measurement> one = measurer.measure({c});
      k.push_back(one.empty() ? Measurement{} : one[0]);
    }
    std::this_thread::sleep_for(settle);
    const std::optional<Measurer::Reference> ref = measurer.reference();
    if (!ref) return std::nullopt;
    out.library = ref->library;
    if (ref->measurement.status != TrialStatus::Ok) continue;
    library.push_back(ref->measurement.speed);
    for (std::size_t i = 0; i < candidates.size(); ++i)
      kernel[i].push_back(k[i].status == TrialStatus::Ok ? k[i].speed : 0.0);
  }
  // Set before a round, or during the last one: either way the caller says it was asked for.
  out.stopped = stop && stop->load();
  std::optional<double> best;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    std::vector<double> ok, lib;
    for (std::size_t r = 0; r < kernel[i].size(); ++r)
      if (kernel[i][r] > 0) ok.push_back(kernel[i][r]), lib.push_back(library[r]);
    out.speeds.push_back(ok.empty() ? 0.0 : median(ok));
    if (ok.empty()) continue;
    const double speed = out.speeds.back();
    if (best && speed <= *best) continue;
    best = speed;
    out.chosen = i;
    out.rounds = static_cast<int>(ok.size());
    out.bestSpeed = speed;
    // The library's median over the rounds the chosen candidate succeeded in: the same windows.
    out.referenceSpeed = median(lib);
  }
  if (!best) return std::nullopt;
  return out;
}

}  // namespace opevo
