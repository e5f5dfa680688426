// The verification of large outputs on a real CUDA device (gpu/common/device_compare.h), through
// the worker's own verifyOnDevice in this process: the comparison kernel built by NVRTC, its
// verdicts on a right output, a wrong one and one with an element left unwritten.

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "codegen_test_util.h"
#include "common/device_run.h"
#include "cuda/cuda_driver.h"
#include "cuda/cuda_runner.h"
#include "cuda/nvrtc_compiler.h"

namespace opevo::test {
namespace {

using cuda::CudaDriver;

TEST(DeviceCompareCuda, VerdictsOnALargeOutputAreTheDevicesAndRight) {
  CudaDriver& d = CudaDriver::shared();
  if (!d.ready()) GTEST_SKIP() << "no CUDA device: " << d.reason();
  d.makeCurrent();
  OperatorBuffers buffers(smallMatMul(2049, 2048, 4));
  buffers.computeReference();
  const std::string arch = cudaCompileArch(d.device().computeCapability());
  DeviceComparison<CudaDriver> onDevice(codegen::Backend::Cuda, [&](const std::string& source) {
    return NvrtcCompiler::shared().compile(source, arch);
  });
  DeviceOperands<CudaDriver> dev(d, buffers);
  const auto verify = [&](const std::function<void(std::vector<float>&)>& spoil) {
    std::vector<float> written = buffers.reference;
    if (spoil) spoil(written);
    const auto run = [&] {
      d.copyToDevice(dev.c.get(), written.data(), written.size() * sizeof(float));
    };
    return verifyOnDevice(d, dev, buffers, run, nullptr, 0, &onDevice);
  };
  EXPECT_EQ(verify({}), std::nullopt);
  EXPECT_EQ(verify([](std::vector<float>& c) { c[12345] *= 1.0002f; }), std::nullopt);
  EXPECT_TRUE(verify([](std::vector<float>& c) { c.back() += 0.5f; }));
  const auto unwritten = verify([](std::vector<float>& c) { c[777] = std::nanf(""); });
  ASSERT_TRUE(unwritten);
  EXPECT_NE(unwritten->find("inf"), std::string::npos) << *unwritten;
  EXPECT_EQ(onDevice.comparisons(), 4) << onDevice.unusableBecause();
  EXPECT_TRUE(onDevice.unusableBecause().empty()) << onDevice.unusableBecause();
}

}  // namespace
}  // namespace opevo::test
