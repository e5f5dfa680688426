#include "hip/hip_runner.h"

#include <algorithm>
#include <functional>

#include "hip/hip_runtime.h"
#include "hip/hiprtc_compiler.h"
#include "hip/rocblas_reference.h"

namespace opevo {

using hip::HipRuntime;

namespace {

// hiprtc for this device: the reference's, the epilogue's and the comparison's kernels.
std::function<CompileResult(const std::string&)> hiprtcFor(HipRuntime& h) {
  return [arch = h.device().arch](const std::string& source) {
    return HiprtcCompiler::shared().compile(source, arch);
  };
}

// What computes the reference: rocBLAS for a MatMul / BatchMatMul (followed by the epilogue
// kernel when the operator fuses one), else the plain kernel. One handle per worker, never
// destroyed (as with cuBLAS: the worker may exit with a poisoned context).
ReferenceRun<HipRuntime> hipReferenceRun(HipRuntime& h, DeviceOperands<HipRuntime>& dev,
                                         const OperatorBuffers& buffers) {
  const auto compile = hiprtcFor(h);
  static std::string noRocblas;
  // No MIOpen binding: Conv2D, and MatMul without rocBLAS, are compared with the plain kernel.
  std::string why = "no MIOpen binding";
  if (buffers.op.kind != OpKind::Conv2D) {
    static VendorBlas* blas = hip::openRocblas(&noRocblas).release();
    why = noRocblas;
    if (blas) {
      ReferenceRun<HipRuntime> r;
      const OperatorSpec& op = buffers.op;
      r.run = [&op, &dev] { blas->gemm(op, dev.a.get(), dev.b.get(), dev.c.get()); };
      r.library = blas->describe();
      if (appendEpilogue(h, dev, buffers, codegen::Backend::Hip, compile, r, &why)) return r;
    }
  }
  return plainReferenceRun(h, dev, buffers, codegen::Backend::Hip, compile, why);
}

}  // namespace

std::string hipUnavailableReason() {
  const HipRuntime& h = HipRuntime::shared();
  if (!h.ready()) return h.reason();
  return HiprtcCompiler::shared().checkArch(h.device().arch);
}

GpuRunResult runHipKernel(const GpuKernelRequest& request, OperatorBuffers& buffers,
                          const TimingOptions& timing) {
  HipRuntime& h = HipRuntime::shared();
  // The device's limits and what the runtime says this function allows: on AMD the register
  // budget shows up as a lower maximum of threads per block for the function, not as a per-block
  // register pool, so registers are recorded but not checked against a pool.
  const auto limits = [&h](void* f, KernelResources& res) {
    const auto& p = h.device();
    codegen::DeviceLimits l = codegen::nominalLimits(p.arch);
    l.maxThreadsPerBlock =
        std::min(p.maxThreadsPerBlock, h.functionAttribute(f, HipRuntime::kFuncMaxThreadsPerBlock));
    l.maxSharedBytesPerBlock = p.maxSharedBytesPerBlock;
    l.maxGridX = p.maxGrid[0];
    l.maxGridY = p.maxGrid[1];
    l.maxGridZ = p.maxGrid[2];
    res.registers = h.functionAttribute(f, HipRuntime::kFuncNumRegs);
    res.staticSharedBytes = h.functionAttribute(f, HipRuntime::kFuncSharedBytes);
    return l;
  };
  // LDS is not opted into on AMD: the device maximum applies to every kernel.
  const auto prepare = [](void*) {};
  if (auto failed = settleBeforeFirstKernel<HipRuntime>(h, buffers, hipReferenceRun))
    return *failed;
  // Never destroyed, like the library handles: its module and buffers live as long as the worker.
  static auto* onDevice = new DeviceComparison<HipRuntime>(codegen::Backend::Hip, hiprtcFor(h));
  return runDeviceKernel(h, request, buffers, timing, "hipModuleLoadData", limits, prepare,
                         onDevice);
}

GpuRunResult runHipReference(OperatorBuffers& buffers, const TimingOptions& timing, bool coldL2) {
  HipRuntime& h = HipRuntime::shared();
  try {
    h.makeCurrent();
    DeviceOperands<HipRuntime> dev(h, buffers);
    ReferenceRun<HipRuntime> ref = hipReferenceRun(h, dev, buffers);
    return timeReference(h, dev, buffers, ref, timing, coldL2);
  } catch (const DeviceError& e) {
    return deviceFailure(e);
  }
}

}  // namespace opevo
