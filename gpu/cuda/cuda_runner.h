#pragma once

#include <string>

#include "codegen/kernel_codegen.h"
#include "cpu/cpu_runner.h"
#include "engine/measurement.h"

namespace opevo {

// One generated kernel for the worker to run: its compiled image on disk, entry point and launch.
struct CudaKernelRequest {
  std::string binaryPath;  // cubin (or PTX when NVRTC is older than the device)
  std::string entry = "opevo_kernel";
  codegen::LaunchConfig launch;
  bool coldL2 = false;  // overwrite an L2-sized buffer before each timed run
};

struct CudaRunResult {
  Measurement measurement;
  // A CUDA call failed after the context was in use: a faulting kernel leaves the context
  // unusable, so the worker replies and exits (the client starts a fresh one).
  bool contextLost = false;
  std::string library;  // reference only: "cuBLAS (libcublas.so.13)" or the naive kernel
};

// Empty when the worker can run CUDA kernels here, otherwise why not (no driver, no device).
std::string cudaUnavailableReason();

// The NVRTC target for a compute capability: sm_NN when this NVRTC knows it, else PTX for the
// newest capability it supports below (the driver finishes compiling that when loading).
std::string cudaCompileArch(int computeCapability);

// Inside opevo-worker: checks the launch against the device before launching (threads, opt-in
// shared memory, registers x threads: Rejected), runs the kernel once on the operator's inputs
// and compares with the host reference (WrongResult), then times it with CUDA events.
CudaRunResult runCudaKernel(const CudaKernelRequest& request, OperatorBuffers& buffers,
                            const TimingOptions& timing);

// The vendor speed: cuBLAS for MatMul/BatchMatMul, else (Conv2D, or no cuBLAS) the naive
// reference kernel compiled by NVRTC.
CudaRunResult runCudaReference(OperatorBuffers& buffers, const TimingOptions& timing, bool coldL2);

}  // namespace opevo
