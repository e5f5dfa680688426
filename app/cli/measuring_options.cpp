#include "cli/measuring_options.h"

#include <algorithm>

#include "cli/option_checks.h"
#include "common/error.h"
#include "cpu/cpu_runner.h"
#include "space/text.h"

namespace opevo::cli {

void addMeasuringOptions(CLI::App* cmd, MeasuringArgs& a, const std::string& timeoutDefault) {
  cmd->add_option("--compile-threads", a.compileThreads, "Parallel kernel builds (default 2)")
      ->check(wholeIn(1, 256));
  cmd->add_option("--timeout", a.timeout,
                  "Seconds a trial may run before it is killed (default " + timeoutDefault + ")")
      ->check(positiveFinite());
  // The runner's bounds on runs, said with --min-time-ms: a kernel of microseconds stops at the
  // most runs long before the time asked.
  const TimingOptions timing;
  cmd->add_option("--min-time-ms", a.minTimeMs,
                  "Time each kernel until its runs add up to this long, in " +
                      std::to_string(timing.minRuns) + " runs at least and " +
                      std::to_string(timing.maxRuns) + " at most (default " +
                      formatNumber(timing.minTotalMs) + ")")
      ->check(nonNegativeFinite());
  cmd->add_option("--slow-cutoff", a.slowCutoff,
                  "A kernel whose checked run is this many times slower than the fastest so far "
                  "is timed by one run alone, and one still running at 10 times that (1 s at "
                  "least) is given up as a timeout (default 10; 0: time every kernel fully)")
      ->check(nonNegativeFinite());
}

std::string measuringArgsText(const MeasuringArgs& a) {
  const MeasuringArgs defaults;
  std::string out;
  const auto add = [&out](const char* name, double value) {
    out += std::string(" ") + name + " " + formatNumber(value);
  };
  if (a.compileThreads != defaults.compileThreads) add("--compile-threads", a.compileThreads);
  if (a.timeout) add("--timeout", *a.timeout);
  if (a.minTimeMs != defaults.minTimeMs) add("--min-time-ms", a.minTimeMs);
  if (a.slowCutoff != defaults.slowCutoff) add("--slow-cutoff", a.slowCutoff);
  return out;
}

void applyMeasuringArgs(const MeasuringArgs& a, BackendOptions& o) {
  o.cpu.compileThreads = a.compileThreads;
  o.cpu.timeoutSeconds = a.timeout.value_or(o.cpu.timeoutSeconds);
  o.cpu.timing.minTotalMs = a.minTimeMs;
  o.cpu.cutoffFactor = a.slowCutoff;
  shareMeasuringChoices(o, a.timeout.has_value());
  // A kernel timed at least that long cannot finish its trial within the timeout: every trial
  // would be killed, the run ending with "no configuration succeeded" and no word of why. Without
  // --timeout, refused where no backend's default leaves room (the backend is not known yet).
  const double timeout =
      a.timeout ? *a.timeout
                : std::max({o.cpu.timeoutSeconds, o.cuda.timeoutSeconds, o.hip.timeoutSeconds});
  if (a.minTimeMs >= timeout * 1000)
    throw InputError("--min-time-ms " + formatNumber(a.minTimeMs) + " is not under the trial " +
                     "timeout of " + formatNumber(timeout) + " s" +
                     (a.timeout ? "" : " (the longest default; --timeout sets it)") +
                     ": every trial would be killed; raise --timeout or lower --min-time-ms");
}

kas::KasMeasurerOptions kasMeasuring(const MeasuringArgs& a) {
  kas::KasMeasurerOptions o;
  o.compileThreads = a.compileThreads;
  o.timeoutSeconds = a.timeout.value_or(o.timeoutSeconds);
  o.timing.minTotalMs = a.minTimeMs;
  o.cutoffFactor = a.slowCutoff;
  kas::checkMeasuring(o);
  return o;
}

MeasuringArgs measuringArgsOf(const kas::KasMeasurerOptions& o) {
  MeasuringArgs a;
  a.compileThreads = o.compileThreads;
  if (o.timeoutSeconds != kas::KasMeasurerOptions().timeoutSeconds) a.timeout = o.timeoutSeconds;
  a.minTimeMs = o.timing.minTotalMs;
  a.slowCutoff = o.cutoffFactor;
  return a;
}

std::string kasTimeoutText() {
  return formatNumber(kas::KasMeasurerOptions().timeoutSeconds);
}

}  // namespace opevo::cli
