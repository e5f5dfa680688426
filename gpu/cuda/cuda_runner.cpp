#include "cuda/cuda_runner.h"

#include <algorithm>

#include "cuda/cublas_reference.h"
#include "cuda/cuda_driver.h"
#include "cuda/cudnn_reference.h"
#include "cuda/nvrtc_compiler.h"

namespace opevo {
namespace {

using cuda::CudaDriver;

// The vendor library for this operator, verified and timed, or nullopt with *why set when none
// is present here. One cuBLAS / cuDNN handle per worker: creating one costs tens of milliseconds.
// Deliberately never destroyed: the worker may exit on a poisoned context, where destroying a
// handle could hang.
std::optional<GpuRunResult> runVendor(CudaDriver& d, DeviceOperands<CudaDriver>& dev,
                                      OperatorBuffers& buffers, const TimingOptions& timing,
                                      bool coldL2, std::string* why) {
  if (!buffers.op.epilogue.empty() || buffers.op.groups != 1) {
    *why =
        "cuBLAS and cuDNN are called for plain operators here; with a fused epilogue or groups "
        "the generated reference kernel is the reference";
    return std::nullopt;
  }
  GpuRunResult r;
  std::function<void()> run;
  if (buffers.op.kind == OpKind::Conv2D) {
    static std::string noCudnn;
    static cuda::Cudnn* dnn = cuda::Cudnn::open(&noCudnn).release();
    if (!dnn) {
      *why = noCudnn;
      return std::nullopt;
    }
    try {
      dnn->prepare(d, buffers.op);
    } catch (const DeviceError& e) {  // an operator this cuDNN cannot run: not a fault
      *why = e.what();
      return std::nullopt;
    }
    run = [&] { dnn->forward(dev.a.get(), dev.b.get(), dev.c.get()); };
    r.library = dnn->describe();
  } else {
    static std::string noCublas;
    static VendorBlas* blas = cuda::openCublas(&noCublas).release();
    if (!blas) {
      *why = noCublas;
      return std::nullopt;
    }
    run = [&] { blas->gemm(buffers.op, dev.a.get(), dev.b.get(), dev.c.get()); };
    r.library = blas->describe();
  }
  r.measurement = verifyThenTime(d, dev, buffers, run, timing, coldL2);
  return r;
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

GpuRunResult runCudaKernel(const GpuKernelRequest& request, OperatorBuffers& buffers,
                           const TimingOptions& timing) {
  CudaDriver& d = CudaDriver::shared();
  // The device's real limits plus what the driver says this function needs.
  const auto limits = [&d](void* f, KernelResources& res) {
    const auto& p = d.device();
    codegen::DeviceLimits l;
    l.arch = p.arch();
    l.maxThreadsPerBlock =
        std::min(p.maxThreadsPerBlock, d.functionAttribute(f, CudaDriver::kFuncMaxThreadsPerBlock));
    l.maxSharedBytesPerBlock = p.maxSharedBytesOptin;
    l.registersPerBlock = p.registersPerBlock;
    l.maxGridX = p.maxGrid[0];
    l.maxGridY = p.maxGrid[1];
    l.maxGridZ = p.maxGrid[2];
    res.registers = d.functionAttribute(f, CudaDriver::kFuncNumRegs);
    return l;
  };
  // Dynamic shared memory above 48 KiB must be opted into per function.
  const auto prepare = [&d, &request](void* f) {
    if (request.launch.sharedBytes > 48 * 1024)
      d.setFunctionAttribute(f, CudaDriver::kFuncMaxDynamicSharedBytes,
                             int(request.launch.sharedBytes));
  };
  return runDeviceKernel(d, request, buffers, timing, "cuModuleLoadData", limits, prepare);
}

GpuRunResult runCudaReference(OperatorBuffers& buffers, const TimingOptions& timing, bool coldL2) {
  CudaDriver& d = CudaDriver::shared();
  try {
    d.makeCurrent();
    DeviceOperands<CudaDriver> dev(d, buffers);
    std::string why;
    if (auto vendor = runVendor(d, dev, buffers, timing, coldL2, &why)) return *vendor;
    // Without the vendor library the plain one-thread-per-output kernel is the comparison: a
    // floor rather than a vendor speed, and its name says so.
    const std::string arch = cudaCompileArch(d.device().computeCapability());
    return runPlainReference(
        d, dev, buffers, codegen::Backend::Cuda,
        [&](const std::string& source) { return NvrtcCompiler::shared().compile(source, arch); },
        why, timing, coldL2);
  } catch (const DeviceError& e) {
    return deviceFailure(e);
  }
}

}  // namespace opevo
