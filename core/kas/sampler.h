#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "common/rng.h"
#include "kas/micro_dag.h"

namespace opevo::kas {

struct SamplerOptions {
  std::size_t minPrimitives = 3;  // edges in a kernel, before the finishing fc if one is needed
  std::size_t maxPrimitives = 9;
  std::size_t maxBranches = 3;  // tensors waiting to be merged at any time
  // Relative chance of each type; fc is doubled by default as the only source of weights.
  std::array<double, kPrimitiveTypes> weights{1, 1, 1, 2, 1, 1, 1, 1};
};

// Random growth from the input, every branch merged by a blend, the last tensor matched to
// [C, H, W]; obviously redundant steps (relu after relu, fc right after fc, a fold of a size-1
// dim, a blend of two copies of one tensor) are never proposed. nullopt when a draw dead-ends.
std::optional<MicroDag> sampleKernel(Rng& rng, const SamplerOptions& options);

struct SampleStats {
  std::size_t attempts = 0, deadEnds = 0, duplicates = 0;
};

// Up to `count` distinct kernels (by canonical hash) within `count` x 50 draws; `accept` may
// reject a kernel (e.g. one the budget solver cannot fit), which then counts as a dead end.
std::vector<MicroDag> sampleDistinct(std::uint64_t seed, std::size_t count,
                                     const SamplerOptions& options,
                                     const std::function<bool(const MicroDag&)>& accept,
                                     SampleStats* stats = nullptr);

}  // namespace opevo::kas
