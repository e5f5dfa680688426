// Canvas kernels as CUDA and HIP: every sampled kernel compiles with NVRTC and hiprtc (each
// skipped when its compiler is missing), and runs on CPU threads standing in for a GPU block
// (gpu_emulation.h) to the primitive-by-primitive reference's result.

#include "kas/kas_gpu_codegen.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <future>
#include <iostream>
#include <set>

#include "codegen_test_util.h"
#include "common/rng.h"
#include "cuda/nvrtc_compiler.h"
#include "gpu_emulation.h"
#include "hip/hiprtc_compiler.h"
#include "kas/interpreter.h"
#include "kas/kas_regions.h"
#include "kas_gpu_test_util.h"

namespace opevo::kas {
namespace {

std::string entryName(std::size_t kernel, std::size_t variant) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "kas%zu_%zu", kernel, variant);
  return buf;
}

using test::mismatches;
using test::resnet18Targets;
using test::sampleSolved;
using Solved = test::SolvedKernel;

const std::vector<ConvTarget> kSmallTargets{{"small", 8, 6, 10, 3, 3, 1},
                                            {"odd", 12, 7, 5, 3, 3, 1}};

// Every kernel at every layer of ResNet-18 (start schedule of its space) and of the small
// targets (two schedules), one source per dialect.
std::string batchedSource(GpuDialect dialect, std::vector<std::string>* entries) {
  std::string source;
  auto add = [&](const Solved& k, std::size_t layer, const KasGpuSchedule& schedule,
                 std::int64_t sharedLimit) {
    entries->push_back(entryName(entries->size(), 0));
    source += generateKasGpuKernel(k.dag, k.layers[layer], schedule, dialect, entries->back(),
                                   sharedLimit);
  };
  for (const Solved& k : sampleSolved(5, 20, resnet18Targets(), Budget{}))
    for (std::size_t l = 0; l < k.layers.size(); ++l) {
      const SearchSpace space = kasGpuScheduleSpace(k.dag, k.layers[l]);
      add(k, l, kasGpuSchedule(space, *space.startPoint()), kKasGpuSharedBytes);
    }
  // Small layers also with every buffer in the global scratch (a shared limit of 0).
  for (const Solved& k : sampleSolved(6, 10, kSmallTargets, Budget{4, 4}))
    for (std::size_t l = 0; l < k.layers.size(); ++l)
      for (const auto& [s, limit] : {std::pair{KasGpuSchedule{1, 5, 64}, kKasGpuSharedBytes},
                                     std::pair{KasGpuSchedule{7, 5, 256}, std::int64_t{0}}})
        if (k.layers[l][0][1] % s.tileH == 0 && k.layers[l][0][2] % s.tileW == 0)
          add(k, l, s, limit);
  return source;
}

TEST(KasGpuCodegen, SampledKernelsCompileWithNvrtcForSm80AndSm90) {
  const NvrtcCompiler& nvrtc = NvrtcCompiler::shared();
  if (!nvrtc.available()) GTEST_SKIP() << nvrtc.unavailableReason();
  std::vector<std::string> entries;
  const std::string source = batchedSource(GpuDialect::Cuda, &entries);
  EXPECT_GE(entries.size(), 20u * 4);
  auto sm80 = std::async(std::launch::async, [&] { return nvrtc.compile(source, "sm_80"); });
  const CompileResult sm90 = nvrtc.compile(source, "sm_90");
  std::int64_t worstSpill = 0;
  for (const CompileResult& r : {sm80.get(), sm90}) {
    ASSERT_TRUE(r.ok) << r.arch << ":\n" << r.log.substr(0, 4000);
    for (const std::string& e : entries) {
      ASSERT_TRUE(r.resources.count(e)) << r.arch << ": no ptxas report for " << e;
      // ptxas may spill a register or two (its choice under __launch_bounds__ on sm_90), but an
      // array in local memory would be the generator's fault.
      const std::int64_t spill = r.resources.at(e).spillStoreBytes.value_or(0);
      EXPECT_LE(spill, 64) << r.arch << " " << e;
      worstSpill = std::max(worstSpill, spill);
    }
  }
  std::cout << "[   info   ] " << entries.size()
            << " kernels compiled for sm_80 and sm_90 by NVRTC " << nvrtc.version() << ", at most "
            << worstSpill << " bytes of spill stores\n";
}

TEST(KasGpuCodegen, SampledKernelsCompileWithHiprtcForGfx90a) {
  const HiprtcCompiler& hiprtc = HiprtcCompiler::shared();
  if (!hiprtc.available()) GTEST_SKIP() << hiprtc.unavailableReason();
  std::vector<std::string> entries;
  const CompileResult r = hiprtc.compile(batchedSource(GpuDialect::Hip, &entries), "gfx90a");
  ASSERT_TRUE(r.ok) << r.log.substr(0, 4000);
  for (const std::string& e : entries) EXPECT_TRUE(r.resources.count(e)) << "no metadata for " << e;
  std::cout << "[   info   ] " << entries.size() << " kernels compiled for gfx90a by hiprtc "
            << hiprtc.version() << "\n";
}

// The kernel as plain C++ (its prelude swapped for the emulation's) and
//   extern "C" void emu_ENTRY(input, weights, output, scratch)
// launching it as `launch` says on CPU threads.
std::string emulated(const std::string& gpuSource, const std::string& entry,
                     const KasGpuLaunch& launch) {
  const std::string endMark = "// ---- end of prelude ----\n";
  const std::size_t begin = gpuSource.find("// ---- prelude");
  const std::size_t end = gpuSource.find(endMark);
  std::string s = gpuSource.substr(0, begin);
  s += "#define OPEVO_KAS_NEG_INF (-__builtin_huge_valf())\n";
  s += "#define OPEVO_KAS_KERNEL(threads) static void\n";
  s += "#define OPEVO_KAS_SHARED (void)0\n";
  s += "#define OPEVO_KAS_TABLE static const int\n";
  s += gpuSource.substr(end + endMark.size());
  s += "extern \"C\" void emu_" + entry +
       "(const float* input, const float* const* weights, float* output, float* scratch) {\n";
  s += "  gridDim = {" + std::to_string(launch.grid) + ", 1, 1};\n";
  s += "  blockDim = {" + std::to_string(launch.block) + ", 1, 1};\n";
  s += R"(  std::barrier<> barrier(blockDim.x);
  emuBarrier = &barrier;
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < blockDim.x; ++t)
    pool.emplace_back([=, &barrier] {
      threadIdx = {t, 0, 0};
      for (unsigned b = 0; b < gridDim.x; ++b) {
        blockIdx = {b, 0, 0};
)";
  s += "        " + entry + "(input, weights, output, scratch);\n";
  s += R"(        barrier.arrive_and_wait();  // the next block reuses shared memory
      }
    });
  for (auto& thread : pool) thread.join();
}
)";
  return s;
}

using EmulatedFn = void (*)(const float*, const float* const*, float*, float*);

struct EmulatedCase {
  std::size_t kernel = 0;
  KasGpuSchedule schedule;
  std::int64_t sharedLimit = kKasGpuSharedBytes;
  std::int64_t maxGrid = 0;  // fewer blocks than tiles, as a tight scratch budget gives (0: any)
};

// Runs each case's kernel on the emulated GPU and expects the reference's result; returns how
// many cases ran with part of their buffers in global scratch.
int expectEmulatedMatch(const std::vector<Solved>& kernels, std::size_t layer,
                        const std::vector<EmulatedCase>& cases) {
  std::string source = test::emulationHeader();
  std::vector<KasGpuLaunch> launches;
  for (std::size_t c = 0; c < cases.size(); ++c) {
    const EmulatedCase& e = cases[c];
    const Solved& k = kernels[e.kernel];
    KasGpuLaunch l = kasGpuLaunch(k.dag, k.layers[layer], e.schedule, e.sharedLimit);
    if (e.maxGrid > 0 && e.maxGrid < l.grid) {
      l.scratchFloats = l.scratchFloats / l.grid * e.maxGrid;
      l.grid = e.maxGrid;
    }
    launches.push_back(l);
    EXPECT_LE(launches.back().sharedBytes / 4, test::kEmulatedSharedFloats);
    const std::string entry = entryName(e.kernel, c);
    source += emulated(generateKasGpuKernel(k.dag, k.layers[layer], e.schedule, GpuDialect::Cuda,
                                            entry, e.sharedLimit),
                       entry, launches.back());
  }
  test::LoadedObject so(source, {"-O1", "-std=c++20", "-pthread", "-shared", "-fPIC"});
  EXPECT_TRUE(so.ok()) << so.result().log.substr(0, 4000);
  if (!so.ok()) return 0;
  int spilled = 0;
  for (std::size_t c = 0; c < cases.size(); ++c) {
    const EmulatedCase& e = cases[c];
    const Solved& k = kernels[e.kernel];
    const auto& dims = k.layers[layer];
    const std::vector<float> input = test::randomData(dims[0][0] * dims[0][1] * dims[0][2], 3);
    const KernelWeights w = randomWeights(k.dag, dims, 11);
    const std::vector<float> want = interpret(k.dag, dims, input, w);
    std::vector<const float*> ptrs;
    for (const auto& v : w) ptrs.push_back(v.empty() ? nullptr : v.data());
    std::vector<float> scratch(static_cast<std::size_t>(launches[c].scratchFloats), NAN);
    std::vector<float> got(want.size(), NAN);
    const std::string entry = entryName(e.kernel, c);
    auto f = so.symbol<EmulatedFn>("emu_" + entry);
    EXPECT_NE(f, nullptr) << entry;
    if (!f) continue;
    f(input.data(), ptrs.data(), got.data(), scratch.empty() ? nullptr : scratch.data());
    spilled += launches[c].scratchFloats > 0;
    EXPECT_EQ(mismatches(got, want, 1e-4), 0u)
        << entry << " tile " << e.schedule.tileH << "x" << e.schedule.tileW << ", "
        << e.schedule.threads << " threads, shared limit " << e.sharedLimit << "\n"
        << k.dag.text();
  }
  return spilled;
}

// Small layers, several tiles and block sizes; a tight shared limit sends buffers to the global
// scratch, and a scratch budget below a tile per block makes blocks stride over tiles.
TEST(KasGpuCodegen, EmulatedKernelsMatchThePrimitiveByPrimitiveReference) {
  const std::vector<Solved> kernels = sampleSolved(7, 32, kSmallTargets, Budget{4, 4});
  ASSERT_GE(kernels.size(), 28u);
  std::vector<EmulatedCase> cases;
  for (std::size_t k = 0; k < kernels.size(); ++k)
    for (const EmulatedCase& e :
         {EmulatedCase{k, {6, 10, 64}}, EmulatedCase{k, {2, 5, 32}}, EmulatedCase{k, {1, 1, 32}},
          EmulatedCase{k, {3, 2, 32}, 512, 3}, EmulatedCase{k, {2, 2, 32}, 0, 4}})
      cases.push_back(e);
  // What the sample exercises: every primitive, and along which dim for those that take one.
  std::set<std::string> covered;
  for (const Solved& k : kernels)
    for (std::size_t i = 1; i < k.dag.nodes().size(); ++i) {
      const Along a = along(k.dag, i);
      covered.insert(std::string(primitiveName(k.dag.nodes()[i].kind)) + (a == Along::Height  ? "/h"
                                                                          : a == Along::Width ? "/w"
                                                                          : a == Along::None
                                                                              ? ""
                                                                              : "/c"));
    }
  // The halo and whole-dim paths, which a sampler change could leave unexercised.
  for (const char* p : {"unfold/h", "unfold/w", "shift/h", "shift/w", "softmax/h", "softmax/w",
                        "avg_fold/h", "avg_fold/w", "grouped_fc"})
    EXPECT_TRUE(covered.count(p)) << p << " is in no sampled kernel";
  const int spilled = expectEmulatedMatch(kernels, 0, cases);
  EXPECT_GT(spilled, 0) << "no case exercised the global scratch";
  std::cout << "[   info   ] " << cases.size() << " kernel x schedule cases emulated, " << spilled
            << " with global scratch; primitives:";
  for (const std::string& c : covered) std::cout << " " << c;
  std::cout << "\n";
}

// The two smallest ResNet-18 layers (256 x 14 x 14, 512 x 7 x 7) at their space's start
// schedule: real channel counts, with halos reaching past the image's edge from border tiles.
TEST(KasGpuCodegen, EmulatedResNet18LayersMatchTheReference) {
  const std::vector<Solved> kernels = sampleSolved(5, 6, resnet18Targets(), Budget{});
  ASSERT_GE(kernels.size(), 6u);
  for (const std::size_t layer : {2, 3}) {
    std::vector<EmulatedCase> cases;
    for (std::size_t k = 0; k < kernels.size(); ++k) {
      const SearchSpace space = kasGpuScheduleSpace(kernels[k].dag, kernels[k].layers[layer]);
      KasGpuSchedule s = kasGpuSchedule(space, *space.startPoint());
      s.threads = 64;  // one OS thread each when emulated
      cases.push_back({k, s});
    }
    expectEmulatedMatch(kernels, layer, cases);
  }
}

// The space of a layer keeps tiles whose intermediates fit in shared memory when any do, and
// starts at one; a launch needing scratch keeps it within the budget by striding over tiles.
TEST(KasGpuSchedule, SpaceKeepsTilesWithinSharedMemory) {
  int constrained = 0, excluded = 0;
  for (const Solved& k : sampleSolved(5, 8, resnet18Targets(), Budget{})) {
    const auto& dims = k.layers[0];  // 64 x 56 x 56
    const SearchSpace space = kasGpuScheduleSpace(k.dag, dims);
    const KasGpuSchedule start = kasGpuSchedule(space, *space.startPoint());
    EXPECT_TRUE(space.satisfies(*space.startPoint()));
    EXPECT_LE(kasGpuFootprint(k.dag, dims, start).sharedBytes, kKasGpuSharedBytes);
    if (space.constraints().empty()) {
      EXPECT_FALSE(kasGpuFootprint(k.dag, dims, {1, 1, 64}).fitsShared()) << k.dag.text();
      continue;
    }
    ++constrained;
    EXPECT_TRUE(kasGpuFootprint(k.dag, dims, start).fitsShared()) << k.dag.text();
    Rng rng(3);
    for (int i = 0; i < 20; ++i) {
      const auto c = space.randomValid(rng);
      ASSERT_TRUE(c);
      EXPECT_TRUE(kasGpuFootprint(k.dag, dims, kasGpuSchedule(space, *c)).fitsShared());
    }
    // The whole image in one tile: excluded exactly when its intermediates outgrow 48 KiB.
    const bool whole = space.satisfies(space.parse("tile_h=56; tile_w=56; threads=128"));
    EXPECT_EQ(whole,
              kasGpuFootprint(k.dag, dims, {56, 56, 128}).workingSetBytes <= kKasGpuSharedBytes);
    excluded += !whole;
    const KasGpuLaunch all = kasGpuLaunch(k.dag, dims, {1, 1, 64}, 0);
    const KasGpuFootprint f = kasGpuFootprint(k.dag, dims, {1, 1, 64}, 0);
    EXPECT_EQ(all.sharedBytes, 0);
    EXPECT_EQ(all.scratchFloats, all.grid * f.scratchFloats);
    EXPECT_LE(all.scratchFloats, std::max(kKasGpuScratchBudgetFloats, f.scratchFloats));
    EXPECT_EQ(all.tiles, 56 * 56);
  }
  EXPECT_GT(constrained, 0);
  EXPECT_GT(excluded, 0);
}

TEST(KasGpuSchedule, RefusesTilesThatDoNotDivideTheImageAndOversizedBlocks) {
  const Solved k = sampleSolved(5, 1, resnet18Targets(), Budget{}).at(0);
  const auto& dims = k.layers[0];  // 56 x 56
  EXPECT_EQ(kasGpuScheduleError(k.dag, dims, {8, 7, 128}), "");
  EXPECT_NE(kasGpuScheduleError(k.dag, dims, {5, 8, 128}).find("does not divide the 56x56"),
            std::string::npos);
  EXPECT_NE(kasGpuScheduleError(k.dag, dims, {8, 8, 2048}).find("1 to 1024"), std::string::npos);
  EXPECT_THROW(generateKasGpuKernel(k.dag, dims, {5, 8, 128}, GpuDialect::Cuda),
               std::invalid_argument);
  EXPECT_THROW(kasGpuLaunch(k.dag, dims, {8, 8, 0}), std::invalid_argument);
}

}  // namespace
}  // namespace opevo::kas
