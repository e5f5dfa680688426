#include "net/task_scheduler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "common/error.h"

namespace opevo::net {
namespace {

GradientSettings greedy() {
  GradientSettings s;
  s.epsilon = 0;
  return s;
}

// Gives task i the unit the scheduler chose and records a latency, checking the choice.
void feed(TaskScheduler& s, std::size_t expected, std::optional<double> latency) {
  const std::optional<std::size_t> chosen = s.next();
  ASSERT_TRUE(chosen.has_value());
  ASSERT_EQ(*chosen, expected);
  s.record(*chosen, latency);
}

TEST(TaskScheduler, RoundRobinCyclesAndSkipsExhaustedTasks) {
  TaskScheduler s({{}, {}, {}}, SchedulerKind::RoundRobin, 1);
  for (std::size_t expected : {0, 1, 2, 0, 1}) feed(s, expected, 1.0);
  s.exhaust(2);
  for (std::size_t expected : {0, 1, 0}) feed(s, expected, 1.0);
  s.exhaust(0);
  s.exhaust(1);
  EXPECT_FALSE(s.next().has_value());
}

TEST(TaskScheduler, TopologicalStaysOnTheFirstOpenTaskByPositionWithNoWarmUp) {
  // Task 1's kernel runs first (a shortcut convolution before the block's fused add), then 2,
  // then 0; ties go to the lower index. No task gets a unit before the one before it is closed.
  SchedulerTask t0{1, 1e9, 0, 7}, t1{1, 1e9, 0, 3}, t2{1, 1e9, 0, 5}, t3{1, 1e9, 0, 5};
  TaskScheduler s({t0, t1, t2, t3}, SchedulerKind::Topological, 1, greedy());
  for (std::size_t expected : {1, 1, 1}) feed(s, expected, 1e-3);
  s.exhaust(1);
  for (std::size_t expected : {2, 2}) feed(s, expected, std::nullopt);
  s.exhaust(2);
  feed(s, 3, 1e-3);
  s.exhaust(3);
  feed(s, 0, 1e-3);
  s.exhaust(0);
  EXPECT_FALSE(s.next().has_value());
  EXPECT_EQ(s.units(2), 2u);
  EXPECT_EQ(parseSchedulerKind("topological"), SchedulerKind::Topological);
  EXPECT_EQ(schedulerKindName(SchedulerKind::Topological), "topological");
}

TEST(TaskScheduler, GradientWarmsUpWithEveryTaskOnceInOrder) {
  TaskScheduler s({{1, 1e9, 0}, {5, 1e9, 0}, {1, 1e9, 1}}, SchedulerKind::Gradient, 1, greedy());
  feed(s, 0, 1e-3);
  feed(s, 1, 1e-3);
  feed(s, 2, 1e-3);
  EXPECT_DOUBLE_EQ(s.objective(), 7e-3);
}

TEST(TaskScheduler, ATaskWithoutAWorkingConfigurationComesFirst) {
  TaskScheduler s({{1, 1e9, 0}, {1, 1e9, 1}}, SchedulerKind::Gradient, 1, greedy());
  feed(s, 0, 1e-3);
  feed(s, 1, std::nullopt);  // every configuration of its first unit failed
  EXPECT_TRUE(std::isinf(s.objective()));
  EXPECT_EQ(s.gradient(1), -std::numeric_limits<double>::infinity());
  feed(s, 1, 2e-3);
  EXPECT_DOUBLE_EQ(s.objective(), 3e-3);
}

// Two tasks of different kinds (no similar-task guess): the one still improving fast gets the unit
// although the other is slower, because its measured slope is steeper.
TEST(TaskScheduler, TheMeasuredSlopeDecidesBetweenUnrelatedTasks) {
  TaskScheduler s({{1, 1e9, 0}, {1, 1e9, 1}}, SchedulerKind::Gradient, 1, greedy());
  feed(s, 0, 100);
  feed(s, 1, 30);
  // Fill the histories by hand: 100, 50, 20 against 30, 30, 30.
  s.record(0, 50);
  s.record(0, 20);
  s.record(1, 30);
  s.record(1, 30);
  // A: 0.2 * (20 - 100) / 3 + 0.8 * (-20 / 3); B: 0.2 * 0 + 0.8 * (-30 / 3).
  EXPECT_NEAR(s.gradient(0), -0.2 * 80.0 / 3 - 0.8 * 20.0 / 3, 1e-9);
  EXPECT_NEAR(s.gradient(1), -8.0, 1e-9);
  EXPECT_EQ(s.next(), 0u);
}

// Same kind, same work: a task 4x slower than its similar task is expected to catch up (beta = 2
// of the fast task's speed), so it gets the unit even though it has stopped improving.
TEST(TaskScheduler, ATaskFarSlowerThanASimilarOneIsChosen) {
  TaskScheduler s({{1, 1e9, 0}, {1, 1e9, 0}}, SchedulerKind::Gradient, 1, greedy());
  feed(s, 0, 10);
  feed(s, 1, 10);
  s.record(0, 5);
  s.record(0, 2.5);
  s.record(1, 10);
  s.record(1, 10);
  // B's guess: min(-10 / 3, 2 * 1e9 / (1e9 / 2.5) - 10) = -5.
  EXPECT_NEAR(s.gradient(1), 0.8 * -5.0, 1e-9);
  EXPECT_NEAR(s.gradient(0), 0.2 * (2.5 - 10) / 3 + 0.8 * (-2.5 / 3), 1e-9);
  EXPECT_EQ(s.next(), 1u);
}

// Same kind, different sizes: a layer with a quarter of the outputs is not expected to reach the
// large one's speed (GradientSettings::similarSize), so a slow task of another kind that can
// still gain gets the unit; Ansor's whole-group similarity (similarSize 0) keeps feeding the
// small layer, as it fed AlexNet's conv4 on the H200.
TEST(TaskScheduler, ASmallLayerIsNotHeldToALargeOnesSpeed) {
  // {weight, flops, group, position, outputs}
  const SchedulerTask large{1, 4e9, 0, 0, 4e5}, small{1, 1e9, 0, 1, 1e5}, other{1, 1e9, 1, 2, 1e3};
  auto chosen = [&](double similarSize) {
    GradientSettings settings = greedy();
    settings.similarSize = similarSize;
    TaskScheduler s({large, small, other}, SchedulerKind::Gradient, 1, settings);
    feed(s, 0, 1);
    feed(s, 1, 2);
    feed(s, 2, 2);
    // Flat histories: 10 units of the large and small layers, 4 of the other task.
    for (int u = 1; u < 10; ++u) s.record(0, 1), s.record(1, 2);
    for (int u = 1; u < 4; ++u) s.record(2, 2);
    return std::make_pair(s.next(), s.gradient(1));
  };
  // Similar by size: the small layer's guess is its own average gain, -2 / 10; the other task's
  // -2 / 4 is steeper.
  const auto [bySize, smallBySize] = chosen(2);
  EXPECT_EQ(bySize, 2u);
  EXPECT_NEAR(smallBySize, 0.8 * (-2.0 / 10), 1e-12);
  // Ansor: min(-2 / 10, 2 * 1e9 / 4e9 - 2) = -1.5, the steepest.
  const auto [wholeGroup, smallInGroup] = chosen(0);
  EXPECT_EQ(wholeGroup, 1u);
  EXPECT_NEAR(smallInGroup, 0.8 * -1.5, 1e-12);
  // Within the factor, sizes are similar: twice the outputs still count.
  GradientSettings settings = greedy();
  TaskScheduler s({{1, 2e9, 0, 0, 2e5}, small}, SchedulerKind::Gradient, 1, settings);
  feed(s, 0, 0.5);
  feed(s, 1, 2);
  for (int u = 1; u < 10; ++u) s.record(1, 2);
  // min(-2 / 10, 2 * 1e9 / 4e9 - 2) = -1.5
  EXPECT_NEAR(s.gradient(1), 0.8 * -1.5, 1e-12);
}

TEST(TaskScheduler, WeightScalesTheGradient) {
  TaskScheduler s({{1, 1e9, 0}, {3, 1e9, 1}}, SchedulerKind::Gradient, 1, greedy());
  feed(s, 0, 1e-3);
  feed(s, 1, 1e-3);
  EXPECT_NEAR(s.gradient(1), 3 * s.gradient(0), 1e-15);
  EXPECT_EQ(s.next(), 1u);  // the same latency counts three times in the network
}

TEST(TaskScheduler, RecordKeepsTheBestSoFar) {
  TaskScheduler s({{}}, SchedulerKind::Gradient, 1, greedy());
  s.record(0, 2.0);
  s.record(0, 3.0);  // a unit that found nothing better
  s.record(0, std::nullopt);
  s.record(0, 1.5);
  EXPECT_EQ(s.history(0), (std::vector<double>{2.0, 2.0, 2.0, 1.5}));
}

TEST(TaskScheduler, EpsilonSpreadsChoicesAndASeedReplaysThem) {
  auto run = [](std::uint64_t seed) {
    GradientSettings always;
    always.epsilon = 1;
    TaskScheduler s({{}, {}, {}, {}}, SchedulerKind::Gradient, seed, always);
    std::vector<std::size_t> picks;
    for (int i = 0; i < 40; ++i) {
      const std::size_t t = *s.next();
      picks.push_back(t);
      s.record(t, 1.0);
    }
    return picks;
  };
  const auto a = run(7);
  EXPECT_EQ(a, run(7));
  EXPECT_NE(a, run(8));
  EXPECT_EQ(std::set<std::size_t>(a.begin() + 4, a.end()).size(), 4u);
}

TEST(TaskScheduler, ExhaustedTasksAreNeverChosen) {
  TaskScheduler s({{1, 1e9, 0}, {9, 1e9, 0}}, SchedulerKind::Gradient, 1, greedy());
  feed(s, 0, 1.0);
  s.exhaust(1);
  for (int i = 0; i < 5; ++i) feed(s, 0, 1.0);
  s.exhaust(0);
  EXPECT_FALSE(s.next().has_value());
}

TEST(TaskScheduler, NamesAndBadSettingsAreRefusedClearly) {
  EXPECT_EQ(parseSchedulerKind("round-robin"), SchedulerKind::RoundRobin);
  EXPECT_EQ(schedulerKindName(SchedulerKind::Gradient), "gradient");
  try {
    parseSchedulerKind("greedy");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("gradient, round-robin"), std::string::npos);
  }
  EXPECT_THROW(TaskScheduler({{0, 1, 0}}, SchedulerKind::Gradient, 1), InputError);
  GradientSettings bad;
  bad.window = 0;
  EXPECT_THROW(TaskScheduler({{}}, SchedulerKind::Gradient, 1, bad), InputError);
}

}  // namespace
}  // namespace opevo::net
