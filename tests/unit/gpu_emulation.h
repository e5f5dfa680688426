#pragma once

// Runs generated CUDA/HIP kernels on the CPU, to check their indexing and synchronisation on
// machines without a GPU: the CUDA prelude is swapped for one that makes the kernel plain C++,
// every thread of a block is a std::thread, and __syncthreads is a std::barrier. Blocks run one
// after another in launch order (x, then y, then z); shared memory is one global array, module
// __device__ variables plain globals, the atomics std::atomic_ref. Slow, and meant for small
// operators only.

#include <string>

#include "codegen/kernel_codegen.h"

namespace opevo::test {

// Floats of the emulated shared memory; kernels needing more are not emulated.
constexpr std::int64_t kEmulatedSharedFloats = 1 << 20;

inline std::string emulationHeader() {
  return R"(#include <atomic>
#include <barrier>
#include <cmath>
#include <thread>
#include <vector>
struct EmuDim3 { unsigned x = 0, y = 0, z = 0; };
static thread_local EmuDim3 threadIdx, blockIdx;
static EmuDim3 blockDim, gridDim;
static std::barrier<>* emuBarrier = nullptr;
alignas(64) float smem[)" +
         std::to_string(kEmulatedSharedFloats) + R"(];
static void __syncthreads() { emuBarrier->arrive_and_wait(); }
#define __device__
struct alignas(16) float4 { float x, y, z, w; };
static unsigned atomicAdd(unsigned* p, unsigned v) { return std::atomic_ref<unsigned>(*p).fetch_add(v); }
static unsigned atomicExch(unsigned* p, unsigned v) { return std::atomic_ref<unsigned>(*p).exchange(v); }
static void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
)";
}

// The kernel with its prelude replaced, plus extern "C" emu_<entry>(A, B, C, Bias, Residual) that
// launches it
// with the kernel's LaunchConfig.
inline std::string emulatedKernel(const codegen::GeneratedKernel& k) {
  const std::string endMark = "// ---- end of prelude ----\n";
  const std::size_t begin = k.source.find("// ---- prelude");
  const std::size_t end = k.source.find(endMark);
  std::string s = k.source.substr(0, begin);
  s += "#define OPEVO_RESTRICT __restrict__\n#define OPEVO_KERNEL(max_threads) static void\n";
  s += "#define __shared__\n";
  s += k.source.substr(end + endMark.size());
  const codegen::LaunchConfig& l = k.launch;
  auto d = [](std::int64_t v) { return std::to_string(v); };
  s += "extern \"C\" void emu_" + k.entry +
       "(const float* A, const float* B, float* C, const float* Bias, const float* Residual) {\n";
  s += "  gridDim = {" + d(l.grid.x) + ", " + d(l.grid.y) + ", " + d(l.grid.z) + "};\n";
  s += "  blockDim = {" + d(l.block.x) + ", " + d(l.block.y) + ", " + d(l.block.z) + "};\n";
  s += R"(  const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  std::barrier<> barrier(threads);
  emuBarrier = &barrier;
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([=, &barrier] {
      threadIdx = {t % blockDim.x, (t / blockDim.x) % blockDim.y, t / (blockDim.x * blockDim.y)};
      for (unsigned z = 0; z < gridDim.z; ++z)
        for (unsigned y = 0; y < gridDim.y; ++y)
          for (unsigned x = 0; x < gridDim.x; ++x) {
            blockIdx = {x, y, z};
)";
  s += "            " + k.entry + "(A, B, C, Bias, Residual);\n";
  s += R"(            barrier.arrive_and_wait();  // the next block reuses shared memory
          }
    });
  for (auto& thread : pool) thread.join();
}
)";
  return s;
}

}  // namespace opevo::test
