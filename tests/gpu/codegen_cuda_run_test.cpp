// Runs generated CUDA kernels on a real GPU and compares them with the naive reference kernel
// (and, for small operators, with a host reference). Skipped with a message without a device.

#include <gtest/gtest.h>

#include <iostream>

#include "codegen/device_limits.h"
#include "codegen/winograd_transforms.h"
#include "codegen_test_util.h"
#include "cuda/nvrtc_compiler.h"
#include "cuda_test_driver.h"

namespace opevo::test {
namespace {

using codegen::Backend;

// The architecture to compile for: the device's own when NVRTC knows it, else PTX for the
// newest capability NVRTC supports below it (the driver compiles that when loading).
std::string archFor(int cc) {
  int best = 0;
  for (int a : NvrtcCompiler::shared().supportedArchs()) {
    if (a == cc) return "sm_" + std::to_string(cc);
    if (a < cc && a > best) best = a;
  }
  return "compute_" + std::to_string(best ? best : cc);
}

class CudaRun : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!NvrtcCompiler::shared().available())
      GTEST_SKIP() << NvrtcCompiler::shared().unavailableReason();
    m_driver = std::make_unique<CudaTestDriver>();
    if (!m_driver->ready()) GTEST_SKIP() << m_driver->reason();
    m_arch = archFor(m_driver->computeCapability());
  }

  codegen::DeviceLimits limits() const {
    codegen::DeviceLimits l = codegen::nominalLimits(m_arch);
    l.maxSharedBytesPerBlock = m_driver->maxSharedBytesPerBlock();
    return l;
  }

  // count random configurations whose launch fits this device (before compiling).
  std::vector<Config> runnable(const OperatorSpec& op, int count, std::uint64_t seed,
                               SpaceTarget target = SpaceTarget::Common) const {
    const SearchSpace space = defaultSpace(op, target);
    return randomConfigs(space, count, seed, [&](const Config& c) {
      const auto k = codegen::generateKernel(op, space, c, Backend::Cuda);
      return codegen::checkLaunch(k.launch, nullptr, limits()).empty();
    });
  }

  // Compiles the reference kernel and every configuration's kernel into one module, runs them all
  // on the same random data, and expects each tuned result to match the reference kernel's; the
  // reference itself is checked against the host when the operator is small. Kernels whose
  // compiled resources (registers x threads, local memory) do not fit the device are skipped
  // with a message, as the measurement backend would.
  void expectMatch(const OperatorSpec& op, const std::vector<Config>& configs,
                   SpaceTarget target = SpaceTarget::Common) {
    const SearchSpace space = defaultSpace(op, target);
    std::vector<codegen::GeneratedKernel> kernels = {
        codegen::generateReferenceKernel(op, Backend::Cuda)};
    for (std::size_t i = 0; i < configs.size(); ++i)
      kernels.push_back(codegen::generateKernel(op, space, configs[i], Backend::Cuda,
                                                {std::string("tuned_") + std::to_string(i)}));
    std::string source;
    for (const auto& k : kernels) source += k.source + "\n";
    const CompileResult r = NvrtcCompiler::shared().compile(source, m_arch);
    ASSERT_TRUE(r.ok) << r.log;
    ASSERT_EQ(m_driver->load(r.binary), "");

    const codegen::OperandSizes sizes = codegen::operandSizes(op);
    const std::vector<float> a = randomData(sizes.a, 41), b = randomData(sizes.b, 42);
    std::string failure;
    const std::vector<float> want = m_driver->run(kernels[0].entry, kernels[0].launch, a, b,
                                                  static_cast<std::size_t>(sizes.c), &failure);
    ASSERT_EQ(failure, "");
    const std::int64_t macs =
        sizes.c * (op.kind == OpKind::Conv2D ? op.inChannels * op.kernelH * op.kernelW : op.k);
    if (macs < 50'000'000) {
      EXPECT_EQ(firstMismatch(want, hostReference(op, a, b)), -1) << "the reference kernel";
    }
    int ran = 0;
    for (std::size_t i = 1; i < kernels.size(); ++i) {
      const codegen::GeneratedKernel& k = kernels[i];
      const std::string config = space.format(configs[i - 1]);
      const auto res = r.resources.find(k.entry);
      const auto problems = codegen::checkLaunch(
          k.launch, res == r.resources.end() ? nullptr : &res->second, limits());
      if (!problems.empty()) {
        std::cout << "[ skipped  ] " << config << ": " << problems.front() << "\n";
        continue;
      }
      // A kernel that reads its weights transformed gets them so, as the worker gives them.
      const std::vector<float> got =
          m_driver->run(k.entry, k.launch, a, k.packedWeights ? codegen::winogradWeights(op, b) : b,
                        static_cast<std::size_t>(sizes.c), &failure);
      ASSERT_EQ(failure, "") << config;
      const std::int64_t bad = firstMismatch(got, want);
      EXPECT_EQ(bad, -1) << config << ": element " << bad << " is " << (bad >= 0 ? got[bad] : 0)
                         << ", expected " << (bad >= 0 ? want[bad] : 0);
      ++ran;
    }
    EXPECT_GT(ran, 0) << op.describe() << ": no configuration could run on this device";
  }

  std::unique_ptr<CudaTestDriver> m_driver;
  std::string m_arch;
};

TEST_F(CudaRun, SmallMatMulMatchesReference) {
  const OperatorSpec op = smallMatMul(64, 96, 80);
  std::vector<Config> configs = runnable(op, 5, 51);
  configs.push_back(defaultSpace(op).parse("tile_n=2,2,4,4; tile_m=2,3,4,4; tile_k=2,5,8"));
  expectMatch(op, configs);
}

TEST_F(CudaRun, SmallBatchMatMulTransposedMatchesReference) {
  for (const auto& [ta, tb] :
       std::vector<std::pair<bool, bool>>{{true, false}, {false, true}, {true, true}}) {
    const OperatorSpec op = smallBatchMatMul(6, 32, 48, 40, ta, tb);
    expectMatch(op, runnable(op, 4, 52));
  }
}

TEST_F(CudaRun, SmallConv2DMatchesReference) {
  const OperatorSpec op = smallConv(2, 8, 12, 13, 3, 2, 1);
  expectMatch(op, runnable(op, 6, 53));
}

TEST_F(CudaRun, PresetsMatchReference) {
  for (const char* name : {"MM1", "BMM2", "BMM3", "C1"})
    expectMatch(preset(name), runnable(preset(name), 3, 54));
  // 512 images x 192 channel blocks exceed gridDim.z: the blocks stride over the fused axis.
  const OperatorSpec c2 = preset("C2");
  expectMatch(c2, {defaultSpace(c2).parse(
                      "tile_f=192,1,1,1; tile_y=27,1,1,1; tile_x=1,1,27,1; tile_rc=64,1; "
                      "tile_ry=5,1; tile_rx=1,5; auto_unroll_max_step=512; unroll_explicit=1")});
}

// The Winograd template on the device: F(4x4, 3x3), F(2x2, 5x5) and F(4x4, 5x5) with outputs that
// whole tiles do not cover, a ResNet-18 layer, and C2 in the tiling of the docs' example.
TEST_F(CudaRun, WinogradMatchesReference) {
  const OperatorSpec three = smallConv(2, 8, 16, 13, 3, 1, 1),
                     five = smallConv(2, 8, 12, 11, 5, 1, 2),  // F(4x4, 5x5)
      fiveWide = smallConv(2, 72, 12, 11, 5, 1, 2);            // F(2x2, 5x5)
  for (const OperatorSpec& op : {three, five, fiveWide, preset("resnet18_conv4_b1")})
    expectMatch(op, runnable(op, 4, 55, SpaceTarget::Winograd), SpaceTarget::Winograd);
  const OperatorSpec c2 = preset("C2");
  expectMatch(c2,
              {defaultSpace(c2, SpaceTarget::Winograd)
                   .parse("tile_f=6,16,2; tile_t=784,16,2; tile_e=1,64; tile_rc=16,4")},
              SpaceTarget::Winograd);
}

// The matrix-vector template on the device: AlexNet's fc6 (bias and relu fused), one with rows
// of A transposed and a K that leaves a last partial pass, and a batched one; every way of
// sharing K (shuffles, parts meeting in shared memory) among the random configurations.
TEST_F(CudaRun, MatVecMatchesReference) {
  OperatorSpec t = smallMatMul(3, 40, 1031);
  t.transA = true, t.transB = true;
  OperatorSpec fc6 = preset("alexnet_fc6_b1");
  for (const OperatorSpec& op : {fc6, t, smallBatchMatMul(4, 2, 96, 256, false, true)})
    expectMatch(op, runnable(op, 6, 57, SpaceTarget::MatVecGpu), SpaceTarget::MatVecGpu);
}

}  // namespace
}  // namespace opevo::test
