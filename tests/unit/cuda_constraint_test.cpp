// The CUDA backend's device limit as a search-space constraint: checked without a GPU.
#include <gtest/gtest.h>

#include "codegen/kernel_codegen.h"
#include "codegen_test_util.h"
#include "cuda/cuda_measurer.h"
#include "ops/presets.h"

namespace opevo::test {
namespace {

TEST(CudaConstraint, SharedMemoryLimitIsPartOfTheSpace) {
  OperatorDefinition def{smallMatMul(256, 256, 256), defaultSpace(smallMatMul(256, 256, 256)), {}};
  const SearchSpace plain = def.space;
  const std::int64_t limit = 16 * 1024;
  addDeviceLimitConstraint(def, limit);
  ASSERT_EQ(def.space.constraints().size(), plain.constraints().size() + 1);
  int over = 0, under = 0;
  for (const Config& c : randomConfigs(plain, 300, 7)) {
    const auto k = codegen::generateKernel(def.op, plain, c, codegen::Backend::Cuda);
    std::string broken;
    const bool ok = def.space.satisfies(c, &broken);
    EXPECT_EQ(ok, k.launch.sharedBytes <= limit) << plain.format(c);
    if (!ok) {
      EXPECT_NE(broken.find("shared memory"), std::string::npos) << broken;
    }
    (ok ? under : over)++;
  }
  EXPECT_GT(over, 0);
  EXPECT_GT(under, 0);
  // The tuners draw with randomValid, which now never yields an over-limit configuration.
  for (const Config& c : randomConfigs(def.space, 50, 8))
    EXPECT_LE(codegen::generateKernel(def.op, plain, c, codegen::Backend::Cuda).launch.sharedBytes,
              limit);
}

// The accumulators of one thread against CUDA's 512 KiB of local memory per thread. On an H200
// (2026-11-26) MM1's configurations with 512 KiB and 1 MiB of accumulators failed to launch;
// they are now outside the space, and the fastest configurations found are not.
TEST(CudaConstraint, LocalMemoryLimitIsPartOfTheSpace) {
  const OperatorSpec op = preset("MM1");
  OperatorDefinition def{op, defaultSpace(op), {}};
  const SearchSpace plain = def.space;
  addDeviceLimitConstraint(def, 227 * 1024, codegen::Backend::Cuda, kCudaLocalBytesPerThread);
  ASSERT_EQ(def.space.constraints().size(), plain.constraints().size() + 1);
  for (const char* failed : {"tile_n=1,1,1,512; tile_m=2,8,1,64; tile_k=1024,1,1",
                             "tile_n=2,2,1,128; tile_m=2,2,1,256; tile_k=64,4,4",
                             "tile_n=1,128,1,4; tile_m=2,256,2,1; tile_k=32,8,4"}) {
    const Config c = plain.parse(failed);
    ASSERT_TRUE(plain.satisfies(c)) << failed;
    std::string broken;
    EXPECT_FALSE(def.space.satisfies(c, &broken)) << failed;
    EXPECT_NE(broken.find("accumulators per thread"), std::string::npos) << broken;
  }
  for (const char* fast : {"tile_n=16,1,8,4; tile_m=8,1,64,2; tile_k=4,16,16",
                           "tile_n=16,2,8,2; tile_m=8,1,64,2; tile_k=4,64,4",
                           "tile_n=8,1,8,8; tile_m=8,1,16,8; tile_k=128,8,1"})
    EXPECT_TRUE(def.space.satisfies(plain.parse(fast))) << fast;
  for (const Config& c : randomConfigs(def.space, 200, 9))
    EXPECT_LT(codegen::generateKernel(op, plain, c, codegen::Backend::Cuda).accumulators * 4,
              kCudaLocalBytesPerThread);
}

}  // namespace
}  // namespace opevo::test
