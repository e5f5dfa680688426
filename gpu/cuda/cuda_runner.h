#pragma once

#include <string>

#include "codegen/device_limits.h"
#include "common/device_run.h"
#include "cpu/cpu_runner.h"
#include "cuda/cuda_driver.h"

namespace opevo {

// Empty when the worker can run CUDA kernels here, otherwise why not (no driver, no device).
std::string cudaUnavailableReason();

// The NVRTC target for a compute capability: sm_NN when this NVRTC knows it, else PTX for the
// newest capability it supports below (the driver finishes compiling that when loading).
std::string cudaCompileArch(int computeCapability);

// Device 0's real limits for one loaded function: the device's, with the block size capped by
// what the driver says the function's registers allow.
codegen::DeviceLimits cudaDeviceLimits(cuda::CudaDriver& driver, cuda::Function f);

// Inside opevo-worker: checks the launch against the device before launching (threads, opt-in
// shared memory, registers x threads: Rejected), runs the kernel once on the operator's inputs
// and compares with the host reference (WrongResult), then times it with CUDA events.
GpuRunResult runCudaKernel(const GpuKernelRequest& request, OperatorBuffers& buffers,
                           const TimingOptions& timing);

// The vendor speed: cuBLAS for MatMul/BatchMatMul, cuDNN for Conv2D, else the plain reference
// kernel compiled by NVRTC. The result's library says which ran.
GpuRunResult runCudaReference(OperatorBuffers& buffers, const TimingOptions& timing, bool coldL2);

}  // namespace opevo
