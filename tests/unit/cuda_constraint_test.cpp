// The CUDA backend's device limit as a search-space constraint: checked without a GPU.
#include <gtest/gtest.h>

#include "codegen/kernel_codegen.h"
#include "codegen_test_util.h"
#include "cuda/cuda_measurer.h"

namespace opevo::test {
namespace {

TEST(CudaConstraint, SharedMemoryLimitIsPartOfTheSpace) {
  OperatorDefinition def{smallMatMul(256, 256, 256), defaultSpace(smallMatMul(256, 256, 256)), {}};
  const SearchSpace plain = def.space;
  const std::int64_t limit = 16 * 1024;
  addSharedMemoryConstraint(def, limit);
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

}  // namespace
}  // namespace opevo::test
