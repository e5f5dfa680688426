#include "cuda/cuda_runner.h"

#include <algorithm>
#include <functional>

#include "cuda/cublas_reference.h"
#include "cuda/cuda_driver.h"
#include "cuda/cudnn_reference.h"
#include "cuda/nvrtc_compiler.h"

namespace opevo {
namespace {

using cuda::CudaDriver;

// NVRTC for this device: the reference's, the epilogue's and the comparison's kernels.
std::function<CompileResult(const std::string&)> nvrtcFor(CudaDriver& d) {
  return [arch = cudaCompileArch(d.device().computeCapability())](const std::string& source) {
    return NvrtcCompiler::shared().compile(source, arch);
  };
}

// What computes the reference: the vendor library for this operator (followed by the epilogue
// kernel when the operator fuses one), else the plain kernel (named with the reason no library
// served). One cuBLAS / cuDNN handle per worker: creating one costs tens of milliseconds.
// Deliberately never destroyed: the worker may exit on a poisoned context, where destroying a
// handle could hang. `choice`: cuDNN's heuristic algorithm to compute the reference result,
// the fastest by cudnnFind to time the library against the tuned kernels.
ReferenceRun<CudaDriver> cudaReferenceRun(CudaDriver& d, DeviceOperands<CudaDriver>& dev,
                                          const OperatorBuffers& buffers,
                                          cuda::Cudnn::Choice choice) {
  const auto compile = nvrtcFor(d);
  ReferenceRun<CudaDriver> r;
  std::string why;
  if (buffers.op.kind == OpKind::Conv2D) {
    static std::string noCudnn;
    static cuda::Cudnn* dnn = cuda::Cudnn::open(&noCudnn).release();
    why = noCudnn;
    if (dnn) {
      try {
        dnn->prepare(d, buffers.op, choice);
        r.run = [&dev] { dnn->forward(dev.a.get(), dev.b.get(), dev.c.get()); };
        r.library = dnn->describe();
      } catch (const DeviceError& e) {  // an operator this cuDNN cannot run: not a fault
        why = e.what();
      }
    }
  } else {
    static std::string noCublas;
    static VendorBlas* blas = cuda::openCublas(&noCublas).release();
    why = noCublas;
    if (blas) {
      const OperatorSpec& op = buffers.op;
      r.run = [&op, &dev] { blas->gemm(op, dev.a.get(), dev.b.get(), dev.c.get()); };
      r.library = blas->describe();
    }
  }
  if (r.run && appendEpilogue(d, dev, buffers, codegen::Backend::Cuda, compile, r, &why)) return r;
  // Without the vendor library the plain one-thread-per-output kernel is the comparison: a
  // floor rather than a vendor speed, and its name says so.
  return plainReferenceRun(d, dev, buffers, codegen::Backend::Cuda, compile, why);
}

// The reference result, settled once per worker (and operator) before the first kernel or the
// library's timing runs: with cuDNN's heuristic algorithm, the one a framework runs by default.
std::optional<GpuRunResult> settleResult(CudaDriver& d, OperatorBuffers& buffers) {
  return settleBeforeFirstKernel<CudaDriver>(
      d, buffers, [](CudaDriver& api, DeviceOperands<CudaDriver>& dev, const OperatorBuffers& b) {
        return cudaReferenceRun(api, dev, b, cuda::Cudnn::Choice::Heuristic);
      });
}

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

codegen::DeviceLimits cudaDeviceLimits(CudaDriver& d, cuda::Function f) {
  const cuda::DeviceProperties& p = d.device();
  codegen::DeviceLimits l;
  l.arch = p.arch();
  l.maxThreadsPerBlock =
      std::min(p.maxThreadsPerBlock, d.functionAttribute(f, CudaDriver::kFuncMaxThreadsPerBlock));
  l.maxSharedBytesPerBlock = p.maxSharedBytesOptin;
  l.registersPerBlock = p.registersPerBlock;
  // An attribute the driver did not give (0) keeps the documented value rather than refusing
  // every launch.
  const auto set = [](std::int64_t& limit, int value) {
    if (value > 0) limit = value;
  };
  set(l.maxGridX, p.maxGrid[0]);
  set(l.maxGridY, p.maxGrid[1]);
  set(l.maxGridZ, p.maxGrid[2]);
  set(l.maxBlockX, p.maxBlock[0]);
  set(l.maxBlockY, p.maxBlock[1]);
  set(l.maxBlockZ, p.maxBlock[2]);
  return l;
}

GpuRunResult runCudaKernel(const GpuKernelRequest& request, OperatorBuffers& buffers,
                           const TimingOptions& timing) {
  CudaDriver& d = CudaDriver::shared();
  // The device's real limits plus what the driver says this function needs.
  const auto limits = [&d](void* f, KernelResources& res) {
    res.registers = d.functionAttribute(f, CudaDriver::kFuncNumRegs);
    return cudaDeviceLimits(d, f);
  };
  // Dynamic shared memory above 48 KiB must be opted into per function.
  const auto prepare = [&d, &request](void* f) {
    if (request.launch.sharedBytes > 48 * 1024)
      d.setFunctionAttribute(f, CudaDriver::kFuncMaxDynamicSharedBytes,
                             int(request.launch.sharedBytes));
  };
  if (auto failed = settleResult(d, buffers)) return *failed;
  // Never destroyed, like the library handles: its module and buffers live as long as the worker.
  static auto* onDevice = new DeviceComparison<CudaDriver>(codegen::Backend::Cuda, nvrtcFor(d));
  return runDeviceKernel(d, request, buffers, timing, "cuModuleLoadData", limits, prepare,
                         onDevice);
}

GpuRunResult runCudaReference(OperatorBuffers& buffers, const TimingOptions& timing, bool coldL2) {
  CudaDriver& d = CudaDriver::shared();
  // The fastest algorithm's output is verified against the heuristic's, like a trial's.
  if (auto failed = settleResult(d, buffers)) return *failed;
  try {
    d.makeCurrent();
    DeviceOperands<CudaDriver> dev(d, buffers);
    ReferenceRun<CudaDriver> ref = cudaReferenceRun(d, dev, buffers, cuda::Cudnn::Choice::Fastest);
    return timeReference(d, dev, buffers, ref, timing, coldL2);
  } catch (const DeviceError& e) {
    return deviceFailure(e);
  }
}

}  // namespace opevo
