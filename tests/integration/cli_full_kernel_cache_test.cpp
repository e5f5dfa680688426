#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "../unit/temp_dir.h"
#include "run_process.h"
#include "store/store.h"

// A full disk under the kernel cache is the machine's failure, not the configurations': each
// build then failed as "c++ exited with status 1" (its log could not be written either) or "ld
// returned 1 exit status", and was stored as the configuration's compile error, a trial counted
// and its configuration marked bad. Now the run stops with the reason naming the folder, and a
// resume on a disk with room goes on to its budget. The disk is a real one: a 100 KiB tmpfs
// mounted over the cache folder in a mount namespace of its own (unshare -m).
namespace opevo::test {
namespace {

namespace fs = std::filesystem;

ProcessResult inShell(const std::string& script) {
  return runProcess("unshare", {"-m", "sh", "-c", script});
}

TEST(CliFullKernelCache, AFullCacheStopsTheRunWithItsReasonAndAResumeGoesOn) {
  TempDir dir;
  const std::string cache = (dir.path / "cache").string();
  const std::string db = (dir.path / "runs.db").string();
  fs::create_directories(cache);
  const std::string mount = "mount -t tmpfs -o size=100k tmpfs " + shellQuote(cache);
  if (const auto probe = inShell(mount); probe.status != 0)
    GTEST_SKIP() << "cannot mount a small disk here (unshare -m and mount need root or user "
                    "namespaces): "
                 << probe.err;

  const std::string tune = shellQuote(OPEVO_CLI) +
                           " tune --op MM1 --backend cpu --trials 10 --min-time-ms 5 --no-history "
                           "--side-by-side 0 --db " +
                           shellQuote(db);
  const auto full = inShell(mount + " && XDG_CACHE_HOME=" + shellQuote(cache) + " exec " + tune);
  ASSERT_NE(full.status, 0) << full.out << full.err;
  EXPECT_NE(full.err.find("no room to build kernels in " + cache + "/opevo-studio/"),
            std::string::npos)
      << full.err;
  EXPECT_NE(full.err.find("(No space left on device)"), std::string::npos) << full.err;
  EXPECT_NE(full.err.find("opevo tune --resume 1"), std::string::npos) << full.err;
  std::size_t kept = 0;
  {
    Store store(db);
    const auto trials = store.trials(1);
    kept = trials.size();
    EXPECT_LT(kept, 10u);
    for (const TrialRow& t : trials)
      EXPECT_EQ(t.status, TrialStatus::Ok) << "trial " << t.seq << ": " << t.message;
  }

  // On a disk with room (the cache folder without the small disk over it): to its budget.
  const auto resumed = runProcess(
      "sh", {"-c", "XDG_CACHE_HOME=" + shellQuote(cache) + " exec " + shellQuote(OPEVO_CLI) +
                       " tune --resume 1 --db " + shellQuote(db)});
  ASSERT_EQ(resumed.status, 0) << resumed.out << resumed.err;
  Store store(db);
  EXPECT_EQ(store.trials(1).size(), 10u);
  EXPECT_EQ(store.run(1)->status, RunStatus::Finished);
}

}  // namespace
}  // namespace opevo::test
