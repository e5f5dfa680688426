// The GPU halves of the worker protocol (cuda, hip) on a machine without the device: a clear
// refusal, never a crash, and the worker stays usable for the next request.
#include <gtest/gtest.h>

#include "ops/operator_json.h"
#include "probe/backend_probe.h"
#include "worker/protocol.h"
#include "worker/worker_client.h"

namespace opevo {
namespace {

bool present(const std::string& backend) {
  for (const auto& b : probeBackends())
    if (b.name == backend && b.available) return true;
  return false;
}

OperatorSpec tinyMatMul() {
  OperatorSpec op;
  op.name = "tiny";
  op.kind = OpKind::MatMul;
  op.n = op.m = op.k = 8;
  return op;
}

class WorkerGpu : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (present(GetParam()))
      GTEST_SKIP() << "this machine has a " << GetParam() << " device (see the gpu tests)";
  }
};

// missing: what the refusal must name, "driver" for CUDA, "HIP" for HIP.
std::string missingWord(const std::string& backend) {
  return backend == "cuda" ? "driver" : "HIP";
}

TEST_P(WorkerGpu, WithoutADeviceMeasureIsRefusedWithAReason) {
  WorkerClient client(OPEVO_WORKER);
  for (const char* cmd : {"measure", "reference"}) {
    const auto reply = client.call({{"cmd", cmd},
                                    {"backend", GetParam()},
                                    {"op", operatorToJson(tinyMatMul())},
                                    {"binary", "/nonexistent/k.bin"},
                                    {"launch", {{"grid", {1, 1, 1}}, {"block", {8, 8, 1}}}}},
                                   20);
    ASSERT_TRUE(reply.ok) << cmd << ": " << reply.message;
    EXPECT_FALSE(reply.body.value("ok", true)) << reply.body.dump();
    const std::string error = reply.body.value("error", std::string());
    EXPECT_NE(error.find("the " + GetParam() + " backend cannot run here"), std::string::npos)
        << error;
    EXPECT_NE(error.find(missingWord(GetParam())), std::string::npos) << error;
  }
  const auto hello = client.call({{"cmd", "hello"}}, 10);
  ASSERT_TRUE(hello.ok);
  EXPECT_TRUE(hello.body.value("ok", false));
  EXPECT_EQ(client.restarts(), 0);
}

TEST_P(WorkerGpu, InProcessHandlerRefusesWithoutADevice) {
  bool quit = false;
  const auto reply = handleWorkerRequest(
      {{"cmd", "reference"}, {"backend", GetParam()}, {"op", operatorToJson(tinyMatMul())}}, quit);
  EXPECT_FALSE(reply.value("ok", true));
  EXPECT_FALSE(quit);
}

INSTANTIATE_TEST_SUITE_P(Backends, WorkerGpu, ::testing::Values("cuda", "hip"));

}  // namespace
}  // namespace opevo
