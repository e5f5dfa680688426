#include "engine/trial_failures.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstring>

#include "space/text.h"

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

namespace {

constexpr std::string_view kTimeoutLead = "no answer within ";
constexpr std::string_view kSignalLead = "the worker died of signal ";
// gpu/common/run_watch.cpp's give-up (--slow-cutoff): "still running after 250 ms, the limit...".
constexpr std::string_view kGiveUpLead = "still running after ";
// core/cluster/trial_consumer.cpp's trial that no agent answered: "delivered 3 times without a
// result: every agent that took it stopped answering ...".
constexpr std::string_view kUnansweredMark = "times without a result: every agent that took it";
// compilerStarvedMessage's, and the wall-clock compile limit's of runs stored before it.
constexpr std::string_view kStarvedMark = "the machine was too busy to build it";
constexpr std::string_view kWallLimitMark = " was stopped after running for ";

// The number right after `lead` in message, if lead is there and a number follows.
std::optional<double> numberAfter(std::string_view message, std::string_view lead) {
  const std::size_t at = message.find(lead);
  if (at == std::string_view::npos) return std::nullopt;
  const std::string_view rest = message.substr(at + lead.size());
  const std::size_t end = rest.find_first_of(" ;,(");
  double value = 0;
  if (!parseNumber(rest.substr(0, end), value)) return std::nullopt;
  return value;
}

// The limit a timeout's message names, in seconds.
std::optional<double> timeoutLimitSeconds(std::string_view message) {
  if (const auto s = numberAfter(message, kTimeoutLead)) return s;
  if (const auto ms = numberAfter(message, kGiveUpLead)) return *ms / 1e3;
  return std::nullopt;
}

bool kernelRaises(int signal) {
  for (int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS})
    if (signal == s) return true;
  return false;
}

}  // namespace

std::string workerTimeoutMessage(double seconds) {
  // Shortest exact text: read back, the limit compares equal to the run's own.
  return std::string(kTimeoutLead) + formatNumber(seconds) + " s; the worker was killed";
}

std::string workerSignalMessage(int signal) {
  return std::string(kSignalLead) + std::to_string(signal) + " (" + strsignal(signal) + ")";
}

std::string compilerCrawlMessage(const std::string& compiler, double cpuLimitSeconds) {
  return compiler + " used " + formatNumber(cpuLimitSeconds) +
         " s of CPU time, the compile time limit (this configuration makes the compiler crawl)";
}

std::string compilerStarvedMessage(const std::string& compiler, double wallSeconds,
                                   double cpuSeconds, double cpuLimitSeconds) {
  char used[64];
  std::snprintf(used, sizeof used, "%.0f s with %.1f s of CPU time", wallSeconds, cpuSeconds);
  return compiler + " was stopped after " + used + ": " + std::string(kStarvedMark) + " within " +
         formatNumber(kCompileWallFactor) + " times its compile time limit of " +
         formatNumber(cpuLimitSeconds) + " s of CPU time (or the compiler hung)";
}

bool environmentalFailure(TrialStatus status, std::string_view message,
                          std::optional<double> timeLimitSeconds) {
  switch (status) {
    case TrialStatus::Timeout: {
      if (!timeLimitSeconds) return false;
      const std::optional<double> limit = timeoutLimitSeconds(message);
      return !limit || *limit < *timeLimitSeconds;
    }
    case TrialStatus::CompileError:
      return message.find(kStarvedMark) != std::string_view::npos ||
             message.find(kWallLimitMark) != std::string_view::npos;
    case TrialStatus::RuntimeFault: {
      if (message.find(kUnansweredMark) != std::string_view::npos) return true;
      const std::optional<double> signal = numberAfter(message, kSignalLead);
      return signal && !kernelRaises(static_cast<int>(*signal));
    }
    default:
      return false;
  }
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

std::string libraryRunText(const std::string& library, double libraryMs) {
  return library + " takes " + durationText(libraryMs / 1e3) +
         " a run of it here, and a kernel of a tenth of its speed " + durationText(libraryMs / 1e2);
}

}  // namespace opevo
