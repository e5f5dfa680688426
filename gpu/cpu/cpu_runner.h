#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cpu/operator_buffers.h"
#include "engine/measurement.h"

namespace opevo {

struct TimingOptions {
  double minTotalMs = 100;  // keep timing until the runs add up to this...
  int minRuns = 3;          // ...and at least this many ran
  int maxRuns = 1000;
  int warmupRuns = 1;
  // A kernel whose checked run alone took longer than this (0: no limit) is timed by that run:
  // it is far slower than the best measured, more runs would not change the verdict, and on a
  // CPU such kernels (seconds per run) would otherwise spend most of a session's time.
  double cutoffMs = 0;
  // A checked run still going after this long (0: no limit but the trial's timeout) is given up
  // as a timeout: in opevo-worker the process exits, which ends the kernel (common/run_watch.h).
  double giveUpMs = 0;
  // The trial's time limit, counted from when the worker took the request (the caller's timeout;
  // 0: none). A kernel whose checked run leaves no room within it for the runs asked is timed by
  // the runs that fit (runsThatFit): C2's loop kernels took 30 s to 252 s a run on a 2-core CPU,
  // and killed at the limit each lost its verified result.
  double trialMs = 0;
  // Evict the weights (operand B, as the kernel or the reference reads them) from the caches
  // before each timed run, as a network's chain finds them (cpu/cache_eviction.h). The CPU backend
  // honours it; the GPU ones have their own cold_l2.
  bool coldWeights = false;
  // Evict the activations too (the input, the residual and the output, as the kernel reads and
  // writes them) before each timed run. A network's chain finds them out of the caches as well:
  // on MobileNetV2 (2-core EPYC) a depthwise kernel timed in a loop with its weights alone cold
  // took half its time in the chain (features.8's 0.044 against 0.084-0.096 ms), and with every
  // operand flushed 0.080 ms; over all 53 task steps the chain's time was 1.76x the weights-cold
  // loop's and 1.09x the all-cold one's (medians; docs/results/networks.md).
  bool coldActivations = false;
  // The second operand (b) is an activation, not weights (attention's keys and values, which the
  // layer before wrote): it is evicted with the activations, and coldWeights leaves it alone.
  bool activationB = false;
  // Whether b is evicted before each timed run.
  bool coldB() const { return activationB ? coldActivations : coldWeights; }
  // Warm-up runs go on until this process's busy spell has lasted kBusySpellWarmMs (see
  // noteKernelRun), besides warmupRuns (so warmup_runs 0 is not "no warm-up" after a pause).
  // The CPU's and KAS's timings (timeRuns) only, in the process that times: the protocol does not
  // carry it. timeCheckedKernel turns it off for a kernel over the cut-off (one run decides, far
  // from the best), where the runs asked pass the trial's limit (no room), and where the warm-up
  // would push them past it.
  bool warmAfterIdle = true;
};

// A kernel timed after this process sat idle (the compilers' turn between two batches, another
// task's, the pause after a reference) ran its first 50-100 ms of runs up to 2x slower than the
// rest of the same trial, and the median took it: ResNet-18's tasks on the 2-core EPYC, the first
// trial after each batch's builds at a median 1.35x its fastest run (a quarter of them over
// 1.7x), the others 1.1x; the start configuration, always a batch's first, looked 2x slower than
// it runs in the chain. Not the reference's threads (a pause after it changed nothing) and not
// fresh buffers: a pause before every trial made every trial slow, and warm-up runs for 150 ms
// made every trial as steady as the rest (1.13x). So a spell of kernel runs that starts after
// more than kIdleGapMs without one is warmed up for kBusySpellWarmMs before any run is timed.
inline constexpr double kIdleGapMs = 100;
inline constexpr double kBusySpellWarmMs = 150;
// Records a kernel run done outside timeRuns (a checked run), whose time counts for the spell.
void noteKernelRun(std::chrono::steady_clock::time_point start,
                   std::chrono::steady_clock::time_point end);

// What a measurer (CPU or GPU) keeps to set TimingOptions::cutoffMs and giveUpMs: the median of
// the fastest verified kernel so far, and the factor a kernel must be slower than it to be cut off.
class SlowCutoff {
 public:
  explicit SlowCutoff(double factor) : m_factor(factor) {}
  // A checked run is given up at this many times the cut-off (100 times the fastest kernel at
  // the default factor of 10), and never before this: kernels far slower than the best are of
  // no use to any tuner, and a second is little next to the 20 s a trial may take.
  static constexpr double kGiveUpTimesCutoff = 10;
  static constexpr double kGiveUpFloorMs = 1000;
  // t with the cut-off and the give-up limit of the kernels measured so far (none before the
  // first verified one).
  TimingOptions applied(TimingOptions t) const {
    if (m_factor > 0 && m_fastestMs > 0) {
      t.cutoffMs = m_factor * m_fastestMs;
      t.giveUpMs = std::max(kGiveUpFloorMs, kGiveUpTimesCutoff * t.cutoffMs);
    }
    return t;
  }
  void observe(const Measurement& m) {
    if (m.status == TrialStatus::Ok && m.medianMs > 0 &&
        (m_fastestMs == 0 || m.medianMs < m_fastestMs))
      m_fastestMs = m.medianMs;
  }

 private:
  double m_factor;
  double m_fastestMs = 0;
};

// Loads a kernel library built from the CPU template (symbol opevo_cpu_kernel), checks its result
// against the reference, then times it. Runs inside opevo-worker: a kernel that crashes or hangs
// takes the worker down, not the engine.
// `taken`: when the worker took the request, from which TimingOptions::trialMs counts.
Measurement runCpuKernel(
    const std::string& libraryPath, OperatorBuffers& buffers, const TimingOptions& timing,
    std::chrono::steady_clock::time_point taken = std::chrono::steady_clock::now());

// Times the reference library itself (OpenBLAS sgemm or sgemv; oneDNN's convolution alone, its
// operands already in the layouts it prefers, or the plain loop nest where oneDNN is missing).
Measurement runCpuReference(OperatorBuffers& buffers, const TimingOptions& timing);

// Whether a kernel whose checked run took checkedMs is cut off (TimingOptions::cutoffMs): the
// time that decides it, over the cut-off, or nullopt when the kernel is to be timed fully. The
// checked run is the library's first, which pays its code's page faults and cold caches: tens of
// microseconds that put every small kernel over a cut-off of 10x a microsecond best (a 16x32x32
// matmul's trials read 12-77 us by that run, 1-8 us warm). Where it was short one warm run decides,
// as on the GPUs; a long one (a slow kernel) decides alone, one run of it being costly enough.
std::optional<double> overCutoffMs(double checkedMs, const TimingOptions& t,
                                   const std::function<void()>& run,
                                   const std::function<void()>& beforeEach = nullptr);

// The note of a kernel timed by one run because it was slower than the cut-off, on every
// backend: "timed by one run alone: over the cut-off of 0.412 ms".
std::string overCutoffNote(double cutoffMs);

// How a verified kernel was timed, read from its trial's note (overCutoffNote's, or
// timeCheckedKernel's where the runs asked passed the trial's limit): a tuning that keeps no
// trial (KAS's) counts them, so that it says how many of its trials were timed by fewer runs.
enum class TimingCut { None, OverCutoff, TrialLimit };
TimingCut timingCutOf(std::string_view message);

// Where the runs `t` asks for (its warm-ups after the checked run, which was the first, and its
// timed runs) would not end within its trialMs, runs of runMs each after elapsedMs of the trial:
// how many timed runs fit, at most those asked (0: none, the checked run is the time). nullopt
// where they all fit. A fifth of the limit is kept back (see the definition). The busy spell's
// warm-up is not among them: timeCheckedKernel drops it where it would not fit beside them.
std::optional<int> runsThatFit(double elapsedMs, double runMs, const TimingOptions& t);

// How a kernel whose checked run (checkedMs, its library's first) passed is timed, for the CPU's
// kernels and KAS's alike: by one run where it is over the cut-off (overCutoffMs), by the runs
// that fit where those asked pass the trial's limit, counted from `taken` (runsThatFit), else by
// the warm-ups and timed runs asked, the checked run being the first warm-up. `message` says
// which where it was not the runs asked.
struct KernelTimes {
  std::vector<double> timesMs;
  std::string message;
};
KernelTimes timeCheckedKernel(double checkedMs, const TimingOptions& timing,
                              std::chrono::steady_clock::time_point taken,
                              const std::function<void()>& run,
                              const std::function<void()>& beforeEach = nullptr);

// Runs `run` as the options say (warm-up runs, then until the minimum total time and run count)
// and returns each timed run's milliseconds; `beforeEach`, when given, runs untimed before every
// timed run.
std::vector<double> timeRuns(const std::function<void()>& run, const TimingOptions& timing,
                             const std::function<void()>& beforeEach = {});

}  // namespace opevo
