// Canvas kernels' generated CUDA run on a real GPU and compared with the primitive-by-primitive
// reference (interpreter.h). Skipped with a message without NVRTC or a device.

#include <gtest/gtest.h>

#include <iostream>
#include <memory>

#include "codegen_test_util.h"
#include "cuda/cuda_driver.h"
#include "cuda/nvrtc_compiler.h"
#include "kas/interpreter.h"
#include "kas/kas_gpu_codegen.h"
#include "kas_gpu_test_util.h"

namespace opevo::kas {
namespace {

// The device's own architecture when NVRTC knows it, else PTX for the newest one below it.
std::string archFor(int cc) {
  int best = 0;
  for (int a : NvrtcCompiler::shared().supportedArchs()) {
    if (a == cc) return "sm_" + std::to_string(cc);
    if (a < cc && a > best) best = a;
  }
  return "compute_" + std::to_string(best ? best : cc);
}

struct RunCase {
  const test::SolvedKernel* kernel = nullptr;
  std::size_t layer = 0;
  KasGpuSchedule schedule;
  std::int64_t sharedLimit = kKasGpuSharedBytes;
  std::string entry = {};  // set by expectMatch
};

class KasCudaRun : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!NvrtcCompiler::shared().available())
      GTEST_SKIP() << NvrtcCompiler::shared().unavailableReason();
    cuda::CudaDriver& driver = cuda::CudaDriver::shared();
    if (!driver.ready()) GTEST_SKIP() << driver.reason();
    try {
      driver.makeCurrent();
    } catch (const cuda::CudaError& e) {
      GTEST_SKIP() << e.what();
    }
    m_driver = &driver;
  }
  void TearDown() override {
    if (m_module) m_driver->unloadModule(m_module);
  }

  // Compiles every case into one module, runs each on seeded input and weights, and expects the
  // reference's result.
  void expectMatch(std::vector<RunCase> cases) {
    std::string source;
    for (std::size_t i = 0; i < cases.size(); ++i) {
      RunCase& c = cases[i];
      c.entry = "kas" + std::to_string(i);
      source += generateKasGpuKernel(c.kernel->dag, c.kernel->layers[c.layer], c.schedule,
                                     GpuDialect::Cuda, c.entry, c.sharedLimit);
    }
    const std::string arch = archFor(m_driver->device().computeCapability());
    const CompileResult r = NvrtcCompiler::shared().compile(source, arch);
    ASSERT_TRUE(r.ok) << r.log.substr(0, 4000);
    m_module = m_driver->loadModule(r.binary);
    int scratchCases = 0;
    for (const RunCase& c : cases) {
      const auto& dims = c.kernel->layers[c.layer];
      const KasGpuLaunch launch = kasGpuLaunch(c.kernel->dag, dims, c.schedule, c.sharedLimit);
      const std::vector<float> input = test::randomData(dims[0][0] * dims[0][1] * dims[0][2], 3);
      const KernelWeights w = randomWeights(c.kernel->dag, dims, 11);
      const std::vector<float> want = interpret(c.kernel->dag, dims, input, w);
      std::vector<float> got;
      try {
        got = run(c.entry, launch, input, w, want.size());
      } catch (const cuda::CudaError& e) {
        FAIL() << c.entry << ": " << e.what();
      }
      scratchCases += launch.scratchFloats > 0;
      EXPECT_EQ(test::mismatches(got, want, 1e-3), 0u)
          << c.entry << " tile " << c.schedule.tileH << "x" << c.schedule.tileW << ", "
          << c.schedule.threads << " threads, " << launch.sharedBytes << " shared bytes, "
          << launch.scratchFloats << " scratch floats\n"
          << c.kernel->dag.text();
    }
    std::cout << "[   info   ] " << cases.size() << " kernels ran on "
              << m_driver->device().describe() << ", " << scratchCases << " with global scratch\n";
  }

  std::vector<float> run(const std::string& entry, const KasGpuLaunch& launch,
                         const std::vector<float>& input, const KernelWeights& weights,
                         std::size_t outputSize) {
    cuda::CudaDriver& d = *m_driver;
    const cuda::Function f = d.getFunction(m_module, entry);
    if (launch.sharedBytes > 48 * 1024)
      d.setFunctionAttribute(f, cuda::CudaDriver::kFuncMaxDynamicSharedBytes,
                             static_cast<int>(launch.sharedBytes));
    cuda::DeviceBuffer in(d, input.size() * 4), out(d, outputSize * 4),
        scratch(d, static_cast<std::size_t>(launch.scratchFloats) * 4),
        table(d, weights.size() * sizeof(cuda::DevicePtr));
    d.copyToDevice(in.get(), input.data(), in.bytes());
    std::vector<std::unique_ptr<cuda::DeviceBuffer>> held;
    std::vector<cuda::DevicePtr> pointers;
    for (const auto& w : weights) {
      if (w.empty()) {
        pointers.push_back(0);
        continue;
      }
      held.push_back(std::make_unique<cuda::DeviceBuffer>(d, w.size() * 4));
      d.copyToDevice(held.back()->get(), w.data(), w.size() * 4);
      pointers.push_back(held.back()->get());
    }
    d.copyToDevice(table.get(), pointers.data(), table.bytes());
    // NaN bit patterns: an element the kernel forgets to write cannot pass for a result.
    d.memset32(out.get(), 0x7fc00000u, outputSize);
    if (scratch.bytes()) d.memset32(scratch.get(), 0x7fc00000u, scratch.bytes() / 4);
    cuda::DevicePtr scratchPtr = scratch.get();
    void* args[] = {in.address(), table.address(), out.address(), &scratchPtr};
    const unsigned grid[3] = {static_cast<unsigned>(launch.grid), 1, 1};
    const unsigned block[3] = {static_cast<unsigned>(launch.block), 1, 1};
    d.launch(f, grid, block, static_cast<unsigned>(launch.sharedBytes), args);
    d.synchronize();
    std::vector<float> result(outputSize);
    d.copyToHost(result.data(), out.get(), outputSize * 4);
    return result;
  }

  cuda::CudaDriver* m_driver = nullptr;
  void* m_module = nullptr;
};

// Sampled kernels at every ResNet-18 layer with their space's start schedule, and with the
// device's whole shared memory (above 48 KiB: the opt-in attribute).
TEST_F(KasCudaRun, ResNet18LayersMatchTheReference) {
  const auto kernels = test::sampleSolved(5, 6, test::resnet18Targets(), Budget{});
  ASSERT_FALSE(kernels.empty());
  const std::int64_t optin = m_driver->device().maxSharedBytesOptin;
  std::vector<RunCase> cases;
  for (const auto& k : kernels)
    for (std::size_t l = 0; l < k.layers.size(); ++l) {
      const SearchSpace space = kasGpuScheduleSpace(k.dag, k.layers[l]);
      cases.push_back({&k, l, kasGpuSchedule(space, *space.startPoint())});
      const SearchSpace wide = kasGpuScheduleSpace(k.dag, k.layers[l], optin);
      cases.push_back({&k, l, kasGpuSchedule(wide, *wide.startPoint()), optin});
    }
  expectMatch(cases);
}

// Small layers with tiles of every shape, and a shared limit tight enough to send buffers to the
// global scratch.
TEST_F(KasCudaRun, SmallLayersMatchTheReferenceWithSharedAndScratchBuffers) {
  const std::vector<ConvTarget> targets{{"small", 8, 6, 10, 3, 3, 1}};
  const auto kernels = test::sampleSolved(7, 16, targets, Budget{4, 4});
  ASSERT_FALSE(kernels.empty());
  std::vector<RunCase> cases;
  for (const auto& k : kernels)
    for (const auto& [schedule, limit] :
         std::vector<std::pair<KasGpuSchedule, std::int64_t>>{{{6, 10, 64}, kKasGpuSharedBytes},
                                                              {{1, 1, 64}, kKasGpuSharedBytes},
                                                              {{3, 2, 128}, 512},
                                                              {{2, 5, 256}, 0}})
      cases.push_back({&k, 0, schedule, limit});
  expectMatch(cases);
}

}  // namespace
}  // namespace opevo::kas
