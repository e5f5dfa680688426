#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "codegen_test_util.h"
#include "common/device_run.h"
#include "common/run_watch.h"
#include "host_api.h"

// verifyThenTime, the worker's checked run and timing, on host memory and the host clock: a
// kernel far slower than the cut-off is timed by one run, and a checked run slowed only by the
// first launch (a module's lazy loading) does not cut a fast kernel's timing short.
namespace opevo {
namespace {

using namespace std::chrono_literals;

TimingOptions timing(double cutoffMs) {
  TimingOptions t;
  t.minTotalMs = 0;
  t.minRuns = 3;
  t.warmupRuns = 1;
  t.cutoffMs = cutoffMs;
  return t;
}

struct SleepyKernel {
  HostApi api;
  OperatorBuffers buffers{test::smallMatMul(8, 8, 8)};
  DeviceOperands<HostApi> dev{api, buffers};
  int runs = 0;

  // Verifies and times a kernel that writes the right result after sleeping first for its first
  // run, then for each later one.
  Measurement time(std::chrono::milliseconds first, std::chrono::milliseconds later,
                   double cutoffMs) {
    const auto run = [this, first, later] {
      std::this_thread::sleep_for(runs++ == 0 ? first : later);
      api.copyToDevice(dev.c.get(), buffers.reference.data(),
                       buffers.reference.size() * sizeof(float));
    };
    return verifyThenTime(api, dev, buffers, run, timing(cutoffMs), false);
  }
};

TEST(DeviceTiming, AKernelOverTheCutoffIsTimedByOneRunAndSaysSo) {
  SleepyKernel k;
  const Measurement m = k.time(30ms, 30ms, 5);
  EXPECT_EQ(m.status, TrialStatus::Ok);
  ASSERT_EQ(m.timesMs.size(), 1u);
  EXPECT_GE(m.timesMs[0], 30.0);
  EXPECT_EQ(k.runs, 2);  // the checked run, then the one timed
  EXPECT_EQ(m.message, "timed by one run alone: over the cut-off of 5 ms");
}

TEST(DeviceTiming, WithoutACutoffOrUnderItEveryKernelIsTimedFully) {
  const Measurement full = SleepyKernel().time(30ms, 30ms, 0);
  EXPECT_EQ(full.timesMs.size(), 3u);
  EXPECT_TRUE(full.message.empty());
  EXPECT_EQ(SleepyKernel().time(1ms, 1ms, 500).timesMs.size(), 3u);
}

TEST(DeviceTiming, ASlowFirstLaunchAloneDoesNotCutTheTimingShort) {
  const Measurement m = SleepyKernel().time(40ms, 1ms, 20);
  EXPECT_EQ(m.status, TrialStatus::Ok);
  EXPECT_EQ(m.timesMs.size(), 3u);
  EXPECT_TRUE(m.message.empty()) << m.message;
  EXPECT_LT(m.medianMs, 20.0);
}

// The checked run is watched: one over the give-up limit is given up by the process's watch (in
// opevo-worker, which then exits; here the test's watch notes it), one under it is not.
TEST(DeviceTiming, ACheckedRunOverTheGiveUpLimitIsGivenUp) {
  std::vector<std::string> givenUp;
  std::mutex mutex;
  RunWatch watch([&](const std::string& message) {
    std::lock_guard lock(mutex);
    givenUp.push_back(message);
  });
  setRunWatch(&watch);
  // (cleared however the test ends: later tests must not find this watch)
  const std::unique_ptr<RunWatch, void (*)(RunWatch*)> unset(
      &watch, [](RunWatch*) { setRunWatch(nullptr); });
  TimingOptions t = timing(0);
  t.giveUpMs = 40;
  SleepyKernel slow;
  const auto run = [&] {
    std::this_thread::sleep_for(slow.runs++ == 0 ? 150ms : 1ms);
    slow.api.copyToDevice(slow.dev.c.get(), slow.buffers.reference.data(),
                          slow.buffers.reference.size() * sizeof(float));
  };
  verifyThenTime(slow.api, slow.dev, slow.buffers, run, t, false);
  {
    std::lock_guard lock(mutex);
    ASSERT_EQ(givenUp.size(), 1u);
    EXPECT_NE(givenUp[0].find("still running after 40 ms"), std::string::npos) << givenUp[0];
  }
  SleepyKernel fast;
  t.giveUpMs = 500;
  verifyThenTime(
      fast.api, fast.dev, fast.buffers,
      [&] {
        fast.api.copyToDevice(fast.dev.c.get(), fast.buffers.reference.data(),
                              fast.buffers.reference.size() * sizeof(float));
      },
      t, false);
  std::this_thread::sleep_for(600ms);  // past the limit: the run ended in time, nothing fires
  std::lock_guard lock(mutex);
  EXPECT_EQ(givenUp.size(), 1u);
}

TEST(DeviceTiming, AWrongResultIsNeverTimed) {
  SleepyKernel k;
  int runs = 0;
  const Measurement m = verifyThenTime(
      k.api, k.dev, k.buffers, [&] { ++runs; }, timing(5), false);
  EXPECT_EQ(m.status, TrialStatus::WrongResult);
  EXPECT_TRUE(m.timesMs.empty());
  EXPECT_EQ(runs, 1);
}

}  // namespace
}  // namespace opevo
