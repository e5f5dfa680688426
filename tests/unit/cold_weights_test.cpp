// Timing a kernel with its weights cold (TimingOptions::coldWeights), as a network's chain reads
// them: the eviction runs before every timed run and outside what is timed, loses no data, and
// the option reaches the worker.
#include <gtest/gtest.h>

#include <chrono>
#include <numeric>
#include <thread>
#include <vector>

#include "cpu/cache_eviction.h"
#include "cpu/cpu_runner.h"
#include "cpu/operator_buffers.h"
#include "net/network_session.h"
#include "ops/operator_json.h"
#include "worker/protocol.h"

namespace opevo::test {
namespace {

TEST(ColdWeights, EvictionRunsBeforeEachTimedRunAndIsNotTimed) {
  TimingOptions t;
  t.minTotalMs = 0;
  t.minRuns = 5;
  t.warmupRuns = 2;
  t.warmAfterIdle = false;  // the busy spell's warm-up has its own test (RunWatch)
  int runs = 0, evictions = 0;
  std::vector<int> runsAtEviction;
  const std::vector<double> times =
      timeRuns([&] { ++runs; }, t,
               [&] {
                 ++evictions;
                 runsAtEviction.push_back(runs);
                 std::this_thread::sleep_for(std::chrono::milliseconds(20));
               });
  ASSERT_EQ(times.size(), 5u);
  EXPECT_EQ(runs, 7);
  EXPECT_EQ(evictions, 5);
  // After the warm-ups, then once before each timed run.
  EXPECT_EQ(runsAtEviction, (std::vector<int>{2, 3, 4, 5, 6}));
  // An empty run is timed in microseconds; the 20 ms sleep before it must not be in its time.
  for (double ms : times) EXPECT_LT(ms, 10) << "the eviction was timed with the run";
}

TEST(ColdWeights, EvictionKeepsTheData) {
  std::vector<float> data(1 << 20);
  std::iota(data.begin(), data.end(), 0.5f);
  // Written just now, so the lines are dirty: evicting them must write them back, not drop them;
  // an unaligned start and an odd length cover partial lines at both ends.
  evictFromCaches(reinterpret_cast<const char*>(data.data()) + 3, data.size() * sizeof(float) - 7);
  evictFromCaches(data.data(), 0);
  evictFromCaches(nullptr, 64);
  for (std::size_t i = 0; i < data.size(); i += 4097)
    ASSERT_EQ(data[i], static_cast<float>(i) + 0.5f) << i;
  EXPECT_EQ(data.back(), static_cast<float>(data.size() - 1) + 0.5f);
}

// The options travel in the timing of a request (warm requests are as before), and a reference
// is timed with its weights and activations cold through the worker's request handler.
TEST(ColdWeights, TheWorkerTakesTheOption) {
  TimingOptions t;
  t.minTotalMs = 1;
  t.coldWeights = true;
  const nlohmann::json timing = timingToJson(t);
  EXPECT_EQ(timing.value("cold_weights", false), true);
  EXPECT_FALSE(timingToJson(TimingOptions{}).contains("cold_weights"));  // warm: as before
  EXPECT_FALSE(timingToJson(TimingOptions{}).contains("cold_activations"));
  t.coldActivations = true;
  const nlohmann::json both = timingToJson(t);
  EXPECT_EQ(both.value("cold_activations", false), true);
  // What the worker reads back.
  EXPECT_TRUE(timingFromJson(both).coldActivations);
  EXPECT_TRUE(timingFromJson(both).coldWeights);
  EXPECT_FALSE(timingFromJson(both).activationB);
  EXPECT_FALSE(timingFromJson(timingToJson(TimingOptions{})).coldActivations);
  TimingOptions keys = t;
  keys.activationB = true;
  EXPECT_TRUE(timingFromJson(timingToJson(keys)).activationB);

  OperatorSpec op;
  op.name = "mm";
  op.n = 64;
  op.m = 64;
  op.k = 64;
  bool quit = false;
  const nlohmann::json reply = handleWorkerRequest(
      {{"cmd", "reference"}, {"backend", "cpu"}, {"op", operatorToJson(op)}, {"timing", both}},
      quit);
  ASSERT_TRUE(reply.value("ok", false)) << reply.dump();
  const Measurement m = measurementFromJson(reply["measurement"]);
  EXPECT_EQ(m.status, TrialStatus::Ok) << m.message;
  EXPECT_GE(m.timesMs.size(), 3u);
}

// b is evicted as weights, or as an activation where it is one (attention's keys and values): a
// network's matmul of two activations has its second operand evicted with the first.
TEST(ColdWeights, TheSecondOperandIsEvictedAsWhatItIs) {
  TimingOptions t;
  t.coldWeights = true;
  EXPECT_TRUE(t.coldB());
  t.activationB = true;
  EXPECT_FALSE(t.coldB()) << "an activation is not evicted as weights";
  t.coldActivations = true;
  EXPECT_TRUE(t.coldB());
  t.coldWeights = false;
  EXPECT_TRUE(t.coldB());
  t.activationB = false;
  EXPECT_FALSE(t.coldB()) << "weights are not evicted as activations";
}

// A network's task is timed as its plan says: a convolution's weights with --weights, every
// task's activations with --activations, a matmul's second operand (an activation) with them.
TEST(ColdWeights, ANetworksTasksAreTimedAsThePlanSays) {
  net::NetworkTuningPlan plan;
  net::Task conv, matmul;
  conv.readsWeights = true;
  const TimingOptions c = net::taskMeasuringOptions({}, plan, conv).cpu.timing;
  EXPECT_TRUE(c.coldWeights);
  EXPECT_TRUE(c.coldActivations);
  EXPECT_FALSE(c.activationB);
  const TimingOptions m = net::taskMeasuringOptions({}, plan, matmul).cpu.timing;
  EXPECT_FALSE(m.coldWeights);
  EXPECT_TRUE(m.activationB);
  EXPECT_TRUE(m.coldB());
  plan.coldActivations = false;
  EXPECT_FALSE(net::taskMeasuringOptions({}, plan, matmul).cpu.timing.coldB());
  EXPECT_TRUE(net::taskMeasuringOptions({}, plan, conv).cpu.timing.coldB());
}

}  // namespace
}  // namespace opevo::test
