// Canvas kernels computed two ways: primitive by primitive on whole tensors (the reference) and
// by the generated fused kernel, tile by tile.

#include "kas/kas_codegen.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <sstream>

#include "codegen/cpu_compiler.h"
#include "common/rng.h"
#include "kas/budget_solver.h"
#include "kas/interpreter.h"
#include "kas/sampler.h"

namespace opevo::kas {
namespace {

std::string entryName(std::size_t kernel, std::size_t schedule) {
  std::ostringstream name;
  name << 'k' << kernel << '_' << schedule;
  return name.str();
}

std::vector<float> randomInput(std::int64_t n, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<float> v(static_cast<std::size_t>(n));
  for (float& x : v) x = static_cast<float>(rng.uniform() * 2 - 1);
  return v;
}

// unfold H, unfold W, fc: a 3x3 convolution with zero padding 1, as im2col spells it.
TEST(KasInterpreter, UnfoldUnfoldFcIsAConvolution) {
  MicroDag dag;
  ASSERT_TRUE(dag.add({PrimitiveKind::Unfold, {0}, 1}));  // [C, KH, H, W]
  ASSERT_TRUE(dag.add({PrimitiveKind::Unfold, {1}, 3}));  // [C, KH, KW, H, W]
  ASSERT_TRUE(dag.add({PrimitiveKind::FullyConnected, {2}}));
  ASSERT_TRUE(dag.substitute({Symbol::X1, Size::of(Symbol::C)}));
  ASSERT_FALSE(dag.completeError());
  const ConvTarget t{"conv", 4, 5, 6, 3, 3, 1};
  const auto cost = layerCost(dag, targetBindings(t, 2));
  ASSERT_TRUE(cost);
  const auto input = randomInput(4 * 5 * 6, 1);
  const KernelWeights w = randomWeights(dag, cost->shapes, 2);
  const auto out = interpret(dag, cost->shapes, input, w);
  ASSERT_EQ(out.size(), input.size());
  for (int o = 0; o < 4; ++o)
    for (int y = 0; y < 5; ++y)
      for (int x = 0; x < 6; ++x) {
        double want = 0;
        for (int c = 0; c < 4; ++c)
          for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
              const int sy = y + i - 1, sx = x + j - 1;
              if (sy < 0 || sy >= 5 || sx < 0 || sx >= 6) continue;
              want += w[3][static_cast<std::size_t>(o * 36 + c * 9 + i * 3 + j)] *
                      input[static_cast<std::size_t>((c * 5 + sy) * 6 + sx)];
            }
        EXPECT_NEAR(out[static_cast<std::size_t>((o * 5 + y) * 6 + x)], want, 1e-5);
      }
}

// Sampled kernels at a small layer, each with several schedules, in one compiler call: every
// fused kernel matches the reference.
TEST(KasCodegen, FusedKernelsMatchThePrimitiveByPrimitiveReference) {
  const std::vector<ConvTarget> targets{{"small", 8, 6, 10, 3, 3, 1}};
  std::vector<MicroDag> kernels = sampleDistinct(7, 24, SamplerOptions{}, [&](const MicroDag& d) {
    return solveBudget(d, targets, 2, Budget{4, 4}).solution.has_value();
  });
  ASSERT_GE(kernels.size(), 20u);
  const std::vector<KasSchedule> schedules{
      {6, 10, 4, 16}, {2, 5, 1, 8}, {1, 1, 8, 64}, {3, 2, 2, 32}};
  std::string source;
  std::vector<std::vector<std::vector<std::int64_t>>> dims;
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    const Solution s = *solveBudget(kernels[k], targets, 2, Budget{4, 4}).solution;
    dims.push_back(s.layers[0].shapes);
    for (std::size_t v = 0; v < schedules.size(); ++v)
      source += generateKasCpuKernel(kernels[k], dims.back(), schedules[v], entryName(k, v));
  }
  TempDir dir("opevo-kas-codegen");
  const CompileResult built = compileCpuKernel(source, dir.path(), "kas");
  ASSERT_TRUE(built.ok) << built.log.substr(0, 4000);
  void* lib = dlopen(built.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  using Entry = void (*)(const float*, const float* const*, float*);
  const auto input = randomInput(8 * 6 * 10, 3);
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    const KernelWeights w = randomWeights(kernels[k], dims[k], 11);
    const auto want = interpret(kernels[k], dims[k], input, w);
    std::vector<const float*> ptrs;
    for (const auto& v : w) ptrs.push_back(v.empty() ? nullptr : v.data());
    for (std::size_t v = 0; v < schedules.size(); ++v) {
      const std::string name = entryName(k, v);
      auto f = reinterpret_cast<Entry>(dlsym(lib, name.c_str()));
      ASSERT_NE(f, nullptr) << name;
      std::vector<float> got(want.size(), NAN);
      f(input.data(), ptrs.data(), got.data());
      double worst = 0;
      for (std::size_t e = 0; e < want.size(); ++e)
        worst = std::max(worst, std::fabs(got[e] - want[e]) / (1.0 + std::fabs(want[e])));
      EXPECT_LT(worst, 1e-4) << name << " schedule " << v << "\n" << kernels[k].text();
    }
  }
}

}  // namespace
}  // namespace opevo::kas
