// The CUDA and HIP measurement backends end to end on a real GPU: NVRTC / hiprtc compile in this
// process, check, verify and time in an opevo-worker. Each backend's tests skip with a message
// ("no CUDA device: ...", "no HIP device: ...") when its device is not present.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>

#include "codegen/kernel_codegen.h"
#include "codegen_test_util.h"
#include "common/device_compare.h"
#include "cuda/cublas_reference.h"
#include "cuda/cuda_driver.h"
#include "cuda/cuda_measurer.h"
#include "cuda/cudnn_reference.h"
#include "hip/hip_measurer.h"
#include "hip/hip_runtime.h"
#include "hip/rocblas_reference.h"
#include "probe/backend_probe.h"

namespace opevo::test {
namespace {

namespace fs = std::filesystem;

bool isHip(const std::string& backend) {
  return backend == "hip";
}

class GpuMeasurerTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    for (const auto& b : probeBackends())
      if (b.name == GetParam() && !b.available) {
        const std::string prefix =
            std::string("no ") + (isHip(GetParam()) ? "HIP" : "CUDA") + " device";
        GTEST_SKIP() << (b.reason.rfind(prefix, 0) == 0 ? b.reason : prefix + ": " + b.reason);
      }
    char pattern[] = "/tmp/opevo-gpu-test-XXXXXX";
    m_dir = mkdtemp(pattern);
  }
  void TearDown() override {
    if (!m_dir.empty()) fs::remove_all(m_dir);
  }

  GpuMeasurerOptions options() const {
    GpuMeasurerOptions o;
    o.cacheDir = (m_dir / "cache").string();
    o.workerPath = OPEVO_WORKER;
    o.timing.minTotalMs = 5;  // short: this checks the machinery, not the speed
    // Every good trial here is timed fully: random small configurations can be 10x apart.
    o.cutoffFactor = 0;
    return o;
  }

  codegen::Backend codegenBackend() const {
    return isHip(GetParam()) ? codegen::Backend::Hip : codegen::Backend::Cuda;
  }

  std::int64_t sharedLimit() const {
    return isHip(GetParam()) ? hip::HipRuntime::shared().device().maxSharedBytesPerBlock
                             : cuda::CudaDriver::shared().device().maxSharedBytesOptin;
  }

  std::unique_ptr<GpuMeasurer> make(const OperatorDefinition& def) const {
    if (isHip(GetParam())) return std::make_unique<HipMeasurer>(def, options());
    return std::make_unique<CudaMeasurer>(def, options());
  }

  // Every configuration (each a member of the space) verified and timed, twice over: a split-K
  // kernel whose turns a launch left behind would hang the next one.
  void measureTwice(const OperatorDefinition& d, const std::vector<std::string>& configs) const {
    const auto measurer = make(d);
    std::vector<Config> parsed;
    for (const std::string& c : configs) {
      parsed.push_back(d.space.parse(c));
      ASSERT_TRUE(d.space.satisfies(parsed.back())) << c;
    }
    for (int round = 0; round < 2; ++round) {
      const auto results = measurer->measure(parsed);
      for (std::size_t i = 0; i < parsed.size(); ++i) {
        EXPECT_EQ(results[i].status, TrialStatus::Ok)
            << d.op.describe() << " " << configs[i] << ": " << results[i].message;
        std::cout << "[ measured ] " << d.op.describe() << " " << configs[i] << ": "
                  << results[i].speed << " TFLOPS\n";
      }
    }
  }

  // A few random configurations the device can hold, measured as a tuner would.
  void expectVerified(const OperatorSpec& op, int count, std::uint64_t seed,
                      SpaceTarget target = SpaceTarget::Common) {
    OperatorDefinition def{op, defaultSpace(op, target), {}};
    def.target = target;
    addDeviceLimitConstraint(def, sharedLimit(), codegenBackend(),
                             isHip(GetParam()) ? 0 : kCudaLocalBytesPerThread);
    const auto measurer = make(def);
    std::cout << "[ device   ] " << measurer->label() << " (" << measurer->arch() << ")\n";
    const std::vector<Config> configs = randomConfigs(def.space, count, seed);
    ASSERT_EQ(int(configs.size()), count);
    const auto results = measurer->measure(configs);
    int ok = 0;
    for (std::size_t i = 0; i < configs.size(); ++i) {
      const Measurement& m = results[i];
      // A register-hungry configuration may be Rejected by the device check: that is fine.
      if (m.status == TrialStatus::Rejected) {
        std::cout << "[ rejected ] " << def.space.format(configs[i]) << ": " << m.message << "\n";
        continue;
      }
      EXPECT_EQ(m.status, TrialStatus::Ok) << def.space.format(configs[i]) << ": " << m.message;
      if (m.status != TrialStatus::Ok) continue;
      EXPECT_GT(m.speed, 0);
      EXPECT_GE(m.timesMs.size(), 3u);
      EXPECT_GT(m.compileMs, 0);
      ++ok;
    }
    EXPECT_GT(ok, 0);
    const auto ref = measurer->reference();
    ASSERT_TRUE(ref.has_value());
    EXPECT_EQ(ref->measurement.status, TrialStatus::Ok) << ref->measurement.message;
    EXPECT_GT(ref->measurement.speed, 0);
    std::cout << "[ reference] " << ref->library << ": " << ref->measurement.speed << " TFLOPS\n";
  }

  // The reference's name says which ran: the vendor library when this machine has it (opened
  // here as the worker would), else the plain kernel.
  void expectReferenceNamed(const OperatorSpec& op, bool vendorPresent, const std::string& vendor) {
    const auto measurer = make({op, defaultSpace(op), {}});
    const auto ref = measurer->reference();
    ASSERT_TRUE(ref.has_value());
    EXPECT_EQ(ref->measurement.status, TrialStatus::Ok) << ref->measurement.message;
    EXPECT_GT(ref->measurement.speed, 0);
    EXPECT_NE(ref->library.find(vendorPresent ? vendor : "plain kernel"), std::string::npos)
        << ref->library;
    std::cout << "[ reference] " << ref->library << ": " << ref->measurement.speed << " TFLOPS\n";
  }

  fs::path m_dir;
};

TEST_P(GpuMeasurerTest, SmallMatMulConfigurationsAreVerifiedAndTimed) {
  expectVerified(smallMatMul(64, 96, 80), 4, 61);
}

// The GPU space's split-K (splits adding partial sums in turn through a module-level counter)
// and double-buffered stages, on the device: every configuration verified against the reference
// and timed over many launches, so a counter left behind by one launch would hang the next.
TEST_P(GpuMeasurerTest, SplitKAndDoubleBufferedMatMulsAreVerifiedAndTimed) {
  OperatorSpec op = smallMatMul(128, 256, 1024);
  OperatorDefinition def = withSpaceTarget({op, defaultSpace(op), {}}, SpaceTarget::Gpu);
  op.epilogue = {{EpilogueKind::Bias, 1}, {EpilogueKind::Gelu, 1}, {EpilogueKind::Add, 1}};
  OperatorDefinition fused = withSpaceTarget({op, defaultSpace(op), {}}, SpaceTarget::Gpu);
  const std::vector<std::string> matmulConfigs = {
      "tile_n=2,1,8,8; tile_m=4,1,8,8; tile_k=32,4,8; split_k=4; stages=1",
      "tile_n=2,1,8,8; tile_m=4,1,8,8; tile_k=32,4,8; split_k=16; stages=2",
      "tile_n=4,2,16,1; tile_m=2,1,32,4; tile_k=64,2,8; split_k=1; stages=2"};
  // Thousands of blocks, far more than the device holds at once: splits wait on blocks that
  // started earlier, never on ones still queued.
  OperatorSpec many = smallBatchMatMul(64, 128, 128, 256, false, true);
  OperatorDefinition batched = withSpaceTarget({many, defaultSpace(many), {}}, SpaceTarget::Gpu);
  for (const OperatorDefinition* d : {&def, &fused, &batched}) {
    std::vector<std::string> configs = matmulConfigs;
    if (d == &batched)
      configs = {
          "tile_b=64,1; tile_n=4,1,8,4; tile_m=4,1,8,4; tile_k=16,4,4; split_k=8; stages=2",
          "tile_b=32,2; tile_n=2,2,8,4; tile_m=4,2,4,4; tile_k=32,2,4; split_k=16; stages=1"};
    measureTwice(*d, configs);
  }
}

TEST_P(GpuMeasurerTest, SmallConv2DConfigurationsAreVerifiedAndTimed) {
  expectVerified(smallConv(2, 8, 12, 13, 3, 2, 1), 4, 62);
}

// The direct convolution's split-K on the device: ResNet-18's layer4 shape (512 channels of 7 x 7,
// 16 blocks unsplit), plain and with its block's fused bias, residual and relu, verified against
// cuDNN and timed over many launches twice (a turn left behind would hang the next launch); and
// at batch 16 (802,816 outputs, within split_k's 2^20), blocks far beyond what the device holds
// at once.
TEST_P(GpuMeasurerTest, SplitKConvolutionsAreVerifiedAndTimed) {
  OperatorSpec op = smallConv(1, 512, 512, 7, 3, 1, 1);
  OperatorDefinition def = withSpaceTarget({op, defaultSpace(op), {}}, SpaceTarget::Gpu);
  op.epilogue = {{EpilogueKind::Bias, 1}, {EpilogueKind::Add, 1}, {EpilogueKind::Relu, 1}};
  OperatorDefinition fused = withSpaceTarget({op, defaultSpace(op), {}}, SpaceTarget::Gpu);
  OperatorSpec many = smallConv(16, 256, 256, 14, 3, 1, 1);
  OperatorDefinition batched = withSpaceTarget({many, defaultSpace(many), {}}, SpaceTarget::Gpu);
  const std::string unroll = "; auto_unroll_max_step=512; unroll_explicit=1; ";
  for (const OperatorDefinition* d : {&def, &fused, &batched}) {
    std::vector<std::string> configs = {
        "tile_f=16,1,8,4; tile_y=1,1,7,1; tile_x=1,1,7,1; tile_rc=64,8; tile_ry=1,3; "
        "tile_rx=1,3" +
            unroll + "split_k=8",
        "tile_f=8,2,8,4; tile_y=1,1,7,1; tile_x=1,7,1,1; tile_rc=128,4; tile_ry=3,1; "
        "tile_rx=1,3" +
            unroll + "split_k=16",
        "tile_f=16,1,8,4; tile_y=1,1,7,1; tile_x=1,1,7,1; tile_rc=64,8; tile_ry=1,3; "
        "tile_rx=1,3" +
            unroll + "split_k=1"};
    if (d == &batched)
      configs = {
          "tile_f=8,1,8,4; tile_y=2,1,7,1; tile_x=2,1,7,1; tile_rc=32,8; tile_ry=1,3; "
          "tile_rx=1,3" +
              unroll + "split_k=4",
          "tile_f=16,2,4,2; tile_y=1,1,14,1; tile_x=2,1,7,1; tile_rc=64,4; tile_ry=1,3; "
          "tile_rx=3,1" +
              unroll + "split_k=16"};
    measureTwice(*d, configs);
  }
}

// The Winograd template measured as a run would: verified against cuDNN (or the plain kernel) with
// the one tolerance, a 5x5 kernel whose last tiles stick out of the output, a fused epilogue.
TEST_P(GpuMeasurerTest, WinogradConfigurationsAreVerifiedAndTimed) {
  OperatorSpec op = smallConv(4, 16, 24, 15, 5, 1, 2);
  op.epilogue = {{EpilogueKind::Bias, 1}, {EpilogueKind::Relu, 1}};
  expectVerified(op, 4, 63, SpaceTarget::Winograd);
}

// The matrix-vector template measured as a run would: verified against the vendor BLAS (or the
// plain kernel), a dense layer of 2 rows with its bias and relu.
TEST_P(GpuMeasurerTest, MatVecConfigurationsAreVerifiedAndTimed) {
  OperatorSpec op = smallMatMul(2, 384, 1024);
  op.transB = true;
  op.epilogue = {{EpilogueKind::Bias, 1}, {EpilogueKind::Relu, 1}};
  expectVerified(op, 4, 64, SpaceTarget::MatVecGpu);
}

TEST_P(GpuMeasurerTest, MatMulReferenceIsTheVendorBlasWhenPresent) {
  std::string why;
  const bool present =
      isHip(GetParam()) ? hip::openRocblas(&why) != nullptr : cuda::openCublas(&why) != nullptr;
  expectReferenceNamed(smallMatMul(512, 512, 512), present,
                       isHip(GetParam()) ? "rocBLAS" : "cuBLAS");
}

TEST_P(GpuMeasurerTest, Conv2DReferenceIsCudnnWhenPresent) {
  std::string why;
  // No MIOpen binding: on HIP a Conv2D is always compared with the plain kernel.
  const bool present = !isHip(GetParam()) && cuda::Cudnn::open(&why) != nullptr;
  // Strided and padded, so cuDNN's descriptors are checked against the kernels' meaning. Timed,
  // the reference is the fastest algorithm cudnnFind measured (the result itself comes from the
  // heuristic's first, checked against the exact sums).
  // ("cuDNN convolution forward, algorithm 1 (implicit precomputed GEMM), the fastest of 6 by
  // cudnnFind (libcudnn.so.9)").
  expectReferenceNamed(smallConv(4, 16, 32, 30, 3, 2, 1), present, "by cudnnFind");
}

// A depthwise convolution (MobileNetV2's 3x3 layers: one group per channel), its generated
// kernels verified and timed, its reference cuDNN's grouped convolution (before, a grouped
// convolution was compared with the plain kernel).
// Groups of several channels (8 here) check the filter's second dim, a group's input channels.
TEST_P(GpuMeasurerTest, ADepthwiseConvolutionIsVerifiedAgainstCudnnsGroupedOne) {
  OperatorSpec op = smallConv(1, 32, 32, 28, 3, 1, 1);
  op.groups = 32;
  expectVerified(op, 4, 65);
  op.stride = 2;
  std::string why;
  const bool present = !isHip(GetParam()) && cuda::Cudnn::open(&why) != nullptr;
  expectReferenceNamed(op, present, "by cudnnFind");
  OperatorSpec grouped = smallConv(2, 32, 64, 14, 3, 1, 1);
  grouped.groups = 4;
  expectVerified(grouped, 2, 66);
  expectReferenceNamed(grouped, present, "by cudnnFind");
}

// A fused operator's reference is the library's plain operator, then the epilogue kernel (as a
// framework runs such a layer without fusion); settling it spot-checks the pair against the
// exact fused result.
TEST_P(GpuMeasurerTest, AFusedOperatorsReferenceIsTheLibraryThenTheEpilogueKernel) {
  std::string why;
  OperatorSpec mm = smallMatMul(256, 384, 320);
  mm.epilogue = {{EpilogueKind::Bias, 1}, {EpilogueKind::Gelu, 1}, {EpilogueKind::Add, 1}};
  const bool blas =
      isHip(GetParam()) ? hip::openRocblas(&why) != nullptr : cuda::openCublas(&why) != nullptr;
  expectReferenceNamed(mm, blas, blas ? " + epilogue kernel" : "plain kernel");
  OperatorSpec conv = smallConv(4, 16, 32, 30, 3, 2, 1);
  conv.epilogue = {{EpilogueKind::Bias, 1}, {EpilogueKind::Relu, 1}};
  const bool dnn = !isHip(GetParam()) && cuda::Cudnn::open(&why) != nullptr;
  expectReferenceNamed(conv, dnn, dnn ? " + epilogue kernel" : "plain kernel");
}

// The paper's C2 (1.2e11 multiply-adds): its reference is computed on the device and spot-checked,
// well inside a trial's timeout. Computed whole on the host (the plain loop nest, in a build
// without oneDNN) it took minutes, and every trial of C2 timed out on the H200 (2026-11-26).
TEST_P(GpuMeasurerTest, ALargeConvolutionsReferenceIsSettledOnTheDevice) {
  const OperatorSpec op = smallConv(512, 64, 192, 27, 5, 1, 2);
  const auto measurer = make({op, defaultSpace(op), {}});
  const auto ref = measurer->reference();
  ASSERT_TRUE(ref.has_value());
  EXPECT_EQ(ref->measurement.status, TrialStatus::Ok) << ref->measurement.message;
  EXPECT_GT(ref->measurement.speed, 0);
  std::cout << "[ reference] " << ref->library << ": " << ref->measurement.speed << " TFLOPS\n";
}

// An output of 4 M elements or more is compared with the reference on the device
// (gpu/common/device_compare.h), the comparison kernel built by NVRTC / hiprtc in the worker:
// good kernels pass there, as they do on the host (device_compare_cuda_test checks the verdicts
// themselves on the device).
TEST_P(GpuMeasurerTest, ALargeOutputIsVerifiedOnTheDevice) {
  const OperatorSpec op = smallMatMul(2048, 2048, 256);
  ASSERT_GE(std::size_t(op.n * op.m), kDeviceCompareMin);
  expectVerified(op, 3, 71);
}

TEST_P(GpuMeasurerTest, OverTheSharedMemoryLimitIsRejectedAndNotInTheSpace) {
  const OperatorSpec op = smallMatMul(1024, 1024, 1024);
  OperatorDefinition def{op, defaultSpace(op), {}};
  const std::int64_t limit = sharedLimit();
  std::optional<Config> over;
  for (const Config& c : randomConfigs(def.space, 2000, 63))
    if (codegen::generateKernel(op, def.space, c, codegenBackend()).launch.sharedBytes > limit) {
      over = c;
      break;
    }
  ASSERT_TRUE(over.has_value()) << "no configuration of " << op.describe() << " exceeds " << limit;
  const auto measurer = make(def);
  const auto m = measurer->measure({*over});
  EXPECT_EQ(m[0].status, TrialStatus::Rejected) << m[0].message;
  EXPECT_NE(m[0].message.find("shared memory"), std::string::npos) << m[0].message;
  addDeviceLimitConstraint(def, limit, codegenBackend());
  EXPECT_FALSE(def.space.satisfies(*over));
}

INSTANTIATE_TEST_SUITE_P(Backends, GpuMeasurerTest, ::testing::Values("cuda", "hip"));

}  // namespace
}  // namespace opevo::test
