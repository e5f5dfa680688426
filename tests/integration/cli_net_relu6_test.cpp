// ReLU6 in a network run end to end (opevo net run) against libtorch's hardtanh(0, 6): fused
// into convolutions (plain, depthwise, 1x1 after a scale) and a dense layer, on the loop
// templates and on ALT's layout templates, and as fixed kernels after a pool.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "run_process.h"

namespace opevo::test {
namespace {

const std::string kRelu6Net = std::string(OPEVO_SOURCE_DIR) + "/tests/data/net_relu6.json";

TEST(CliNetRelu6, ShowNamesTheFusedStep) {
  const auto r = runProcess(OPEVO_CLI, {"net", "show", kRelu6Net});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("+bias +relu6"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pool.relu6"), std::string::npos) << r.out;
}

TEST(CliNetRelu6, FusedAndFixedReluSixMatchLibtorch) {
  for (const char* mode : {"loop", "joint"})
    for (const char* seed : {"1", "2"}) {
      SCOPED_TRACE(std::string(mode) + ", seed " + seed);
      const auto r =
          runProcess(OPEVO_CLI, {"net", "run", kRelu6Net, "--mode", mode, "--configs", "random",
                                 "--seed", seed, "--runs", "2", "--warmup", "1", "--json"});
      ASSERT_EQ(r.status, 0) << r.err << r.out;
      const nlohmann::json j = nlohmann::json::parse(r.out);
      EXPECT_EQ(j["tasks"].size(), 6u);  // c1, dw, pw, ex, fc1, fc2
      if (j["reference"]["ms"].is_null()) GTEST_SKIP() << j["reference"]["missing"];
      EXPECT_TRUE(j["verified"].get<bool>()) << j.dump(2);
      EXPECT_LT(j["reference"]["max_relative_error"].get<double>(), 1e-5);
    }
}

}  // namespace
}  // namespace opevo::test
