#include "ui/handoff/thread_inbox.h"

#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QThread>
#include <atomic>
#include <map>
#include <thread>
#include <vector>

#include "gui_test_support.h"
#include "ui/controller/engine_worker.h"
#include "ui/controller/race_control.h"
#include "ui/handoff/run_on_pool.h"

namespace opevo::ui {
namespace {

TEST(ThreadInbox, RunsEveryThreadsCallsOnItsOwnThreadInTheOrderPosted) {
  ThreadInbox inbox;
  QThread* const gui = QThread::currentThread();
  constexpr int kThreads = 4;
  constexpr int kCalls = 200;
  std::map<int, std::vector<int>> seen;  // touched on the GUI thread only
  std::atomic<int> offThread{0};
  std::vector<std::thread> posters;
  for (int t = 0; t < kThreads; ++t)
    posters.emplace_back([&, t] {
      for (int i = 0; i < kCalls; ++i)
        inbox.post([&, t, i] {
          if (QThread::currentThread() != gui) ++offThread;
          seen[t].push_back(i);
        });
    });
  for (auto& poster : posters) poster.join();
  ASSERT_TRUE(test::waitUntil([&] {
    std::size_t total = 0;
    for (const auto& [t, calls] : seen) total += calls.size();
    return total == kThreads * kCalls;
  }));
  EXPECT_EQ(offThread.load(), 0);
  for (const auto& [t, calls] : seen) {
    ASSERT_EQ(calls.size(), static_cast<std::size_t>(kCalls)) << "thread " << t;
    for (int i = 0; i < kCalls; ++i) EXPECT_EQ(calls[i], i) << "thread " << t;
  }
}

TEST(ThreadInbox, RelaysASignalEmittedOnAnotherThreadWithItsArguments) {
  ThreadInbox inbox;
  RaceControl control;
  EngineWorker worker(control);  // its `updated` signal, emitted here from a plain thread
  std::vector<EngineUpdatePtr> received;
  bool onGuiThread = true;
  ThreadInbox::relay(&worker, &EngineWorker::updated, inbox, [&](const EngineUpdatePtr& update) {
    onGuiThread = onGuiThread && QThread::currentThread() == qApp->thread();
    received.push_back(update);
  });
  std::vector<EngineUpdatePtr> sent{std::make_shared<const EngineUpdate>(),
                                    std::make_shared<const EngineUpdate>()};
  std::thread([&] {
    for (const auto& update : sent) emit worker.updated(update);
  }).join();
  EXPECT_TRUE(received.empty());  // nothing runs until the GUI thread's loop does
  ASSERT_TRUE(test::waitUntil([&] { return received.size() == 2; }));
  EXPECT_EQ(received, sent);  // the same snapshots, in order
  EXPECT_TRUE(onGuiThread);
}

TEST(RunOnPool, RunsEveryPieceOfWorkOffTheCallingThread) {
  constexpr int kWork = 64;
  std::atomic<int> done{0};
  std::atomic<int> onCaller{0};
  const auto caller = std::this_thread::get_id();
  for (int i = 0; i < kWork; ++i)
    runOnPool([&] {
      if (std::this_thread::get_id() == caller) ++onCaller;
      ++done;
    });
  ASSERT_TRUE(test::waitUntil([&] { return done.load() == kWork; }));
  EXPECT_EQ(onCaller.load(), 0);
}

}  // namespace
}  // namespace opevo::ui
