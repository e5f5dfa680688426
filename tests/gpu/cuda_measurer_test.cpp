// The CUDA measurement backend end to end on a real GPU: NVRTC compile in this process, check,
// verify and time in an opevo-worker. Skipped with a message when no CUDA device is present.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>

#include "codegen/kernel_codegen.h"
#include "codegen_test_util.h"
#include "cuda/cuda_driver.h"
#include "cuda/cuda_measurer.h"
#include "probe/backend_probe.h"

namespace opevo::test {
namespace {

namespace fs = std::filesystem;

class CudaMeasurerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const auto& b : probeBackends())
      if (b.name == "cuda" && !b.available) GTEST_SKIP() << "no CUDA device: " << b.reason;
    char pattern[] = "/tmp/opevo-cuda-test-XXXXXX";
    m_dir = mkdtemp(pattern);
  }
  void TearDown() override {
    if (!m_dir.empty()) fs::remove_all(m_dir);
  }

  CudaMeasurerOptions options() const {
    CudaMeasurerOptions o;
    o.cacheDir = (m_dir / "cache").string();
    o.workerPath = OPEVO_WORKER;
    o.timing.minTotalMs = 5;  // short: this checks the machinery, not the speed
    return o;
  }

  // A few random configurations the device can hold, measured as a tuner would.
  void expectVerified(const OperatorSpec& op, int count, std::uint64_t seed) {
    OperatorDefinition def{op, defaultSpace(op), {}};
    addSharedMemoryConstraint(def, cuda::CudaDriver::shared().device().maxSharedBytesOptin);
    CudaMeasurer measurer(def, options());
    std::cout << "[ device   ] " << measurer.label() << " (" << measurer.arch() << ")\n";
    const std::vector<Config> configs = randomConfigs(def.space, count, seed);
    ASSERT_EQ(int(configs.size()), count);
    const auto results = measurer.measure(configs);
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
    const auto ref = measurer.reference();
    ASSERT_TRUE(ref.has_value());
    EXPECT_EQ(ref->measurement.status, TrialStatus::Ok) << ref->measurement.message;
    EXPECT_GT(ref->measurement.speed, 0);
    std::cout << "[ reference] " << ref->library << ": " << ref->measurement.speed << " TFLOPS\n";
  }

  fs::path m_dir;
};

TEST_F(CudaMeasurerTest, SmallMatMulConfigurationsAreVerifiedAndTimed) {
  expectVerified(smallMatMul(64, 96, 80), 4, 61);
}

TEST_F(CudaMeasurerTest, SmallConv2DConfigurationsAreVerifiedAndTimed) {
  expectVerified(smallConv(2, 8, 12, 13, 3, 2, 1), 4, 62);
}

TEST_F(CudaMeasurerTest, CublasReferenceIsFast) {
  const OperatorSpec op = smallMatMul(512, 512, 512);
  CudaMeasurer measurer({op, defaultSpace(op), {}}, options());
  const auto ref = measurer.reference();
  ASSERT_TRUE(ref.has_value());
  EXPECT_NE(ref->library.find("cuBLAS"), std::string::npos) << ref->library;
  EXPECT_EQ(ref->measurement.status, TrialStatus::Ok) << ref->measurement.message;
  EXPECT_GT(ref->measurement.speed, 0);
}

TEST_F(CudaMeasurerTest, OverTheSharedMemoryLimitIsRejectedAndNotInTheSpace) {
  const OperatorSpec op = smallMatMul(1024, 1024, 1024);
  OperatorDefinition def{op, defaultSpace(op), {}};
  const std::int64_t limit = cuda::CudaDriver::shared().device().maxSharedBytesOptin;
  std::optional<Config> over;
  for (const Config& c : randomConfigs(def.space, 2000, 63))
    if (codegen::generateKernel(op, def.space, c, codegen::Backend::Cuda).launch.sharedBytes >
        limit) {
      over = c;
      break;
    }
  ASSERT_TRUE(over.has_value()) << "no configuration of " << op.describe() << " exceeds " << limit;
  CudaMeasurer measurer(def, options());
  const auto m = measurer.measure({*over});
  EXPECT_EQ(m[0].status, TrialStatus::Rejected) << m[0].message;
  EXPECT_NE(m[0].message.find("shared memory"), std::string::npos) << m[0].message;
  addSharedMemoryConstraint(def, limit);
  EXPECT_FALSE(def.space.satisfies(*over));
}

}  // namespace
}  // namespace opevo::test
