#pragma once

#include <string>

#include "common/device_run.h"
#include "cpu/cpu_runner.h"

namespace opevo {

// Empty when the worker can run HIP kernels here, otherwise why not (no runtime, no device, an
// architecture hiprtc cannot compile for).
std::string hipUnavailableReason();

// Inside opevo-worker, the same contract as runCudaKernel: the launch is checked against the
// device and the compiled function (threads, LDS: Rejected), the result verified against the
// host reference (WrongResult), then timed with HIP events.
GpuRunResult runHipKernel(const GpuKernelRequest& request, OperatorBuffers& buffers,
                          const TimingOptions& timing);

// The vendor speed: rocBLAS for MatMul/BatchMatMul, else (Conv2D, or no rocBLAS) the plain
// reference kernel compiled by hiprtc. The result's library says which ran.
GpuRunResult runHipReference(OperatorBuffers& buffers, const TimingOptions& timing, bool coldL2);

}  // namespace opevo
