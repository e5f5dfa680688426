#include "cpu/cache_eviction.h"

#include <cstdint>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace opevo {

void evictFromCaches(const void* data, std::size_t bytes) {
  if (!data || bytes == 0) return;
#if defined(__x86_64__) || defined(__i386__)
  // clflush takes the line out of every cache of the coherence domain; x86 lines are 64 bytes.
  constexpr std::uintptr_t kLine = 64;
  const auto begin = reinterpret_cast<std::uintptr_t>(data) & ~(kLine - 1);
  const auto end = reinterpret_cast<std::uintptr_t>(data) + bytes;
  for (std::uintptr_t p = begin; p < end; p += kLine) _mm_clflush(reinterpret_cast<const void*>(p));
  _mm_mfence();
#else
  // No user-level flush of a range: stream through a buffer larger than any last-level cache,
  // which evicts everything (the range with it). Slow (tens of ms a call), and only x86 builds
  // are made today; one buffer per thread, as timings may run on several.
  thread_local std::vector<std::uint64_t> sweep(std::size_t(256) << 17);  // 256 MiB
  std::uint64_t sum = 0;
  for (std::uint64_t& v : sweep) sum += ++v;
  thread_local volatile std::uint64_t sink;
  sink = sum;
#endif
}

std::vector<CachedBuffer> evictedBeforeEachRun(const RunBuffers& run, bool coldWeights, bool coldB,
                                               bool coldActivations) {
  std::vector<CachedBuffer> out;
  const auto add = [&](const CachedBuffer& b) {
    if (b.data && b.bytes > 0) out.push_back(b);
  };
  if (coldB) add(run.b);
  if (coldWeights) add(run.bias);
  if (coldActivations) {
    add(run.input);
    add(run.residual);
    add(run.output);
  }
  return out;
}

}  // namespace opevo
