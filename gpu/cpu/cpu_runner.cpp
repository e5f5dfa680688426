#include "cpu/cpu_runner.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <mutex>
#include <thread>

#include "codegen/cpu_compiler.h"
#include "common/median.h"
#include "common/run_watch.h"
#include "cpu/cache_eviction.h"
#include "engine/speed_unit.h"
#include "space/text.h"

namespace opevo {
namespace {

// The signature of every generated kernel (codegen/kernel_codegen.h).
using KernelFn = void (*)(const float*, const float*, float*, const float*, const float*);
using PackedSizeFn = long long (*)(int);
using ConvertFn = void (*)(const float*, float*);

// A kernel in layouts of its own (joint layout tuning) exports its conversions: the operands are
// converted once, before the checked run and the timing, as its producers would have written
// them, and its output converted back for the check.
struct Operands {
  const float* a = nullptr;
  const float* b = nullptr;
  const float* residual = nullptr;
  std::size_t aFloats = 0, bFloats = 0, residualFloats = 0;  // what a, b, residual point to
  std::vector<float> packedA, packedB, packedResidual, packedC;
  ConvertFn unpackC = nullptr;
};

// Looks up ENTRY_pack_* (codegen/kernel_codegen.h): every conversion (a layout kernel) or the
// weights' alone (GeneratedKernel::packedWeights); false with *error set for anything else.
bool prepareOperands(void* library, const OperatorBuffers& buffers, Operands& o,
                     std::string* error) {
  o.a = buffers.a.data();
  o.aFloats = buffers.a.size();
  o.b = buffers.b.data();
  o.bFloats = buffers.b.size();
  o.residual = buffers.residualData();
  o.residualFloats = buffers.residual.size();
  auto size = reinterpret_cast<PackedSizeFn>(dlsym(library, "opevo_cpu_kernel_packed_size"));
  if (!size) return true;
  auto packA = reinterpret_cast<ConvertFn>(dlsym(library, "opevo_cpu_kernel_pack_a"));
  auto packB = reinterpret_cast<ConvertFn>(dlsym(library, "opevo_cpu_kernel_pack_b"));
  auto packC = reinterpret_cast<ConvertFn>(dlsym(library, "opevo_cpu_kernel_pack_c"));
  o.unpackC = reinterpret_cast<ConvertFn>(dlsym(library, "opevo_cpu_kernel_unpack_c"));
  const bool weightsOnly = packB && !packA && !packC && !o.unpackC;
  if (!packB || (!weightsOnly && (!packA || !packC || !o.unpackC))) {
    *error = "kernel library has opevo_cpu_kernel_packed_size but not every layout conversion";
    return false;
  }
  o.packedB.resize(std::size_t(size(1)));
  packB(o.b, o.packedB.data());
  o.b = o.packedB.data();
  o.bFloats = o.packedB.size();
  if (weightsOnly) return true;
  o.packedA.resize(std::size_t(size(0)));
  o.packedC.assign(std::size_t(size(2)), 1e30f);
  packA(o.a, o.packedA.data());
  o.a = o.packedA.data();
  o.aFloats = o.packedA.size();
  if (o.residual) {
    o.packedResidual.resize(o.packedC.size());
    packC(o.residual, o.packedResidual.data());
    o.residual = o.packedResidual.data();
    o.residualFloats = o.packedResidual.size();
  }
  return true;
}

// A first run's extra costs (page faults, cold caches) are well under this: a checked run this
// long can stand for the kernel's time, a shorter one cannot.
constexpr double kColdStartMs = 50;

// This process's spell of kernel runs (noteKernelRun): when it began and when its last run ended.
struct BusySpell {
  std::mutex mutex;
  std::chrono::steady_clock::time_point began, lastEnd;
};

BusySpell& busySpell() {
  static BusySpell spell;
  return spell;
}

std::chrono::duration<double, std::milli> millis(double ms) {
  return std::chrono::duration<double, std::milli>(ms);
}

// When a spell that takes a run starting now will have been warmed up.
std::chrono::steady_clock::time_point spellWarmAt(std::chrono::steady_clock::time_point now) {
  BusySpell& s = busySpell();
  const std::lock_guard<std::mutex> lock(s.mutex);
  const auto began = now - s.lastEnd > millis(kIdleGapMs) ? now : s.began;
  return began +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(millis(kBusySpellWarmMs));
}

// How long the spell's warm-up would go on if timeRuns began now, in milliseconds.
double spellWarmLeftMs() {
  const auto now = std::chrono::steady_clock::now();
  return std::max(0.0, std::chrono::duration<double, std::milli>(spellWarmAt(now) - now).count());
}

double msSince(std::chrono::steady_clock::time_point then) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - then).count();
}

}  // namespace

void noteKernelRun(std::chrono::steady_clock::time_point start,
                   std::chrono::steady_clock::time_point end) {
  BusySpell& s = busySpell();
  const std::lock_guard<std::mutex> lock(s.mutex);
  if (start - s.lastEnd > millis(kIdleGapMs)) s.began = start;
  s.lastEnd = end;
}

std::vector<double> timeRuns(const std::function<void()>& run, const TimingOptions& t,
                             const std::function<void()>& beforeEach) {
  const auto noted = [&run] {
    const auto start = std::chrono::steady_clock::now();
    run();
    const auto end = std::chrono::steady_clock::now();
    noteKernelRun(start, end);
    return std::chrono::duration<double, std::milli>(end - start).count();
  };
  for (int i = 0; i < t.warmupRuns; ++i) noted();
  if (t.warmAfterIdle) {
    // Each with the eviction the timed runs have: the spell is warmed by the work it precedes.
    const auto warm = spellWarmAt(std::chrono::steady_clock::now());
    while (std::chrono::steady_clock::now() < warm) {
      if (beforeEach) beforeEach();
      noted();
    }
  }
  std::vector<double> times;
  double total = 0;
  while ((total < t.minTotalMs || int(times.size()) < t.minRuns) && int(times.size()) < t.maxRuns) {
    if (beforeEach) beforeEach();
    const double ms = noted();
    times.push_back(ms);
    total += ms;
  }
  return times;
}

std::optional<double> overCutoffMs(double checkedMs, const TimingOptions& t,
                                   const std::function<void()>& run,
                                   const std::function<void()>& beforeEach) {
  if (!(t.cutoffMs > 0) || checkedMs <= t.cutoffMs) return std::nullopt;
  if (checkedMs >= kColdStartMs) return checkedMs;
  TimingOptions one = t;
  one.warmupRuns = 0;
  one.warmAfterIdle = false;
  one.minRuns = one.maxRuns = 1;
  one.minTotalMs = 0;
  const double warmMs = timeRuns(run, one, beforeEach).front();
  return warmMs > t.cutoffMs ? std::optional<double>(warmMs) : std::nullopt;
}

namespace {
constexpr std::string_view kOverCutoff = "timed by one run alone: over the cut-off of ";
constexpr std::string_view kTimedBy = "timed by ";
constexpr std::string_view kTrialLimit = " limit";
constexpr std::string_view kRunsAskedPass = "; the runs asked pass the trial's ";
}  // namespace

std::string overCutoffNote(double cutoffMs) {
  char ms[32];  // a cut-off under a millisecond is common: not as a whole number
  std::snprintf(ms, sizeof ms, cutoffMs >= 100 ? "%.0f" : "%.3g", cutoffMs);
  return std::string(kOverCutoff) + ms + " ms";
}

TimingCut timingCutOf(std::string_view message) {
  if (message.starts_with(kOverCutoff)) return TimingCut::OverCutoff;
  if (message.starts_with(kTimedBy) && message.find(kRunsAskedPass) != std::string_view::npos &&
      message.ends_with(kTrialLimit))
    return TimingCut::TrialLimit;
  return TimingCut::None;
}

std::optional<int> runsThatFit(double elapsedMs, double runMs, const TimingOptions& t) {
  // What the limit keeps back: the reply, the request's way to the worker, and runs that take
  // longer than the checked one. A restarted worker's start is not in it: the caller waits for
  // its hello before its clock starts (WorkerClient::call).
  constexpr double kTrialShare = 0.8;
  if (!(t.trialMs > 0) || !(runMs > 0)) return std::nullopt;
  // In double until bounded: a tiny run under a long --min-time-ms passes any int.
  const int timed = static_cast<int>(
      std::min<double>(t.maxRuns, std::max<double>(t.minRuns, std::ceil(t.minTotalMs / runMs))));
  const int asked = std::max(0, t.warmupRuns - 1) + timed;
  const double left = kTrialShare * t.trialMs - elapsedMs;
  if (asked * runMs <= left) return std::nullopt;
  // The room goes to timed runs, never more than were asked; the warm-ups are what is dropped.
  return std::clamp(static_cast<int>(std::max(0.0, left) / runMs), 0, timed);
}

KernelTimes timeCheckedKernel(double checkedMs, const TimingOptions& timing,
                              std::chrono::steady_clock::time_point taken,
                              const std::function<void()>& run,
                              const std::function<void()>& beforeEach) {
  KernelTimes k;
  if (const std::optional<double> over = overCutoffMs(checkedMs, timing, run, beforeEach)) {
    k.timesMs = {*over};
    k.message = overCutoffNote(timing.cutoffMs);
  } else if (const std::optional<int> fit = runsThatFit(msSince(taken), checkedMs, timing)) {
    // The checked run warmed the kernel. A long one stands for its time where no other fits; a
    // short one does not (its first run's costs), and one warm run of it fits in the share kept.
    const int runs = *fit == 0 && checkedMs < kColdStartMs ? 1 : *fit;
    if (runs == 0) {
      k.timesMs = {checkedMs};
    } else {
      TimingOptions few = timing;
      few.warmupRuns = 0;
      few.warmAfterIdle = false;
      few.minRuns = few.maxRuns = runs;
      few.minTotalMs = 0;
      k.timesMs = timeRuns(run, few, beforeEach);
    }
    k.message = (runs == 0 ? std::string("timed by its checked run alone")
                           : "timed by " + counted(runs, "run", "runs")) +
                ": a run takes " + durationText(checkedMs / 1e3) + std::string(kRunsAskedPass) +
                durationText(timing.trialMs / 1e3) + std::string(kTrialLimit);
  } else {
    // The checked run ran the same kernel on the same buffers: it was the first warm-up.
    TimingOptions rest = timing;
    rest.warmupRuns = std::max(0, timing.warmupRuns - 1);
    // The spell's warm-up (up to one run past it) is not among the runs runsThatFit counted:
    // where it would push them past the trial's limit, they go without it rather than be killed
    // with their verified result.
    if (rest.warmAfterIdle && timing.trialMs > 0 &&
        runsThatFit(msSince(taken) + spellWarmLeftMs() + checkedMs, checkedMs, timing))
      rest.warmAfterIdle = false;
    k.timesMs = timeRuns(run, rest, beforeEach);
  }
  return k;
}

Measurement runCpuKernel(const std::string& libraryPath, OperatorBuffers& buffers,
                         const TimingOptions& timing, std::chrono::steady_clock::time_point taken) {
  Measurement m;
  // OpenMP's runtime must outlive each kernel library, or unloading one kills its thread pool.
  keepOpenMpRuntimeLoaded();
  void* library = dlopen(libraryPath.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    m.status = TrialStatus::LaunchError;
    m.message = std::string("cannot load kernel library: ") + dlerror();
    return m;
  }
  auto kernel = reinterpret_cast<KernelFn>(dlsym(library, "opevo_cpu_kernel"));
  if (!kernel) {
    m.status = TrialStatus::LaunchError;
    m.message = "kernel library lacks opevo_cpu_kernel";
    dlclose(library);
    return m;
  }
  Operands o;
  if (std::string error; !prepareOperands(library, buffers, o, &error)) {
    m.status = TrialStatus::LaunchError;
    m.message = error;
    dlclose(library);
    return m;
  }
  buffers.computeReference();
  // Poison the output first so a kernel that skips elements cannot pass. Kept for the worker's
  // next trial: a fresh vector of C2's 287 MB was faulted in every time.
  thread_local std::vector<float> c;
  c.assign(buffers.outputSize(), 1e30f);
  float* const out = o.unpackC ? o.packedC.data() : c.data();
  const auto start = std::chrono::steady_clock::now();
  {
    const WatchedRun watched(timing.giveUpMs);
    kernel(o.a, o.b, out, buffers.biasData(), o.residual);
  }
  const auto verifyStart = std::chrono::steady_clock::now();
  const double checkedMs = std::chrono::duration<double, std::milli>(verifyStart - start).count();
  if (o.unpackC) o.unpackC(out, c.data());
  const double error = maxRelativeError(c, buffers.reference);
  const auto verifyEnd = std::chrono::steady_clock::now();
  m.verifyMs = std::chrono::duration<double, std::milli>(verifyEnd - verifyStart).count();
  // The check keeps the worker busy as well (C2's 72 M outputs: 0.4-0.8 s), so it belongs to the
  // checked run's spell: counted from the run's end, every large trial would begin a spell anew
  // and pay a warm-up run.
  noteKernelRun(start, verifyEnd);
  if (!(error <= kVerifyTolerance)) {
    m.status = TrialStatus::WrongResult;
    m.message = "result differs from the reference: max relative error " + std::to_string(error);
    dlclose(library);
    return m;
  }
  const auto run = [&] { kernel(o.a, o.b, out, buffers.biasData(), o.residual); };
  const std::size_t outFloats = o.unpackC ? o.packedC.size() : c.size();
  const std::vector<CachedBuffer> cold =
      evictedBeforeEachRun({{o.a, o.aFloats * sizeof(float)},
                            {o.b, o.bFloats * sizeof(float)},
                            {buffers.biasData(), buffers.bias.size() * sizeof(float)},
                            {o.residual, o.residualFloats * sizeof(float)},
                            {out, outFloats * sizeof(float)}},
                           timing.coldWeights, timing.coldB(), timing.coldActivations);
  const std::function<void()> beforeEach = cold.empty() ? nullptr : std::function<void()>([&cold] {
    for (const CachedBuffer& c : cold) evictFromCaches(c.data, c.bytes);
  });
  KernelTimes times = timeCheckedKernel(checkedMs, timing, taken, run, beforeEach);
  m.timesMs = std::move(times.timesMs);
  m.message = std::move(times.message);
  m.medianMs = median(m.timesMs);
  m.speed = speedIn(deviceSpeedUnit("cpu"), buffers.op.flops(), m.medianMs);
  dlclose(library);
  return m;
}

Measurement runCpuReference(OperatorBuffers& buffers, const TimingOptions& timing) {
  Measurement m;
  // Prepared once, outside the timing (oneDNN's reorders into its own layouts, as its users do).
  const std::function<void()> run = buffers.referenceTimer();
  m.timesMs = timeRuns(
      run, timing,
      buffers.referenceEviction(timing.coldWeights, timing.coldB(), timing.coldActivations));
  m.medianMs = median(m.timesMs);
  m.speed = speedIn(deviceSpeedUnit("cpu"), buffers.op.flops(), m.medianMs);
  // OpenBLAS's threads spin for about a tenth of a second after its last call (see
  // OperatorBuffers::computeReference): a kernel this worker times next must not share the cores
  // with them. Convolutions are oneDNN's or a loop nest, on OpenMP's threads, which soon sleep.
  if (buffers.op.kind != OpKind::Conv2D)
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  return m;
}

}  // namespace opevo
