#pragma once

// Runs generated CUDA/HIP kernels on the CPU, to check their indexing and synchronisation on
// machines without a GPU: the CUDA prelude is swapped for one that makes the kernel plain C++,
// every thread of a block is a std::thread, and __syncthreads is a std::barrier. Blocks start in
// launch order (x, then y, then z), `resident` of them at once as on a GPU's SMs (each of those
// slots takes every resident-th block in turn, with its own threads, barrier and shared memory),
// so that blocks that wait for one another (split-K's turns) really run side by side. Module
// __device__ variables are plain globals, the atomics std::atomic_ref. Slow, and meant for small
// operators only.

#include <stdexcept>
#include <string>
#include <utility>

#include "codegen/kernel_codegen.h"

namespace opevo::test {

// Floats of the emulated shared memory; kernels needing more are not emulated.
constexpr std::int64_t kEmulatedSharedFloats = 1 << 20;

inline std::string emulationHeader() {
  return R"(#include <atomic>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>
struct EmuDim3 { unsigned x = 0, y = 0, z = 0; };
static thread_local EmuDim3 threadIdx, blockIdx;
static EmuDim3 blockDim, gridDim;
static std::barrier<>* emuBarrier = nullptr;  // the one block's barrier (kernels run one block at a time)
static thread_local std::barrier<>* emuBlockBarrier = nullptr;  // this thread's block's, when set
alignas(64) float smem[)" +
         std::to_string(kEmulatedSharedFloats) + R"(];
static thread_local float* emuShared = smem;  // this thread's block's shared memory
static void __syncthreads() { (emuBlockBarrier ? emuBlockBarrier : emuBarrier)->arrive_and_wait(); }
#define __device__
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(8) float2 { float x, y; };
// Every float4 and float2 access of a kernel goes through this: on a GPU a misaligned one is a
// fault that ends the context, while x86 would quietly do it.
template <class T, class P>
static T* emuVector(P* p) {
  if (reinterpret_cast<std::uintptr_t>(p) % alignof(T) != 0) {
    std::fprintf(stderr, "emulated kernel: %zu-byte vector access at a misaligned address %p\n",
                 sizeof(T), static_cast<const void*>(p));
    std::abort();
  }
  return reinterpret_cast<T*>(p);
}
// A warp shuffle through the block's exchange array: every thread of the block must call it
// together, as the templates' reductions do (all threads, the same number of times).
static thread_local float* emuExchange = nullptr;
static float __shfl_down_sync(unsigned, float v, int delta, int width) {
  const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  emuExchange[t] = v;
  __syncthreads();
  const unsigned lane = t % 32 % static_cast<unsigned>(width);
  const float got = lane + delta < static_cast<unsigned>(width) ? emuExchange[t + delta] : v;
  __syncthreads();
  return got;
}
static unsigned atomicAdd(unsigned* p, unsigned v) { return std::atomic_ref<unsigned>(*p).fetch_add(v); }
static unsigned atomicExch(unsigned* p, unsigned v) { return std::atomic_ref<unsigned>(*p).exchange(v); }
static void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
static float __int_as_float(int v) { float f; std::memcpy(&f, &v, sizeof f); return f; }
static double __longlong_as_double(long long v) { double d; std::memcpy(&d, &v, sizeof d); return d; }
)";
}

// A kernel's source (one module, with its prelude) with the prelude replaced, plus extern "C"
// emu_<entry>(PARAMS) that launches it as `launch` says, `resident` blocks at a time, passing
// `args` (the names in `params`) through.
inline std::string emulatedLaunch(const std::string& source, const std::string& entry,
                                  const codegen::LaunchConfig& l, int resident,
                                  const std::string& params, const std::string& args) {
  const std::string endMark = "// ---- end of prelude ----\n";
  const std::size_t begin = source.find("// ---- prelude");
  const std::size_t end = source.find(endMark);
  std::string s = source.substr(0, begin);
  s += "#define OPEVO_RESTRICT __restrict__\n#define OPEVO_KERNEL(max_threads) static void\n";
  s += "#define __shared__\n";
  std::string body = source.substr(end + endMark.size());
  // The block's dynamic shared memory is its slot's (emuShared), not one array for all blocks.
  bool slotShared = false;
  for (const std::string decl : {"extern __shared__ __attribute__((aligned(16))) float smem[];",
                                 "extern __shared__ float smem[];"})
    if (const std::size_t at = body.find(decl); at != std::string::npos) {
      body.replace(at, decl.size(), "float* const smem = emuShared;");
      slotShared = true;
    }
  if (l.sharedBytes > 0 && !slotShared)
    throw std::runtime_error("emulatedKernel: " + entry +
                             " uses shared memory declared in a way the emulation does not know");
  const std::pair<std::string, std::string> casts[] = {
      {"reinterpret_cast<const float4*>(", "emuVector<const float4>("},
      {"reinterpret_cast<float4*>(", "emuVector<float4>("},
      {"reinterpret_cast<const float2*>(", "emuVector<const float2>("},
      {"reinterpret_cast<float2*>(", "emuVector<float2>("}};
  for (const auto& [from, to] : casts)
    for (std::size_t at = body.find(from); at != std::string::npos; at = body.find(from, at))
      body.replace(at, from.size(), to);
  s += body;
  auto d = [](std::int64_t v) { return std::to_string(v); };
  s += "extern \"C\" void emu_" + entry + "(" + params + ") {\n";
  s += "  gridDim = {" + d(l.grid.x) + ", " + d(l.grid.y) + ", " + d(l.grid.z) + "};\n";
  s += "  blockDim = {" + d(l.block.x) + ", " + d(l.block.y) + ", " + d(l.block.z) + "};\n";
  // Each slot's shared memory is exactly the launch's, then a float4 of canary that must survive.
  s += "  const unsigned resident = " + d(resident) +
       ", sharedFloat4s = " + d((l.sharedBytes / 4 + 3) / 4) + ";\n";
  s += R"(  const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  const unsigned blocks = gridDim.x * gridDim.y * gridDim.z;
  std::vector<std::unique_ptr<std::barrier<>>> barriers;
  std::vector<std::vector<float4>> shared(resident);
  std::vector<std::vector<float>> exchange(resident, std::vector<float>(threads));
  for (unsigned r = 0; r < resident; ++r) {
    barriers.push_back(std::make_unique<std::barrier<>>(threads));
    shared[r].assign(sharedFloat4s + 1, float4{-7.5f, -7.5f, -7.5f, -7.5f});
  }
  std::vector<std::thread> pool;
  for (unsigned r = 0; r < resident; ++r)
    for (unsigned t = 0; t < threads; ++t)
      pool.emplace_back([=, &barriers, &shared, &exchange] {
        emuBlockBarrier = barriers[r].get();
        emuExchange = exchange[r].data();
        emuShared = &shared[r][0].x;
        threadIdx = {t % blockDim.x, (t / blockDim.x) % blockDim.y, t / (blockDim.x * blockDim.y)};
        for (unsigned b = r; b < blocks; b += resident) {
          blockIdx = {b % gridDim.x, (b / gridDim.x) % gridDim.y, b / (gridDim.x * gridDim.y)};
)";
  s += "          " + entry + "(" + args + ");\n";
  s +=
      R"(          emuBlockBarrier->arrive_and_wait();  // the slot's next block reuses its shared memory
        }
      });
  for (auto& thread : pool) thread.join();
  for (const auto& slot : shared) {
    const float4 canary = slot.back();
    if (canary.x != -7.5f || canary.y != -7.5f || canary.z != -7.5f || canary.w != -7.5f) {
      std::fprintf(stderr, "emulated kernel: wrote past its shared memory\n");
      std::abort();
    }
  }
}
)";
  return s;
}

// A generated kernel emulated: extern "C" emu_<entry>(A, B, C, Bias, Residual).
inline std::string emulatedKernel(const codegen::GeneratedKernel& k, int resident = 1) {
  return emulatedLaunch(
      k.source, k.entry, k.launch, resident,
      "const float* A, const float* B, float* C, const float* Bias, const float* Residual",
      "A, B, C, Bias, Residual");
}

// A network's fixed-layer kernel emulated: extern "C" emu_<entry>(in, out, params).
inline std::string emulatedFixedKernel(const std::string& source, const std::string& entry,
                                       const codegen::LaunchConfig& launch) {
  return emulatedLaunch(source, entry, launch, 1,
                        "const float* const* in, float* out, const float* const* params",
                        "in, out, params");
}

}  // namespace opevo::test
