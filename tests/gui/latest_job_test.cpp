#include "ui/jobs/latest_job.h"

#include <gtest/gtest.h>

#include <QTest>
#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "gui_test_support.h"

namespace opevo::ui {
namespace {

int slowly(int value, int ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  return value;
}

TEST(LatestJob, OnlyTheLatestResultIsDelivered) {
  LatestJob<int> job;
  std::vector<int> delivered;
  job.start([] { return slowly(1, 200); }, [&](int v) { delivered.push_back(v); });
  job.start([] { return slowly(2, 10); }, [&](int v) { delivered.push_back(v); });
  EXPECT_TRUE(job.busy());
  ASSERT_TRUE(test::waitUntil([&] { return !job.busy(); }));
  QTest::qWait(300);  // the stale first job ends too, and says nothing
  EXPECT_EQ(delivered, std::vector<int>{2});
}

// The stale job still runs after the latest has delivered: nothing is being computed for the
// caller any more.
TEST(LatestJob, IsNotBusyOnceTheLatestDeliveredWhileAStaleOneRuns) {
  LatestJob<int> job;
  std::vector<int> delivered;
  job.start([] { return slowly(1, 400); }, [&](int v) { delivered.push_back(v); });
  job.start([] { return slowly(2, 10); },
            [&](int v) {
              delivered.push_back(v);
              EXPECT_FALSE(job.busy()) << "busy while delivering its own result";
            });
  ASSERT_TRUE(test::waitUntil([&] { return !delivered.empty(); }));
  EXPECT_FALSE(job.busy());
  job.start([] { return slowly(3, 50); }, [&](int v) { delivered.push_back(v); });
  EXPECT_TRUE(job.busy());
  ASSERT_TRUE(test::waitUntil([&] { return !job.busy(); }));
  QTest::qWait(450);
  EXPECT_EQ(delivered, (std::vector<int>{2, 3}));
}

TEST(LatestJob, CancelDropsTheJobInFlight) {
  LatestJob<int> job;
  int delivered = 0;
  job.start([] { return slowly(1, 50); }, [&](int) { ++delivered; });
  job.cancel();
  EXPECT_FALSE(job.busy());
  QTest::qWait(200);
  EXPECT_EQ(delivered, 0);
}

TEST(LatestJob, NewestWaitsRunsOneAtATimeAndSkipsTheMiddle) {
  LatestJob<int> job(LatestJob<int>::Overlap::NewestWaits);
  std::atomic<int> running{0}, widest{0}, started{0};
  auto compute = [&](int value) {
    return [&, value] {
      ++started;
      widest = std::max(widest.load(), ++running);
      slowly(value, 60);
      --running;
      return value;
    };
  };
  std::vector<int> delivered;
  for (int v = 1; v <= 3; ++v) job.start(compute(v), [&](int r) { delivered.push_back(r); });
  ASSERT_TRUE(test::waitUntil([&] { return !job.busy(); }));
  EXPECT_EQ(widest.load(), 1);
  EXPECT_EQ(started.load(), 2);  // the first, then only the newest: 2 never ran
  EXPECT_EQ(delivered, std::vector<int>{3});
}

TEST(LatestJob, DestroyedWhileRunningDeliversNothing) {
  int delivered = 0;
  {
    auto job = std::make_unique<LatestJob<int>>();
    job->start([] { return slowly(1, 100); }, [&](int) { ++delivered; });
  }
  QTest::qWait(300);
  EXPECT_EQ(delivered, 0);
}

}  // namespace
}  // namespace opevo::ui
