// The system compiler as the CPU backend runs it: a build that runs too long is stopped.

#include "codegen/cpu_compiler.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "engine/trial_failures.h"

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

// The limit is on the compiler's CPU time. A build that waits for a busy machine's cores (here a
// compiler that sleeps 1.5 s, using none) finishes under a limit of 0.5 s: on a machine at load
// 23 on 2 cores every build of one kernel passed a 20 s wall-clock limit and was stored as a
// configuration that makes the compiler crawl. One that uses the CPU time is stopped at it and
// says so; one that neither ends nor works is stopped at kCompileWallFactor times the limit,
// saying the machine was too busy (or the compiler hung), which history sets aside.
TEST(CpuCompiler, TheLimitIsOnCpuTimeWithTheWallClockAsABackstop) {
  TempDir dir("opevo-cpu-limit");
  const auto script = [&](const std::string& name, const std::string& body) {
    const std::string path = dir.path() + "/" + name;
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    std::filesystem::permissions(path, std::filesystem::perms::owner_all);
    return path;
  };
  CpuCompilerOptions options;
  options.timeoutSeconds = 0.5;

  // It writes its output (the last argument) after the wait.
  options.compiler =
      script("waits-c++", "sleep 1.5; for a in \"$@\"; do out=$a; done; : > \"$out\"");
  const CompileResult waited = compileCpuKernel("int x;\n", dir.path(), "w", options);
  EXPECT_TRUE(waited.ok) << waited.log;
  EXPECT_GE(waited.seconds, 1.4);

  options.compiler = script("spins-c++", "while :; do :; done");
  const CompileResult spun = compileCpuKernel("int x;\n", dir.path(), "s", options);
  EXPECT_FALSE(spun.ok);
  EXPECT_EQ(spun.log, compilerCrawlMessage(options.compiler, 0.5));
  EXPECT_LT(spun.seconds, 0.5 * kCompileWallFactor);

  options.compiler = script("hangs-c++", "sleep 30");
  const CompileResult hung = compileCpuKernel("int x;\n", dir.path(), "h", options);
  EXPECT_FALSE(hung.ok);
  EXPECT_NE(hung.log.find("the machine was too busy to build it"), std::string::npos) << hung.log;
  EXPECT_TRUE(environmentalFailure(TrialStatus::CompileError, hung.log, 10.0)) << hung.log;
  EXPECT_GE(hung.seconds, 0.5 * kCompileWallFactor);
  EXPECT_LT(hung.seconds, 10.0);
}

}  // namespace
}  // namespace opevo
