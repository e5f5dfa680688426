// The system compiler as the CPU backend runs it: a build that runs too long is stopped.

#include "codegen/cpu_compiler.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

namespace opevo {
namespace {

// A build that runs past CpuCompilerOptions::timeoutSeconds is stopped and fails with a reason
// that names the limit (the measurer turns it into a failed trial), instead of holding a batch.
TEST(CpuCompiler, ABuildPastItsTimeLimitFailsWithTheReason) {
  TempDir dir("opevo-slow-compiler");
  const std::string compiler = dir.path() + "/slow-c++";
  {
    std::ofstream f(compiler);
    f << "#!/bin/sh\nsleep 30\n";
  }
  std::filesystem::permissions(compiler, std::filesystem::perms::owner_all);
  CpuCompilerOptions options;
  options.compiler = compiler;
  options.timeoutSeconds = 0.5;
  const auto start = std::chrono::steady_clock::now();
  const CompileResult r = compileCpuKernel("int x;\n", dir.path(), "k", options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_FALSE(r.ok);
  EXPECT_LT(seconds, 10.0);
  EXPECT_NE(r.log.find("compile time limit"), std::string::npos) << r.log;
  EXPECT_NE(r.log.find("0.5 s"), std::string::npos) << r.log;
  // Without a limit the same options build a real kernel.
  options = {};
  EXPECT_TRUE(
      compileCpuKernel("extern \"C\" int f() { return 1; }\n", dir.path(), "ok", options).ok);
}

}  // namespace
}  // namespace opevo
