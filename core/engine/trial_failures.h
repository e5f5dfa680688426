#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/measurement.h"

namespace opevo {

// Why a run's trials failed, counted by status: a run whose every trial failed said only "no
// configuration succeeded" (ten trials killed by a 0.05 s timeout, with no word of it).
struct TrialFailures {
  int trials = 0;                       // every trial counted, the working ones included
  std::map<TrialStatus, int> byStatus;  // the failed ones
  int failed() const;
  // "10 timed out", "6 did not compile, 2 gave a wrong result": most first.
  std::string text() const;
};

TrialFailures countFailures(const std::vector<TrialStatus>& statuses);

// Where every trial of a run timed out, how long the library (`library`, timed beside the run)
// takes a run of the operator here, which the failures cannot tell: "oneDNN 2.6.3 jit:avx2 takes
// 2.45 s a run of it here, and a kernel of a tenth of its speed 24.5 s" (the command line's error
// and the Runs page's note).
std::string libraryRunText(const std::string& library, double libraryMs);

// What a failed trial of this status did, after a count: "timed out", "did not compile".
std::string failedAs(TrialStatus status);

// The messages of failures that the moment of measuring may have caused, written here beside
// the reading of them (environmentalFailure): a worker given up after `seconds` ("no answer
// within 0.2 s; the worker was killed") and a worker ended by a signal ("the worker died of
// signal 9 (Killed)").
std::string workerTimeoutMessage(double seconds);
std::string workerSignalMessage(int signal);

// A build's compile time limit is on the compiler's CPU time, with wall time kept to
// kCompileWallFactor times it: a compiler that used the limit crawls on its configuration ("c++
// used 20 s of CPU time, the compile time limit (this configuration makes the compiler crawl)");
// one stopped by the wall time with little CPU time waited for a busy machine's cores (or hung),
// which says nothing of its configuration.
inline constexpr double kCompileWallFactor = 5;
std::string compilerCrawlMessage(const std::string& compiler, double cpuLimitSeconds);
std::string compilerStarvedMessage(const std::string& compiler, double wallSeconds,
                                   double cpuSeconds, double cpuLimitSeconds);

// Whether a stored failure says more about when it was measured than about its configuration,
// so that a new run measures that configuration again instead of reusing the failure (--history)
// or teaching its cost model a 0 for it (the warm start). Kernel Tuner's and AutoTVM's caches
// keep compile errors, wrong results and device limits; the environment's failures are:
//   - a timeout under a limit shorter than `timeLimitSeconds`, the trial time limit of the run
//     that would reuse it (one under the same or a longer limit is the configuration's), or
//     under a limit its message does not name; nullopt: a replay, whose timeouts are its
//     dataset's answers;
//   - a worker ended by a signal that a kernel does not raise itself (SIGKILL, SIGTERM, SIGINT:
//     the user, the OOM killer, a shutdown; SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT are the
//     kernel's own);
//   - a cluster trial that every agent which took it stopped answering (agents lost or stopped);
//   - a build stopped by its wall time, not its CPU time (compilerStarvedMessage), or stored
//     before the limit was on CPU time ("was stopped after running for"), which may have been
//     the machine's load too.
// The message may carry "from history: run N; " notes before the failure's own text.
bool environmentalFailure(TrialStatus status, std::string_view message,
                          std::optional<double> timeLimitSeconds);

}  // namespace opevo
