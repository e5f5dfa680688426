// RunWatch (common/run_watch.h) on the host clock: a watched run over its limit is given up once,
// one that ends in time or is not watched never is; SlowCutoff sets the limit from the fastest
// kernel.
#include "common/run_watch.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "cpu/cpu_runner.h"

namespace opevo {
namespace {

using namespace std::chrono_literals;

struct CountingWatch {
  std::atomic<int> givenUp{0};
  RunWatch watch{[this](const std::string&) { ++givenUp; }};
};

TEST(RunWatch, ARunOverItsLimitIsGivenUpOnce) {
  CountingWatch w;
  const auto start = std::chrono::steady_clock::now();
  w.watch.begin(30);
  while (w.givenUp == 0 && std::chrono::steady_clock::now() - start < 5s)
    std::this_thread::sleep_for(1ms);
  const auto after = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(w.givenUp, 1);
  EXPECT_GE(after, 30ms);
  std::this_thread::sleep_for(100ms);
  w.watch.end();
  EXPECT_EQ(w.givenUp, 1);  // once, however long the run goes on
}

TEST(RunWatch, ARunEndedInTimeOrUnwatchedIsNot) {
  CountingWatch w;
  w.watch.begin(500);
  std::this_thread::sleep_for(10ms);
  w.watch.end();
  w.watch.begin(0);  // not watched
  std::this_thread::sleep_for(150ms);
  w.watch.end();
  EXPECT_EQ(w.givenUp, 0);
  // Watched runs on the process's watch; without one, WatchedRun does nothing.
  setRunWatch(&w.watch);
  {
    const WatchedRun run(20);
    std::this_thread::sleep_for(100ms);
  }
  setRunWatch(nullptr);
  {
    const WatchedRun run(1);
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(w.givenUp, 1);
}

TEST(RunWatch, TheLimitIsAHundredTimesTheFastestKernelAndOneSecondAtLeast) {
  SlowCutoff cutoff(10);
  EXPECT_EQ(cutoff.applied({}).giveUpMs, 0);  // nothing measured yet: no limit
  Measurement m;
  m.medianMs = 0.08;
  cutoff.observe(m);
  EXPECT_EQ(cutoff.applied({}).giveUpMs, 1000);  // MM1's 0.08 ms: the floor
  m.medianMs = 40;
  SlowCutoff conv(10);
  conv.observe(m);
  EXPECT_DOUBLE_EQ(conv.applied({}).giveUpMs, 4000);
  EXPECT_EQ(SlowCutoff(0).applied({}).giveUpMs, 0);  // --slow-cutoff 0: never
}

}  // namespace
}  // namespace opevo
