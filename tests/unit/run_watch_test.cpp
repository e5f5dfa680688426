// RunWatch (common/run_watch.h) on the host clock: a watched run over its limit is given up once,
// one that ends in time or is not watched never is; SlowCutoff sets the limit from the fastest
// kernel.
#include "common/run_watch.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "cpu/cpu_runner.h"
#include "space/text.h"

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

// The runs a trial's limit leaves room for (TimingOptions::trialMs): the ones asked where they fit,
// otherwise those that fit in four fifths of the limit, never more than were asked.
TEST(RunWatch, AKernelIsTimedByTheRunsThatFitInItsTrial) {
  TimingOptions t;
  t.minTotalMs = 1;
  t.minRuns = 3;
  t.warmupRuns = 1;
  EXPECT_FALSE(runsThatFit(300, 300, t));  // no limit
  t.trialMs = 10000;
  EXPECT_FALSE(runsThatFit(300, 300, t));  // three runs of 0.3 s fit in 10 s
  t.trialMs = 1000;
  EXPECT_EQ(runsThatFit(0, 300, t), 2);    // 800 ms of room
  EXPECT_EQ(runsThatFit(300, 300, t), 1);  // the checked run took its share
  EXPECT_EQ(runsThatFit(900, 300, t), 0);  // past the room: the checked run alone
  // --min-time-ms asks for runs too: a second of 0.1 s runs is ten, seven fit.
  t.minTotalMs = 1000;
  EXPECT_EQ(runsThatFit(100, 100, t), 7);
  // Never more timed runs than asked: the warm-ups are what the room drops.
  t.minTotalMs = 1;
  t.warmupRuns = 8;  // ten runs of 0.1 s asked, eight fit
  EXPECT_EQ(runsThatFit(0, 100, t), 3);
  t.warmupRuns = 1;
  // A microsecond kernel under a long --min-time-ms asks for maxRuns, not an int's overflow.
  t.minTotalMs = 1e12;
  t.trialMs = 1e9;
  EXPECT_FALSE(runsThatFit(0, 1e-6, t));
  EXPECT_FALSE(runsThatFit(0, 0, t));  // no run time: nothing to decide on
}

// timeCheckedKernel, the one rule of the CPU's and KAS's kernels: the runs asked (the checked run
// was the first warm-up), one run over the cut-off, or the runs that fit in the trial's limit.
TEST(RunWatch, ACheckedKernelIsTimedByTheRunsAskedTheCutOffOrItsLimit) {
  int runs = 0;
  const auto run = [&] {
    ++runs;
    std::this_thread::sleep_for(std::chrono::milliseconds(60));
  };
  TimingOptions t;
  t.minTotalMs = 1;
  t.minRuns = 3;
  t.warmupRuns = 2;
  t.warmAfterIdle = false;  // below
  KernelTimes k = timeCheckedKernel(60, t, std::chrono::steady_clock::now(), run);
  EXPECT_EQ(k.timesMs.size(), 3u);
  EXPECT_EQ(runs, 4);  // one warm-up besides the checked run, then the three timed
  EXPECT_EQ(k.message, "");
  EXPECT_EQ(timingCutOf(k.message), TimingCut::None);

  runs = 0;
  t.cutoffMs = 30;
  k = timeCheckedKernel(60, t, std::chrono::steady_clock::now(), run);
  EXPECT_EQ(runs, 0);
  EXPECT_EQ(k.timesMs, std::vector<double>{60});
  EXPECT_EQ(k.message, "timed by one run alone: over the cut-off of 30 ms");
  EXPECT_EQ(timingCutOf(k.message), TimingCut::OverCutoff);

  runs = 0;
  t.cutoffMs = 0;
  t.trialMs = 175;  // 140 ms of room: two runs of the four asked
  k = timeCheckedKernel(60, t, std::chrono::steady_clock::now(), run);
  EXPECT_EQ(runs, 2);
  EXPECT_EQ(k.timesMs.size(), 2u);
  EXPECT_EQ(k.message.rfind("timed by 2 runs: a run takes ", 0), 0u) << k.message;
  EXPECT_EQ(timingCutOf(k.message), TimingCut::TrialLimit);
  EXPECT_EQ(timingCutOf("timed by its checked run alone: a run takes 2.00 s; the runs asked pass "
                        "the trial's 2.00 s limit"),
            TimingCut::TrialLimit);
  EXPECT_EQ(timingCutOf("result differs from the reference"), TimingCut::None);
}

// A spell of kernel runs after an idle pause is warmed up for its first 150 ms before a run is
// timed (on the 2-core EPYC a batch's first trial after the builds ran its first 50-100 ms up to
// 2x slow); a spell going on is not, nor one that a long checked run began, nor a kernel that one
// run decides.
TEST(RunWatch, ASpellOfRunsAfterAPauseIsWarmedUpBeforeItIsTimed) {
  int runs = 0;
  const auto run = [&] {
    ++runs;
    std::this_thread::sleep_for(1ms);
  };
  const auto pause = [] {
    std::this_thread::sleep_for(std::chrono::milliseconds(int(kIdleGapMs) + 50));
  };
  TimingOptions t;
  t.minTotalMs = 0;
  t.minRuns = t.maxRuns = 3;
  t.warmupRuns = 0;
  pause();
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(timeRuns(run, t).size(), 3u);
  const double tookMs =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(tookMs, kBusySpellWarmMs);
  EXPECT_GT(runs, 3);

  runs = 0;  // straight after: the spell goes on
  timeRuns(run, t);
  EXPECT_EQ(runs, 3);

  pause();  // a checked run of 160 ms began the spell and warmed it
  start = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(160ms);
  noteKernelRun(start, std::chrono::steady_clock::now());
  runs = 0;
  timeRuns(run, t);
  EXPECT_EQ(runs, 3);

  pause();
  runs = 0;
  t.warmAfterIdle = false;
  timeRuns(run, t);
  EXPECT_EQ(runs, 3);
}

// After a pause, where one run decides or the trial's limit leaves no room, the spell's warm-up is
// left out: a kernel over the cut-off is timed by its one run, and runs that fit in the limit
// only without the warm-up are timed without it rather than killed with their verified result.
TEST(RunWatch, TheSpellsWarmUpNeverPushesATrialPastItsLimit) {
  int runs = 0;
  const auto run = [&] {
    ++runs;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  };
  const auto pause = [] {
    std::this_thread::sleep_for(std::chrono::milliseconds(int(kIdleGapMs) + 50));
  };
  TimingOptions t;
  t.minTotalMs = 0;
  t.minRuns = 3;
  t.warmupRuns = 1;  // the checked run

  pause();
  t.cutoffMs = 5;  // a 20 ms checked run is over it: one warm run decides
  KernelTimes k = timeCheckedKernel(20, t, std::chrono::steady_clock::now(), run);
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(timingCutOf(k.message), TimingCut::OverCutoff);

  pause();
  runs = 0;
  t.cutoffMs = 0;
  t.trialMs = 100;  // 80 ms of room: the three runs asked (60 ms) fit, with 150 ms of warm-up not
  const auto taken = std::chrono::steady_clock::now();
  k = timeCheckedKernel(20, t, taken, run);
  const double tookMs =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - taken).count();
  EXPECT_EQ(runs, 3);
  EXPECT_EQ(k.timesMs.size(), 3u);
  EXPECT_EQ(timingCutOf(k.message), TimingCut::None);
  EXPECT_LT(tookMs, 100);

  pause();  // room for both: warmed
  runs = 0;
  t.trialMs = 2000;
  k = timeCheckedKernel(20, t, std::chrono::steady_clock::now(), run);
  EXPECT_GT(runs, 3);
  EXPECT_EQ(k.timesMs.size(), 3u);
}

// How the trial's note writes the run and the limit (and the error where every trial timed out):
// three digits and no exponent, milliseconds under a second.
TEST(RunWatch, DurationsReadWithoutExponents) {
  EXPECT_EQ(durationText(2.45), "2.45 s");
  EXPECT_EQ(durationText(24.5), "24.5 s");
  EXPECT_EQ(durationText(252.4), "252 s");
  EXPECT_EQ(durationText(1234), "1234 s");  // "%.3g" wrote 1.23e+03
  EXPECT_EQ(durationText(0.02), "20.0 ms");
  EXPECT_EQ(durationText(4.2e-6), "0.00420 ms");  // "%.3g s" wrote 4.2e-06 s
  // Rounded before the unit and the decimals are chosen.
  EXPECT_EQ(durationText(9.996), "10.0 s");
  EXPECT_EQ(durationText(0.9996), "1.00 s");
  EXPECT_EQ(durationText(0.09996), "100 ms");
  EXPECT_EQ(durationText(99.96), "100 s");
  EXPECT_EQ(durationText(0), "0 s");
}

}  // namespace
}  // namespace opevo
