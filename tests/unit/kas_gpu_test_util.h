#pragma once

// What the Canvas GPU kernel tests share (tests/unit/kas_gpu_codegen_test.cpp on emulated
// blocks, tests/gpu/kas_cuda_run_test.cpp on a device): sampled kernels sized for their layers,
// and the comparison with the reference.

#include <cmath>
#include <optional>
#include <vector>

#include "kas/budget_solver.h"
#include "kas/conv_targets.h"
#include "kas/sampler.h"
#include "net/network_json.h"

namespace opevo::test {

// A kernel with each layer's node shapes (layerCost), one layer per target.
struct SolvedKernel {
  kas::MicroDag dag;
  std::vector<std::vector<std::vector<std::int64_t>>> layers;
};

// `count` distinct kernels sampled from `seed` that the budget solver fits to every target, each
// with the first group count that works.
inline std::vector<SolvedKernel> sampleSolved(std::uint64_t seed, std::size_t count,
                                              const std::vector<kas::ConvTarget>& targets,
                                              const kas::Budget& budget) {
  auto solve = [&](const kas::MicroDag& d) -> std::optional<kas::Solution> {
    // The result is kept whole (not its optional moved out in a condition): GCC 12 at -O1, the
    // tsan preset's level, took that move for a read of an uninitialised Solution.
    for (std::int64_t g : kas::groupChoices(targets)) {
      kas::SolveResult result = kas::solveBudget(d, targets, g, budget);
      if (result.solution.has_value()) return std::move(result.solution);
    }
    return std::nullopt;
  };
  std::vector<SolvedKernel> out;
  const auto accept = [&](const kas::MicroDag& d) { return solve(d).has_value(); };
  for (const kas::MicroDag& d : kas::sampleDistinct(seed, count, kas::SamplerOptions{}, accept)) {
    SolvedKernel k{d, {}};
    const kas::Solution solution = *solve(d);
    for (const kas::LayerSizes& l : solution.layers) k.layers.push_back(l.shapes);
    out.push_back(std::move(k));
  }
  return out;
}

// The 3x3 convolutions Canvas replaces in ResNet-18: 64x56x56, 128x28x28, 256x14x14, 512x7x7.
inline const std::vector<kas::ConvTarget>& resnet18Targets() {
  static const std::vector<kas::ConvTarget> targets =
      kas::replaceableConvolutions(net::loadNetwork("resnet18"));
  return targets;
}

// Elements off by more than `tolerance` relative to 1 + |want|, counting an element never written
// (NaN), which a plain maximum of differences would pass over.
inline std::size_t mismatches(const std::vector<float>& got, const std::vector<float>& want,
                              double tolerance) {
  if (got.size() != want.size()) return want.size() + 1;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    bad += !(std::fabs(got[i] - want[i]) <= tolerance * (1.0 + std::fabs(want[i])));
  return bad;
}

}  // namespace opevo::test
