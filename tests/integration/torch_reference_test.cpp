#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "run_process.h"

namespace opevo::test {
namespace {

namespace fs = std::filesystem;

#ifdef OPEVO_TORCH
const std::string kProgram = OPEVO_TORCH;
#else
const std::string kProgram;
#endif

nlohmann::json timeTorch(const std::string& network, bool defaultMalloc) {
  const fs::path out =
      fs::temp_directory_path() / ("opevo-torch-test-" + std::to_string(::getpid()) + ".bin");
  std::vector<std::string> args = {network,  "--threads", "2",     "--warmup",  "3",
                                   "--runs", "4",         "--out", out.string()};
  if (defaultMalloc) args.emplace_back("--default-malloc");
  const ProcessResult r = runProcess(kProgram, args);
  fs::remove(out);
  EXPECT_EQ(r.status, 0) << r.err;
  return nlohmann::json::parse(r.out, nullptr, false);
}

// glibc gives freed blocks of 128 KiB and more back to the system, so every eager pass
// page-faulted MobileNetV2's activations in again (3,500 faults a pass; ResNet-50's 30,000 made
// libtorch 6x slower on a 2-core EPYC). The reference keeps freed memory for the next pass; the
// default-malloc run shows the faults are there to be seen. Two threads: with one, every block
// comes from the main arena, and glibc's faults were 27 a pass.
TEST(TorchReference, APassReusesTheMemoryTheLastOneFreed) {
  if (kProgram.empty()) GTEST_SKIP() << "opevo-torch was not built (Debian libtorch-dev)";
  const nlohmann::json kept = timeTorch("mobilenet_v2", false);
  const nlohmann::json glibc = timeTorch("mobilenet_v2", true);
  ASSERT_TRUE(kept.is_object() && glibc.is_object());
  EXPECT_EQ(kept.at("memory"), "kept");
  EXPECT_EQ(glibc.at("memory"), "glibc default");
  EXPECT_LT(kept.at("page_faults_per_pass").get<double>(), 100) << kept.dump();
  EXPECT_GT(glibc.at("page_faults_per_pass").get<double>(), 500) << glibc.dump();
}

}  // namespace
}  // namespace opevo::test
