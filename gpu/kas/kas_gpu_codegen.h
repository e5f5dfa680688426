#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kas/kas_gpu_schedule.h"
#include "kas/micro_dag.h"

namespace opevo::kas {

enum class GpuDialect { Cuda, Hip };

// The fused kernel of one layer's instance (`dims`: every node's concrete shape, layerCost) as
// CUDA (NVRTC, nvcc) or HIP (hiprtc, hipcc) source:
//   extern "C" __global__ void ENTRY(const float* input, const float* const* weights,
//                                    float* output, float* scratch)
// input [C, H, W]; weights a device array of device pointers, weights[i] node i's (KernelWeights
// layout; null where a node has none); output [C, H, W]; scratch kasGpuLaunch's scratchFloats
// floats of global memory, or null when that is 0. Launch it as kasGpuLaunch says (with the same
// schedule and shared limit): blockDim.x must be schedule.threads. Each block computes every
// primitive over the region of its tensor its tile needs, in shared memory where it fits, the
// threads parallel over the region's channels x pixels, a barrier between primitives.
//
// The text between the "// ---- prelude" and "// ---- end of prelude ----" lines is all that
// differs between dialects, so a test may replace it to run the kernel as plain C++.
std::string generateKasGpuKernel(const MicroDag& dag,
                                 const std::vector<std::vector<std::int64_t>>& dims,
                                 const KasGpuSchedule& schedule, GpuDialect dialect,
                                 const std::string& entry = "opevo_kas_kernel",
                                 std::int64_t sharedLimitBytes = kKasGpuSharedBytes);

}  // namespace opevo::kas
