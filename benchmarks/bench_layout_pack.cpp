// Packing a kernel's operands into its tuned layouts and unpacking its output, on the host: a
// GPU trial of a joint (layout) space does both around every kernel (common/device_run.h), and on
// the sixth lease MobileNetV2's depthwise layer verified in 34.8 ms a trial at the median where
// the loop template's took 1.1 ms. Figures go to docs/performance.md.
#include <benchmark/benchmark.h>

#include <vector>

#include "layout/operand_layouts.h"
#include "ops/presets.h"

namespace {

using namespace opevo;

struct Case {
  layout::OperandLayouts layouts;
  std::vector<float> plainA, physicalA, physicalC, plainC;
};

// The preset's operands in the layouts of `config`, a configuration of its joint space.
Case makeCase(const char* presetName, const char* config) {
  const OperatorSpec op = preset(presetName);
  const SearchSpace space = layout::layoutSpace(op);
  Case c{layout::operandLayouts(op, space, space.parse(config)), {}, {}, {}, {}};
  c.plainA.assign(std::size_t(c.layouts.a.logicalSize()), 1.0f);
  c.physicalA.resize(std::size_t(c.layouts.a.size()));
  c.physicalC.assign(std::size_t(c.layouts.c.size()), 1.0f);
  c.plainC.resize(std::size_t(c.layouts.c.logicalSize()));
  return c;
}

// The sixth lease's best depthwise kernel (docs/results/gpu.md): input 96x112x112, output
// 96x56x56 (301,056 elements).
const char* const kDw2 =
    "layout.out_c=1,96; layout.out_h=14,4; layout.out_w=28,2; tile_f=96,1; tile_y=14,4; "
    "tile_x=56,1; tile_order=1,0,2";

void unpackDw2Output(benchmark::State& state) {
  Case c = makeCase("mobilenet_v2_dw2_b1", kDw2);
  for (auto _ : state) {
    c.layouts.c.unpack(c.physicalC, c.plainC);
    benchmark::DoNotOptimize(c.plainC.data());
  }
  state.SetItemsProcessed(state.iterations() * std::int64_t(c.plainC.size()));
}
BENCHMARK(unpackDw2Output)->Unit(benchmark::kMillisecond)->UseRealTime();

void packDw2Input(benchmark::State& state) {
  Case c = makeCase("mobilenet_v2_dw2_b1", kDw2);
  for (auto _ : state) {
    c.layouts.a.pack(c.plainA, c.physicalA);
    benchmark::DoNotOptimize(c.physicalA.data());
  }
  state.SetItemsProcessed(state.iterations() * std::int64_t(c.physicalA.size()));
}
BENCHMARK(packDw2Input)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
