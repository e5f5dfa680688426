#pragma once

// What the CUDA and HIP timing backends share: both wrappers (cuda::CudaDriver, hip::HipRuntime)
// expose the same calls under the same names, so one copy of the measurement policy serves both:
// the device-side operands, verification against the host reference, the timing loop, and the
// launch checks. Everything here runs inside opevo-worker.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "codegen/device_limits.h"
#include "codegen/kernel_codegen.h"
#include "common/device_compare.h"
#include "common/device_memory.h"
#include "common/run_watch.h"
#include "cpu/cpu_runner.h"
#include "engine/measurement.h"
#include "layout/operand_layouts.h"

namespace opevo {

// One generated kernel for the worker to run: its compiled image on disk, entry point and launch.
struct GpuKernelRequest {
  std::string binaryPath;  // cubin, PTX or AMDGPU code object
  std::string entry = "opevo_kernel";
  codegen::LaunchConfig launch;
  bool coldL2 = false;  // overwrite an L2-sized buffer before each timed run
  // Set for a kernel in layouts of its own (a configuration of a joint layout space,
  // GeneratedKernel::usesLayouts): A, B and the residual are packed into them on the host before
  // the upload, and C is unpacked after the checked run, so the check stays against the plain
  // reference.
  std::optional<layout::OperandLayouts> layouts;
  // Set for a kernel that reads its weights transformed (GeneratedKernel::packedWeights,
  // Winograd's): B is transformed on the host before the upload, as a network holds it.
  bool winogradWeights = false;
};

struct GpuRunResult {
  Measurement measurement;
  // A runtime call failed after the context was in use: a faulting kernel leaves the context
  // unusable, so the worker replies and exits (the client starts a fresh one).
  bool contextLost = false;
  std::string library;  // reference only: "cuBLAS sgemm (libcublas.so.13)", "plain kernel (...)"
};

// A failed call as a trial: errors from the launch itself or from loading the module are launch
// errors (bad configuration, too many resources); anything surfacing while the kernel runs is a
// runtime fault.
GpuRunResult deviceFailure(const DeviceError& e);

// Median and speed from the timed runs.
void finishTiming(Measurement& m, std::vector<double> times, const OperatorSpec& op);

// The whole file, or DeviceError(-1, "<loadCall>: cannot read PATH").
std::string readBinaryFile(const std::string& path, const char* loadCall);

// What the device operands are filled from: the shared host buffers, or, given the kernel's own
// layouts, copies of A, B and the residual packed into them (as a network's producers would have
// written them; not timed), with C's size and layout taken from layouts->c; or, for a kernel
// that reads its weights transformed, B transformed (codegen::winogradWeights).
struct HostOperands {
  HostOperands(const OperatorBuffers& buffers, const layout::OperandLayouts* layouts,
               bool winogradWeights = false);
  HostOperands(const HostOperands&) = delete;
  HostOperands& operator=(const HostOperands&) = delete;
  std::span<const float> a, b, residual;
  std::size_t cSize = 0;
  std::optional<layout::Layout> cLayout;  // set when C must be unpacked

 private:
  std::vector<float> m_a, m_b, m_residual;
};

// HostOperands(buffers, layouts, winogradWeights), the last packing reused while the operator,
// the layouts and the transform stay the same: Layout::pack takes every element through the
// primitives (seconds for tens of millions of elements), the trials of a joint run's loop-only
// stage share one layout, and every trial of a Winograd run the same transformed weights.
std::shared_ptr<const HostOperands> hostOperandsFor(const OperatorBuffers& buffers,
                                                    const layout::OperandLayouts* layouts,
                                                    bool winogradWeights = false);

// The operator's inputs and output on the device, filled from the shared host buffers (packed
// into the kernel's layouts when it has any).
template <class Api>
struct DeviceOperands {
  DeviceOperands(Api& api, const OperatorBuffers& buffers,
                 const layout::OperandLayouts* layouts = nullptr, bool winogradWeights = false)
      : DeviceOperands(api, buffers, *hostOperandsFor(buffers, layouts, winogradWeights)) {}
  DeviceBuffer<Api> a, b, c, bias, residual;
  std::optional<layout::Layout> cLayout;

 private:
  DeviceOperands(Api& api, const OperatorBuffers& buffers, const HostOperands& host)
      : a(api, host.a.size() * sizeof(float)),
        b(api, host.b.size() * sizeof(float)),
        c(api, host.cSize * sizeof(float)),
        // One float at least, so an unused operand is still a valid (never read) allocation.
        bias(api, std::max<std::size_t>(buffers.bias.size(), 1) * sizeof(float)),
        residual(api, std::max<std::size_t>(host.residual.size(), 1) * sizeof(float)),
        cLayout(host.cLayout) {
    api.copyToDevice(a.get(), host.a.data(), a.bytes());
    api.copyToDevice(b.get(), host.b.data(), b.bytes());
    if (!buffers.bias.empty()) api.copyToDevice(bias.get(), buffers.bias.data(), bias.bytes());
    if (!host.residual.empty())
      api.copyToDevice(residual.get(), host.residual.data(), residual.bytes());
  }
};

// Loads a module and unloads it on scope exit.
template <class Api>
struct ScopedModule {
  ScopedModule(Api& a, const std::string& image) : api(a), module(a.loadModule(image)) {}
  ~ScopedModule() { api.unloadModule(module); }
  ScopedModule(const ScopedModule&) = delete;
  ScopedModule& operator=(const ScopedModule&) = delete;
  Api& api;
  void* module;
};

// Launches f with the kernel signature (A, B, C, Bias, Residual).
template <class Api>
std::function<void()> launcher(Api& api, void* f, const codegen::LaunchConfig& l,
                               DeviceOperands<Api>& dev) {
  return [&api, f, l, &dev] {
    void* args[] = {dev.a.address(), dev.b.address(), dev.c.address(), dev.bias.address(),
                    dev.residual.address()};
    const unsigned grid[3] = {unsigned(l.grid.x), unsigned(l.grid.y), unsigned(l.grid.z)};
    const unsigned block[3] = {unsigned(l.block.x), unsigned(l.block.y), unsigned(l.block.z)};
    api.launch(f, grid, block, unsigned(l.sharedBytes), args);
  };
}

// Runs once on a NaN-filled output (so an element the kernel skips cannot pass). A run still
// going after giveUpMs (0: no limit) is given up by the process's RunWatch.
template <class Api>
void runOnPoisonedOutput(Api& api, DeviceOperands<Api>& dev, const std::function<void()>& run,
                         double* runMs = nullptr, double giveUpMs = 0) {
  api.memset32(dev.c.get(), 0x7fc00000u, dev.c.bytes() / sizeof(float));
  api.synchronize();
  const auto start = std::chrono::steady_clock::now();
  {
    const WatchedRun watched(giveUpMs);
    run();
    api.synchronize();
  }
  if (runMs)
    *runMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// Copies the output back into `out`, unpacked into the plain layout when the kernel writes its
// own. `out` keeps its memory from one call to the next when the caller keeps it: a fresh vector
// for C2's 287 MB output was zeroed and faulted in for every trial.
template <class Api>
void copyOutput(Api& api, DeviceOperands<Api>& dev, const OperatorBuffers& buffers,
                std::vector<float>& out) {
  const std::size_t cSize = dev.c.bytes() / sizeof(float);
  if (dev.cLayout) {
    thread_local std::vector<float> laidOut;  // kept like `out`, for the next trial
    laidOut.resize(cSize);
    api.copyToHost(laidOut.data(), dev.c.get(), dev.c.bytes());
    out.resize(buffers.outputSize());
    dev.cLayout->unpack(laidOut, out);
    return;
  }
  out.resize(cSize);
  api.copyToHost(out.data(), dev.c.get(), dev.c.bytes());
}

// runOnPoisonedOutput, then copyOutput.
template <class Api>
void outputOfOneRun(Api& api, DeviceOperands<Api>& dev, const OperatorBuffers& buffers,
                    const std::function<void()>& run, std::vector<float>& out,
                    double* runMs = nullptr, double giveUpMs = 0) {
  runOnPoisonedOutput(api, dev, run, runMs, giveUpMs);
  copyOutput(api, dev, buffers, out);
}

// The reference output of the GPU backends, settled once per operator in a worker: run (the
// vendor library, or the plain reference kernel) computes it on the device, and it becomes
// buffers.reference once it matches the exact result at sampled elements (spotCheck). The host
// computing the whole output instead took longer than a trial may (C2, a 1.2e11 multiply-add
// convolution, in the plain loop nest without oneDNN): every trial timed out. An output that
// fails the spot check is not used: the host computes the whole reference, and the run that
// produced it fails its own verification against it.
template <class Api>
void settleReference(Api& api, DeviceOperands<Api>& dev, OperatorBuffers& buffers,
                     const std::function<void()>& run) {
  if (!buffers.reference.empty()) return;
  std::vector<float> out;
  outputOfOneRun(api, dev, buffers, run, out);
  // Sampled values can pass while a NaN (an element left unwritten) hides elsewhere: every
  // trial would then fail against the reference, so the whole output must be finite too.
  const bool finite = std::all_of(out.begin(), out.end(), [](float v) { return std::isfinite(v); });
  if (!finite || buffers.spotCheck(out)) {
    buffers.computeReference();
    return;
  }
  buffers.reference = std::move(out);
}

// Compares one run's output with the reference (the host's, when none was settled on the
// device): an error message, or nullopt when it matches.
// A large output in the plain layout is compared on the device when `onDevice` is given
// (device_compare.h); any other on the host. `verifyMs` gets the time the comparison took, the
// copy back included.
template <class Api>
std::optional<std::string> verifyOnDevice(Api& api, DeviceOperands<Api>& dev,
                                          OperatorBuffers& buffers,
                                          const std::function<void()>& run,
                                          double* checkedMs = nullptr, double giveUpMs = 0,
                                          DeviceComparison<Api>* onDevice = nullptr,
                                          double* verifyMs = nullptr) {
  buffers.computeReference();
  runOnPoisonedOutput(api, dev, run, checkedMs, giveUpMs);
  const auto start = std::chrono::steady_clock::now();
  std::optional<double> error;
  if (onDevice && !dev.cLayout) error = onDevice->maxRelativeError(api, dev.c, buffers);
  // The device's "wrong" is confirmed on the host: a kernel that wrote past its output can have
  // damaged the reference's copy there, which would then fail every correct kernel after it.
  if (!error || *error > kVerifyTolerance) {
    // Kept for the worker's next trial (one thread runs them all).
    thread_local std::vector<float> c;
    copyOutput(api, dev, buffers, c);
    const double onHost = maxRelativeError(c, buffers.reference);
    if (error && onHost <= kVerifyTolerance) onDevice->forgetReference();
    error = onHost;
  }
  if (verifyMs)
    *verifyMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (*error <= kVerifyTolerance) return std::nullopt;
  return "result differs from the reference: max relative error " + std::to_string(*error);
}

// Warm-up, then one event-timed run at a time until the runs add up to minTotalMs and at least
// minRuns ran. Cold-L2 mode overwrites an L2-sized buffer before each run, outside the events,
// so every run reads its operands from device memory (as nvbench does).
template <class Api>
std::vector<double> timeOnDevice(Api& api, const std::function<void()>& run, const TimingOptions& t,
                                 bool coldL2) {
  for (int i = 0; i < t.warmupRuns; ++i) run();
  api.synchronize();
  std::optional<DeviceBuffer<Api>> flush;
  if (coldL2 && api.device().l2Bytes > 0) flush.emplace(api, std::size_t(api.device().l2Bytes));
  void* start = api.createEvent();
  void* end = api.createEvent();
  std::vector<double> times;
  double total = 0;
  try {
    while ((total < t.minTotalMs || int(times.size()) < t.minRuns) &&
           int(times.size()) < t.maxRuns) {
      if (flush)
        api.memset8(flush->get(), static_cast<unsigned char>(times.size()), flush->bytes());
      api.record(start);
      run();
      api.record(end);
      api.waitEvent(end);
      const double ms = api.elapsedMs(start, end);
      times.push_back(ms);
      total += ms;
    }
  } catch (...) {
    api.destroyEvent(start);
    api.destroyEvent(end);
    throw;
  }
  api.destroyEvent(start);
  api.destroyEvent(end);
  return times;
}

// A wrong result is a failed trial, never a fast one: only a verified run is timed.
template <class Api>
Measurement verifyThenTime(Api& api, DeviceOperands<Api>& dev, OperatorBuffers& buffers,
                           const std::function<void()>& run, const TimingOptions& timing,
                           bool coldL2, DeviceComparison<Api>* onDevice = nullptr) {
  Measurement m;
  double checkedMs = 0;
  if (auto wrong = verifyOnDevice(api, dev, buffers, run, &checkedMs, timing.giveUpMs, onDevice,
                                  &m.verifyMs)) {
    m.status = TrialStatus::WrongResult;
    m.message = *wrong;
    return m;
  }
  // A kernel far slower than the fastest so far is timed by one run: more would not change the
  // verdict, and on the H200 such kernels (C2's took up to seconds a run) spent most of a run's
  // time, some of it as 20-second timeouts. The checked run can include the module's lazy
  // loading, so one event-timed run decides.
  if (timing.cutoffMs > 0 && checkedMs > timing.cutoffMs) {
    TimingOptions one = timing;
    one.warmupRuns = 0;
    one.minRuns = 1;
    one.maxRuns = 1;
    one.minTotalMs = 0;
    std::vector<double> times = timeOnDevice(api, run, one, coldL2);
    if (times.front() > timing.cutoffMs) {
      finishTiming(m, std::move(times), buffers.op);
      m.message = overCutoffNote(timing.cutoffMs);
      return m;
    }
  }
  finishTiming(m, timeOnDevice(api, run, timing, coldL2), buffers.op);
  return m;
}

// Inside opevo-worker: loads the image, checks the launch against the device (limits returns
// the device's limits for this function, prepare makes last per-function settings), verifies
// and times (a large output verified on the device by onDevice). Any runtime error becomes the
// trial's failure.
template <class Api>
GpuRunResult runDeviceKernel(
    Api& api, const GpuKernelRequest& request, OperatorBuffers& buffers,
    const TimingOptions& timing, const char* loadCall,
    const std::function<codegen::DeviceLimits(void* f, KernelResources& res)>& limits,
    const std::function<void(void* f)>& prepare, DeviceComparison<Api>* onDevice = nullptr) {
  GpuRunResult r;
  try {
    api.makeCurrent();
    ScopedModule<Api> module(api, readBinaryFile(request.binaryPath, loadCall));
    void* f = api.getFunction(module.module, request.entry);
    // A launch that breaks the device's limits is Rejected here rather than failing (and
    // poisoning nothing) in the launch call.
    KernelResources res;
    const codegen::DeviceLimits deviceLimits = limits(f, res);
    const auto problems = codegen::checkLaunch(request.launch, &res, deviceLimits);
    if (!problems.empty()) {
      r.measurement.status = TrialStatus::Rejected;
      r.measurement.message = problems.front();
      return r;
    }
    prepare(f);
    DeviceOperands<Api> dev(api, buffers, request.layouts ? &*request.layouts : nullptr,
                            request.winogradWeights);
    r.measurement = verifyThenTime(api, dev, buffers, launcher(api, f, request.launch, dev), timing,
                                   request.coldL2, onDevice);
  } catch (const DeviceError& e) {
    return deviceFailure(e);
  }
  return r;
}

// What computes the operator's reference on the device: the vendor library's call or the plain
// reference kernel (its module kept loaded with it), and the name the reference goes by.
template <class Api>
struct ReferenceRun {
  std::function<void()> run;
  std::string library;
  std::unique_ptr<ScopedModule<Api>> module;
  std::optional<Measurement> failure;  // the plain kernel did not compile
};

// The plain reference kernel (gpu/codegen/reference_kernels), compiled by the backend's own
// compiler (compile: source -> CompileResult). why says why no vendor library served.
template <class Api>
ReferenceRun<Api> plainReferenceRun(Api& api, DeviceOperands<Api>& dev,
                                    const OperatorBuffers& buffers, codegen::Backend backend,
                                    const std::function<CompileResult(const std::string&)>& compile,
                                    const std::string& why) {
  ReferenceRun<Api> r;
  const auto kernel = codegen::generateReferenceKernel(buffers.op, backend);
  const CompileResult compiled = compile(kernel.source);
  if (!compiled.ok) {
    Measurement m;
    m.status = TrialStatus::CompileError;
    m.message = compiled.log.substr(0, 2000);
    r.failure = m;
    return r;
  }
  r.module = std::make_unique<ScopedModule<Api>>(api, compiled.binary);
  r.library = "plain kernel (" + why + ")";
  r.run = launcher(api, api.getFunction(r.module->module, kernel.entry), kernel.launch, dev);
  return r;
}

// Makes ref, a library call of the plain operator, compute the fused one: the generated epilogue
// kernel (codegen::generateEpilogueKernel) runs after it in place on C, as a framework without
// fusion runs such a layer, and the name says so. True when there is nothing to append or it was
// appended; false, with *why, when the kernel did not compile.
template <class Api>
bool appendEpilogue(Api& api, DeviceOperands<Api>& dev, const OperatorBuffers& buffers,
                    codegen::Backend backend,
                    const std::function<CompileResult(const std::string&)>& compile,
                    ReferenceRun<Api>& ref, std::string* why) {
  if (buffers.op.epilogue.empty()) return true;
  // ref is a library call: a plain kernel's module would be unloaded under its launches here.
  if (ref.module) throw std::logic_error("appendEpilogue: the reference already has a module");
  const auto kernel = codegen::generateEpilogueKernel(buffers.op, backend);
  const CompileResult compiled = compile(kernel.source);
  if (!compiled.ok) {
    *why = "the epilogue kernel did not compile: " + compiled.log.substr(0, 500);
    return false;
  }
  ref.module = std::make_unique<ScopedModule<Api>>(api, compiled.binary);
  const std::function<void()> library = std::move(ref.run);
  const std::function<void()> epilogue =
      launcher(api, api.getFunction(ref.module->module, kernel.entry), kernel.launch, dev);
  ref.run = [library, epilogue] {
    library();
    epilogue();
  };
  ref.library += " + epilogue kernel";
  return true;
}

// Before the first kernel of an operator in a worker: the reference settled on the device
// (settleReference), on plain operands of its own, since the kernel's may be in layouts of its
// own; referenceRun chooses what computes it. A device error becomes the trial's failure.
template <class Api>
std::optional<GpuRunResult> settleBeforeFirstKernel(
    Api& api, OperatorBuffers& buffers,
    const std::function<ReferenceRun<Api>(Api&, DeviceOperands<Api>&, const OperatorBuffers&)>&
        referenceRun) {
  if (!buffers.reference.empty()) return std::nullopt;
  try {
    api.makeCurrent();
    DeviceOperands<Api> dev(api, buffers);
    ReferenceRun<Api> ref = referenceRun(api, dev, buffers);
    if (!ref.failure) settleReference(api, dev, buffers, ref.run);
  } catch (const DeviceError& e) {
    // The reference's own failure (a library's error status, say) is not the kernel's: the host
    // computes the reference instead. Only a context the failure left unusable ends the trial
    // (and the worker, which replies and exits).
    try {
      api.synchronize();
    } catch (const DeviceError&) {
      return deviceFailure(e);
    }
  }
  // Whatever the device could not settle, verifyOnDevice has the host compute.
  return std::nullopt;
}

// The reference measurement: the reference settled on the device (settleReference), then the
// run verified against it and timed.
template <class Api>
GpuRunResult timeReference(Api& api, DeviceOperands<Api>& dev, OperatorBuffers& buffers,
                           ReferenceRun<Api>& ref, const TimingOptions& timing, bool coldL2) {
  GpuRunResult r;
  if (ref.failure) {
    r.measurement = *ref.failure;
    return r;
  }
  settleReference(api, dev, buffers, ref.run);
  r.library = ref.library;
  r.measurement = verifyThenTime(api, dev, buffers, ref.run, timing, coldL2);
  return r;
}

}  // namespace opevo
