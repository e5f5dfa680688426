// The CUDA half of the worker protocol on a machine without an NVIDIA driver: a clear refusal,
// never a crash, and the worker stays usable for the next request.
#include <gtest/gtest.h>

#include "ops/operator_json.h"
#include "probe/backend_probe.h"
#include "worker/protocol.h"
#include "worker/worker_client.h"

namespace opevo {
namespace {

bool cudaPresent() {
  for (const auto& b : probeBackends())
    if (b.name == "cuda" && b.available) return true;
  return false;
}

OperatorSpec tinyMatMul() {
  OperatorSpec op;
  op.name = "tiny";
  op.kind = OpKind::MatMul;
  op.n = op.m = op.k = 8;
  return op;
}

TEST(WorkerCuda, WithoutADriverMeasureIsRefusedWithAReason) {
  if (cudaPresent()) GTEST_SKIP() << "this machine has a CUDA device (see the gpu tests)";
  WorkerClient client(OPEVO_WORKER);
  for (const char* cmd : {"measure", "reference"}) {
    const auto reply = client.call({{"cmd", cmd},
                                    {"backend", "cuda"},
                                    {"op", operatorToJson(tinyMatMul())},
                                    {"binary", "/nonexistent/k.cubin"},
                                    {"launch", {{"grid", {1, 1, 1}}, {"block", {8, 8, 1}}}}},
                                   20);
    ASSERT_TRUE(reply.ok) << cmd << ": " << reply.message;
    EXPECT_FALSE(reply.body.value("ok", true)) << reply.body.dump();
    const std::string error = reply.body.value("error", std::string());
    EXPECT_NE(error.find("cuda backend cannot run here"), std::string::npos) << error;
    EXPECT_NE(error.find("driver"), std::string::npos) << error;
  }
  const auto hello = client.call({{"cmd", "hello"}}, 10);
  ASSERT_TRUE(hello.ok);
  EXPECT_TRUE(hello.body.value("ok", false));
  EXPECT_EQ(client.restarts(), 0);
}

TEST(WorkerCuda, InProcessHandlerRefusesWithoutADriver) {
  if (cudaPresent()) GTEST_SKIP() << "this machine has a CUDA device (see the gpu tests)";
  bool quit = false;
  const auto reply = handleWorkerRequest(
      {{"cmd", "reference"}, {"backend", "cuda"}, {"op", operatorToJson(tinyMatMul())}}, quit);
  EXPECT_FALSE(reply.value("ok", true));
  EXPECT_FALSE(quit);
}

}  // namespace
}  // namespace opevo
