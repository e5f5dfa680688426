#include "cuda/cuda_runner.h"

#include <algorithm>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>

#include "codegen/device_limits.h"
#include "cuda/cublas_reference.h"
#include "cuda/cuda_driver.h"
#include "cuda/nvrtc_compiler.h"

namespace opevo {
namespace {

using cuda::CudaDriver;
using cuda::CudaError;
using cuda::DeviceBuffer;

// The operator's inputs and output on the device, filled from the shared host buffers.
struct DeviceOperands {
  DeviceOperands(CudaDriver& d, const OperatorBuffers& buffers)
      : a(d, buffers.a.size() * sizeof(float)),
        b(d, buffers.b.size() * sizeof(float)),
        c(d, buffers.outputSize() * sizeof(float)) {
    d.copyToDevice(a.get(), buffers.a.data(), a.bytes());
    d.copyToDevice(b.get(), buffers.b.data(), b.bytes());
  }
  DeviceBuffer a, b, c;
};

// Runs once on a NaN-filled output (so an element the kernel skips cannot pass), copies back and
// compares with the host reference; an error message, or nullopt when it matches.
std::optional<std::string> verify(CudaDriver& d, DeviceOperands& dev, OperatorBuffers& buffers,
                                  const std::function<void()>& run) {
  buffers.computeReference();
  d.memset32(dev.c.get(), 0x7fc00000u, buffers.outputSize());
  run();
  d.synchronize();
  std::vector<float> c(buffers.outputSize());
  d.copyToHost(c.data(), dev.c.get(), dev.c.bytes());
  const double error = maxRelativeError(c, buffers.reference);
  if (error <= kVerifyTolerance) return std::nullopt;
  return "result differs from the reference: max relative error " + std::to_string(error);
}

// Warm-up, then one CUDA-event-timed run at a time until the runs add up to minTotalMs and at
// least minRuns ran. Cold-L2 mode overwrites an L2-sized buffer before each run, outside the
// events, so every run reads its operands from device memory (as nvbench does).
std::vector<double> timeRuns(CudaDriver& d, const std::function<void()>& run,
                             const TimingOptions& t, bool coldL2) {
  for (int i = 0; i < t.warmupRuns; ++i) run();
  d.synchronize();
  std::optional<DeviceBuffer> flush;
  if (coldL2 && d.device().l2Bytes > 0) flush.emplace(d, std::size_t(d.device().l2Bytes));
  cuda::Event start = d.createEvent(), end = d.createEvent();
  std::vector<double> times;
  double total = 0;
  try {
    while ((total < t.minTotalMs || int(times.size()) < t.minRuns) &&
           int(times.size()) < t.maxRuns) {
      if (flush) d.memset8(flush->get(), static_cast<unsigned char>(times.size()), flush->bytes());
      d.record(start);
      run();
      d.record(end);
      d.waitEvent(end);
      const double ms = d.elapsedMs(start, end);
      times.push_back(ms);
      total += ms;
    }
  } catch (...) {
    d.destroyEvent(start);
    d.destroyEvent(end);
    throw;
  }
  d.destroyEvent(start);
  d.destroyEvent(end);
  return times;
}

void finish(Measurement& m, std::vector<double> times, const OperatorSpec& op) {
  m.timesMs = std::move(times);
  m.medianMs = median(m.timesMs);
  m.speed = m.medianMs > 0 ? op.flops() / (m.medianMs * 1e-3) / 1e12 : 0;
}

// A failed CUDA call: errors from cuLaunchKernel itself are launch errors (bad configuration, too
// many resources); anything surfacing while the kernel runs is a runtime fault.
CudaRunResult failure(const CudaError& e) {
  CudaRunResult r;
  const std::string what = e.what();
  r.measurement.status = what.rfind("cuLaunchKernel", 0) == 0 || what.rfind("cuFunc", 0) == 0 ||
                                 what.rfind("cuModule", 0) == 0
                             ? TrialStatus::LaunchError
                             : TrialStatus::RuntimeFault;
  r.measurement.message = what;
  r.contextLost = true;
  return r;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CudaError(-1, "cuModuleLoadData: cannot read " + path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Launches entry from module with the kernel signature (A, B, C).
std::function<void()> launcher(CudaDriver& d, cuda::Function f, const codegen::LaunchConfig& l,
                               DeviceOperands& dev) {
  return [&d, f, l, &dev] {
    void* args[] = {dev.a.address(), dev.b.address(), dev.c.address()};
    const unsigned grid[3] = {unsigned(l.grid.x), unsigned(l.grid.y), unsigned(l.grid.z)};
    const unsigned block[3] = {unsigned(l.block.x), unsigned(l.block.y), unsigned(l.block.z)};
    d.launch(f, grid, block, unsigned(l.sharedBytes), args);
  };
}

// Loads a module and unloads it on scope exit.
struct ScopedModule {
  ScopedModule(CudaDriver& d, const std::string& image) : driver(d), module(d.loadModule(image)) {}
  ~ScopedModule() { driver.unloadModule(module); }
  CudaDriver& driver;
  void* module;
};

}  // namespace

std::string cudaUnavailableReason() {
  const CudaDriver& d = CudaDriver::shared();
  return d.ready() ? "" : d.reason();
}

std::string cudaCompileArch(int cc) {
  int best = 0;
  for (int a : NvrtcCompiler::shared().supportedArchs()) {
    if (a == cc) return "sm_" + std::to_string(cc);
    if (a < cc && a > best) best = a;
  }
  if (best == 0) return "sm_" + std::to_string(cc);  // NVRTC cannot say: try the device's own
  return "compute_" + std::to_string(best);
}

CudaRunResult runCudaKernel(const CudaKernelRequest& request, OperatorBuffers& buffers,
                            const TimingOptions& timing) {
  CudaDriver& d = CudaDriver::shared();
  CudaRunResult r;
  try {
    d.makeCurrent();
    ScopedModule module(d, readFile(request.binaryPath));
    const cuda::Function f = d.getFunction(module.module, request.entry);
    // The device's real limits plus what the driver says this function needs: a launch that
    // breaks one is Rejected here rather than failing (and poisoning nothing) in cuLaunchKernel.
    const auto& p = d.device();
    codegen::DeviceLimits limits;
    limits.arch = p.arch();
    limits.maxThreadsPerBlock =
        std::min(p.maxThreadsPerBlock, d.functionAttribute(f, CudaDriver::kFuncMaxThreadsPerBlock));
    limits.maxSharedBytesPerBlock = p.maxSharedBytesOptin;
    limits.registersPerBlock = p.registersPerBlock;
    limits.maxGridX = p.maxGrid[0];
    limits.maxGridY = p.maxGrid[1];
    limits.maxGridZ = p.maxGrid[2];
    KernelResources res;
    res.registers = d.functionAttribute(f, CudaDriver::kFuncNumRegs);
    const auto problems = codegen::checkLaunch(request.launch, &res, limits);
    if (!problems.empty()) {
      r.measurement.status = TrialStatus::Rejected;
      r.measurement.message = problems.front();
      return r;
    }
    // Dynamic shared memory above 48 KiB must be opted into per function.
    if (request.launch.sharedBytes > 48 * 1024)
      d.setFunctionAttribute(f, CudaDriver::kFuncMaxDynamicSharedBytes,
                             int(request.launch.sharedBytes));
    DeviceOperands dev(d, buffers);
    const auto run = launcher(d, f, request.launch, dev);
    if (auto wrong = verify(d, dev, buffers, run)) {
      r.measurement.status = TrialStatus::WrongResult;
      r.measurement.message = *wrong;
      return r;
    }
    finish(r.measurement, timeRuns(d, run, timing, request.coldL2), buffers.op);
  } catch (const CudaError& e) {
    return failure(e);
  }
  return r;
}

CudaRunResult runCudaReference(OperatorBuffers& buffers, const TimingOptions& timing,
                               bool coldL2) {
  CudaDriver& d = CudaDriver::shared();
  CudaRunResult r;
  try {
    d.makeCurrent();
    DeviceOperands dev(d, buffers);
    // One handle per worker: cublasCreate costs tens of milliseconds. Deliberately never
    // destroyed: the worker may exit on a poisoned context, where cublasDestroy could hang.
    static std::string why;
    if (buffers.op.kind != OpKind::Conv2D) {
      static cuda::Cublas* blas = cuda::Cublas::open(&why).release();
      if (blas) {
        const auto run = [&] { blas->gemm(buffers.op, dev.a.get(), dev.b.get(), dev.c.get()); };
        r.library = "cuBLAS sgemm (" + blas->library() + ")";
        if (auto wrong = verify(d, dev, buffers, run)) {
          r.measurement.status = TrialStatus::WrongResult;
          r.measurement.message = *wrong;
          return r;
        }
        finish(r.measurement, timeRuns(d, run, timing, coldL2), buffers.op);
        return r;
      }
    }
    // No cuDNN binding yet: Conv2D (and MatMul without cuBLAS) is compared with the naive
    // one-thread-per-output kernel, which is a floor rather than a vendor speed.
    const auto kernel = codegen::generateReferenceKernel(buffers.op, codegen::Backend::Cuda);
    const CompileResult compiled =
        NvrtcCompiler::shared().compile(kernel.source, cudaCompileArch(d.device().computeCapability()));
    if (!compiled.ok) {
      r.measurement.status = TrialStatus::CompileError;
      r.measurement.message = compiled.log.substr(0, 2000);
      return r;
    }
    ScopedModule module(d, compiled.binary);
    const auto run = launcher(d, d.getFunction(module.module, kernel.entry), kernel.launch, dev);
    r.library = "naive reference kernel (" +
                (buffers.op.kind == OpKind::Conv2D ? std::string("no cuDNN binding yet") : why) + ")";
    if (auto wrong = verify(d, dev, buffers, run)) {
      r.measurement.status = TrialStatus::WrongResult;
      r.measurement.message = *wrong;
      return r;
    }
    finish(r.measurement, timeRuns(d, run, timing, coldL2), buffers.op);
  } catch (const CudaError& e) {
    return failure(e);
  }
  return r;
}

}  // namespace opevo
