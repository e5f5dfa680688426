#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "codegen_test_util.h"
#include "common/device_run.h"
#include "host_api.h"

// verifyThenTime, the worker's checked run and timing, on host memory and the host clock: a
// kernel far slower than the cut-off is timed by one run, and a checked run slowed only by the
// first launch (a module's lazy loading) does not cut a fast kernel's timing short.
namespace opevo {
namespace {

using namespace std::chrono_literals;

struct SleepyKernel {
  HostApi api;
  OperatorBuffers buffers{test::smallMatMul(8, 8, 8)};
  DeviceOperands<HostApi> dev{api, buffers};
  int runs = 0;

  // Writes the right result after sleeping first for the first run, then for each later one.
  std::function<void()> run(std::chrono::milliseconds first, std::chrono::milliseconds later) {
    return [this, first, later] {
      std::this_thread::sleep_for(runs++ == 0 ? first : later);
      api.copyToDevice(dev.c.get(), buffers.reference.data(),
                       buffers.reference.size() * sizeof(float));
    };
  }
};

TimingOptions timing(double cutoffMs) {
  TimingOptions t;
  t.minTotalMs = 0;
  t.minRuns = 3;
  t.warmupRuns = 1;
  t.cutoffMs = cutoffMs;
  return t;
}

TEST(DeviceTiming, AKernelOverTheCutoffIsTimedByOneRunAndSaysSo) {
  SleepyKernel k;
  const Measurement m =
      verifyThenTime(k.api, k.dev, k.buffers, k.run(30ms, 30ms), timing(5), false);
  EXPECT_EQ(m.status, TrialStatus::Ok);
  ASSERT_EQ(m.timesMs.size(), 1u);
  EXPECT_GE(m.timesMs[0], 30.0);
  EXPECT_EQ(k.runs, 2);  // the checked run, then the one timed
  EXPECT_EQ(m.message, "timed by one run alone: over the cut-off of 5 ms");
}

TEST(DeviceTiming, WithoutACutoffOrUnderItEveryKernelIsTimedFully) {
  SleepyKernel slow;
  const Measurement full =
      verifyThenTime(slow.api, slow.dev, slow.buffers, slow.run(30ms, 30ms), timing(0), false);
  EXPECT_EQ(full.timesMs.size(), 3u);
  EXPECT_TRUE(full.message.empty());
  SleepyKernel fast;
  const Measurement under =
      verifyThenTime(fast.api, fast.dev, fast.buffers, fast.run(1ms, 1ms), timing(500), false);
  EXPECT_EQ(under.timesMs.size(), 3u);
}

TEST(DeviceTiming, ASlowFirstLaunchAloneDoesNotCutTheTimingShort) {
  SleepyKernel k;
  const Measurement m =
      verifyThenTime(k.api, k.dev, k.buffers, k.run(40ms, 1ms), timing(20), false);
  EXPECT_EQ(m.status, TrialStatus::Ok);
  EXPECT_EQ(m.timesMs.size(), 3u);
  EXPECT_TRUE(m.message.empty()) << m.message;
  EXPECT_LT(m.medianMs, 20.0);
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
