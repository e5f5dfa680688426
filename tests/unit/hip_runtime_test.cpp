// The HIP backend on a machine without an AMD GPU: libamdhip64 loads, and everything that would
// need a device says so plainly instead of crashing. (With a device these skip; tests/gpu runs
// the backend for real.)
#include "hip/hip_runtime.h"

#include <gtest/gtest.h>

#include "codegen_test_util.h"
#include "common/error.h"
#include "cuda/cudnn_reference.h"
#include "hip/hip_measurer.h"
#include "hip/hip_runner.h"
#include "hip/rocblas_reference.h"
#include "probe/backend_probe.h"

namespace opevo::test {
namespace {

using hip::HipRuntime;

TEST(HipRuntime, WithoutADeviceTheRuntimeLoadsAndSaysThereIsNoDevice) {
  const HipRuntime& runtime = HipRuntime::shared();
  if (runtime.ready())
    GTEST_SKIP() << "this machine has a HIP device: " << runtime.device().describe();
  if (runtime.library().empty())
    GTEST_SKIP() << "libamdhip64 is not installed: " << runtime.reason();
  // Loaded, initialised, and found nothing: the reason names the library and the missing GPU.
  EXPECT_NE(runtime.reason().find(runtime.library()), std::string::npos) << runtime.reason();
  EXPECT_EQ(runtime.reason().rfind("no HIP device: ", 0), 0u) << runtime.reason();
  EXPECT_EQ(runtime.deviceCount(), 0);
  EXPECT_EQ(hipUnavailableReason(), runtime.reason());
}

TEST(HipRuntime, AMissingLibraryIsNamed) {
  const HipRuntime missing({"libamdhip64-that-does-not-exist.so.99"});
  EXPECT_FALSE(missing.ready());
  EXPECT_EQ(missing.library(), "");
  EXPECT_NE(missing.reason().find("no HIP runtime"), std::string::npos) << missing.reason();
  EXPECT_NE(missing.reason().find("libamdhip64-that-does-not-exist.so.99"), std::string::npos);
}

TEST(HipRuntime, ProbeAndMeasurerGiveTheRuntimesReason) {
  const HipRuntime& runtime = HipRuntime::shared();
  if (runtime.ready()) GTEST_SKIP() << "this machine has a HIP device";
  for (const BackendInfo& b : probeBackends())
    if (b.name == "hip") {
      EXPECT_FALSE(b.available);
      EXPECT_EQ(b.reason, runtime.reason());
      EXPECT_EQ(b.library, runtime.library());
    }
  const OperatorSpec op = smallMatMul(16, 16, 16);
  try {
    HipMeasurer measurer({op, defaultSpace(op), {}});
    FAIL() << "a HIP measurer was made without a device";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "the hip backend cannot run here: " + runtime.reason());
  }
}

TEST(HipRuntime, KernelRunWithoutADeviceIsARuntimeFailureNotACrash) {
  if (HipRuntime::shared().ready()) GTEST_SKIP() << "this machine has a HIP device";
  OperatorBuffers buffers(smallMatMul(8, 8, 8));
  GpuKernelRequest request;
  request.binaryPath = "/nonexistent/k.hsaco";
  const GpuRunResult r = runHipKernel(request, buffers, {});
  EXPECT_EQ(r.measurement.status, TrialStatus::RuntimeFault);
  EXPECT_EQ(r.measurement.message, HipRuntime::shared().reason());
  EXPECT_TRUE(r.contextLost);
}

// The vendor libraries are absent here (and cuDNN / rocBLAS cannot create a handle without a
// device anyway): opening them says which files were tried or what failed.
TEST(VendorReferences, AbsentLibrariesGiveAReason) {
  std::string why;
  if (auto blas = hip::openRocblas(&why))
    GTEST_SKIP() << "rocBLAS opened here: " << blas->library();
  EXPECT_TRUE(why.find("librocblas.so") != std::string::npos ||
              why.find("rocblas_create_handle failed") != std::string::npos)
      << why;
  why.clear();
  if (auto dnn = cuda::Cudnn::open(&why)) GTEST_SKIP() << "cuDNN opened here: " << dnn->library();
  EXPECT_TRUE(why.find("libcudnn.so.9") != std::string::npos ||
              why.find("cudnnCreate failed") != std::string::npos)
      << why;
}

}  // namespace
}  // namespace opevo::test
