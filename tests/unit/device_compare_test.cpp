// The GPU backends' verification of large outputs on the device (gpu/common/device_compare.h),
// through the worker's own verifyOnDevice, on host memory (host_api.h) with the comparison kernel
// emulated on CPU threads (gpu_emulation.h): what a trial's verdict is, when the device compares
// and when the host still does.

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "codegen/cpu_compiler.h"
#include "codegen_test_util.h"
#include "common/device_run.h"
#include "gpu_emulation.h"
#include "host_api.h"
#include "temp_dir.h"

namespace opevo {
namespace {

using codegen::Backend;

// The comparison kernel's CUDA source, built as an emulated shared object whose path is the
// module image HostApi loads.
class EmulatedCompiler {
 public:
  CompileResult operator()(const std::string& source) {
    ++compiles;
    if (broken) return {};
    const auto k = codegen::generateComparisonKernel(Backend::Cuda);
    CpuCompilerOptions options;
    options.flags = {"-O1", "-std=c++20", "-pthread", "-shared", "-fPIC"};
    const std::string emulated =
        test::emulationHeader() +
        test::emulatedLaunch(source, k.entry, k.launch, 1, "void** args",
                             "*(const float**)args[0], *(const float**)args[1], "
                             "*(unsigned long long*)args[2], *(double**)args[3]");
    CompileResult r = compileCpuKernel(emulated, m_dir.path.string(),
                                       "compare" + std::to_string(compiles), options);
    r.binary = r.path;
    return r;
  }
  int compiles = 0;
  bool broken = false;

 private:
  test::TempDir m_dir;
};

// An n x 2048 MatMul, its reference settled: 2049 rows are over kDeviceCompareMin outputs (and
// not a multiple of the comparison's threads), 1024 under.
OperatorBuffers settled(std::int64_t n, std::int64_t k) {
  OperatorBuffers b(test::smallMatMul(n, 2048, k));
  b.computeReference();
  return b;
}

struct Verifier {
  HostApi api;
  EmulatedCompiler compiler;
  DeviceComparison<HostApi> onDevice{
      Backend::Cuda, [this](const std::string& source) { return compiler(source); }};

  // The verdict on a kernel that writes the reference, changed by `spoil` (given the output).
  std::optional<std::string> verify(OperatorBuffers& buffers,
                                    const std::function<void(std::vector<float>&)>& spoil = {}) {
    DeviceOperands<HostApi> dev(api, buffers);
    std::vector<float> written = buffers.reference;
    if (spoil) spoil(written);
    const auto run = [&] {
      api.copyToDevice(dev.c.get(), written.data(), written.size() * sizeof(float));
    };
    return verifyOnDevice(api, dev, buffers, run, nullptr, 0, &onDevice);
  }
};

TEST(DeviceCompare, ALargeOutputIsJudgedOnTheDeviceAsTheHostWouldJudgeIt) {
  Verifier v;
  OperatorBuffers buffers = settled(2049, 4);
  ASSERT_GT(buffers.outputSize(), kDeviceCompareMin);
  EXPECT_EQ(v.verify(buffers), std::nullopt);
  EXPECT_EQ(v.api.launches, 1);
  EXPECT_EQ(v.compiler.compiles, 1);
  // Within the tolerance, and just beyond it.
  EXPECT_EQ(v.verify(buffers, [](std::vector<float>& c) { c[12345] *= 1.0002f; }), std::nullopt);
  const auto wrong = v.verify(buffers, [](std::vector<float>& c) { c.back() += 0.5f; });
  ASSERT_TRUE(wrong);
  EXPECT_NE(wrong->find("max relative error"), std::string::npos) << *wrong;
  // An element the kernel leaves unwritten stays NaN: the worst error there is.
  const auto unwritten = v.verify(buffers, [](std::vector<float>& c) { c[777] = std::nanf(""); });
  ASSERT_TRUE(unwritten);
  EXPECT_NE(unwritten->find("inf"), std::string::npos) << *unwritten;
  EXPECT_EQ(v.api.launches, 4);
  EXPECT_EQ(v.onDevice.comparisons(), 4);
  EXPECT_EQ(v.compiler.compiles, 1) << "compiled once per worker";
  EXPECT_TRUE(v.onDevice.unusableBecause().empty());
}

TEST(DeviceCompare, TheReferenceOnTheDeviceFollowsTheOperator) {
  // Two operators of the same output size, one after the other as a worker gets them: the second
  // is judged against its own reference, not the first's left on the device.
  Verifier v;
  {
    OperatorBuffers first = settled(2049, 4);
    EXPECT_EQ(v.verify(first), std::nullopt);
  }
  OperatorBuffers second = settled(2049, 8);
  EXPECT_EQ(v.verify(second), std::nullopt);
  EXPECT_TRUE(v.verify(second, [](std::vector<float>& c) { c[0] += 1; }));
  EXPECT_EQ(v.api.launches, 3);
}

TEST(DeviceCompare, ADamagedReferenceOnTheDeviceIsCaughtByTheHostAndCopiedAgain) {
  // A kernel writing past its output could land in the device's copy of the reference: the
  // device then calls a correct output wrong, the host, asked to confirm, does not, and the next
  // comparison has the reference copied again.
  Verifier v;
  OperatorBuffers buffers = settled(2049, 4);
  EXPECT_EQ(v.verify(buffers), std::nullopt);
  ASSERT_NE(v.onDevice.referenceOnDevice(), 0u);
  v.api.memset32(v.onDevice.referenceOnDevice() + 4 * 1000, 0x3f800000u, 10);  // 1.0f
  EXPECT_EQ(v.verify(buffers), std::nullopt);
  EXPECT_EQ(v.onDevice.referenceOnDevice(), 0u) << "forgotten";
  EXPECT_EQ(v.verify(buffers), std::nullopt);
  EXPECT_NE(v.onDevice.referenceOnDevice(), 0u);
  EXPECT_TRUE(v.verify(buffers, [](std::vector<float>& c) { c[1005] += 1; }));
  EXPECT_EQ(v.onDevice.comparisons(), 4);
}

TEST(DeviceCompare, AModuleThatDoesNotLoadLeavesTheComparisonToTheHost) {
  HostApi api;
  int compiles = 0;
  DeviceComparison<HostApi> onDevice(Backend::Cuda, [&](const std::string&) {
    ++compiles;
    CompileResult r;
    r.ok = true;
    r.binary = "/nonexistent/comparison.so";
    return r;
  });
  OperatorBuffers buffers = settled(2049, 4);
  DeviceOperands<HostApi> dev(api, buffers);
  std::vector<float> written = buffers.reference;
  const auto run = [&] {
    api.copyToDevice(dev.c.get(), written.data(), written.size() * sizeof(float));
  };
  EXPECT_EQ(verifyOnDevice(api, dev, buffers, run, nullptr, 0, &onDevice), std::nullopt);
  written[3] = std::nanf("");
  EXPECT_TRUE(verifyOnDevice(api, dev, buffers, run, nullptr, 0, &onDevice));
  EXPECT_EQ(compiles, 1);
  EXPECT_EQ(onDevice.comparisons(), 0);
  EXPECT_NE(onDevice.unusableBecause().find("dlopen"), std::string::npos)
      << onDevice.unusableBecause();
}

TEST(DeviceCompare, SmallOutputsAndAKernelThatDoesNotCompileAreComparedOnTheHost) {
  Verifier v;
  OperatorBuffers small = settled(1024, 4);
  EXPECT_EQ(v.verify(small), std::nullopt);
  EXPECT_TRUE(v.verify(small, [](std::vector<float>& c) { c[5] += 1; }));
  EXPECT_EQ(v.api.launches, 0);
  EXPECT_EQ(v.compiler.compiles, 0);

  v.compiler.broken = true;
  OperatorBuffers large = settled(2049, 4);
  EXPECT_EQ(v.verify(large), std::nullopt);
  EXPECT_TRUE(v.verify(large, [](std::vector<float>& c) { c.back() = std::nanf(""); }));
  EXPECT_EQ(v.api.launches, 0);
  EXPECT_EQ(v.compiler.compiles, 1) << "not tried again for every trial";
  EXPECT_NE(v.onDevice.unusableBecause().find("did not compile"), std::string::npos);
}

}  // namespace
}  // namespace opevo
