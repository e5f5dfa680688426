// timeSideBySide: a run's best kernels and the reference library timed in turns after it.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <functional>
#include <string>

#include "engine/measurement.h"

namespace opevo {
namespace {

// A measurer playing back scripted speeds, recording the order of its calls: K for the kernel,
// R for the reference. A speed of 0 is a failed measurement.
class ScriptedMeasurer final : public Measurer {
 public:
  std::deque<double> kernel, library;
  bool hasReference = true;
  std::string calls;
  std::function<void(int)> onReference;  // called with the reference call's number, from 1

  std::string label() const override { return "scripted"; }
  bool isReplay() const override { return false; }
  std::string speedUnit() const override { return "TFLOPS"; }
  std::vector<Measurement> measure(const std::vector<Config>& configs) override {
    calls += 'K';
    std::vector<Measurement> out;
    for (std::size_t i = 0; i < configs.size(); ++i) out.push_back(next(kernel));
    return out;
  }
  std::optional<Reference> reference() override {
    calls += 'R';
    if (onReference) onReference(static_cast<int>(std::count(calls.begin(), calls.end(), 'R')));
    if (!hasReference) return std::nullopt;
    return Reference{"the library", next(library)};
  }

 private:
  static Measurement next(std::deque<double>& speeds) {
    Measurement m;
    m.speed = speeds.front();
    m.status = m.speed > 0 ? TrialStatus::Ok : TrialStatus::Timeout;
    speeds.pop_front();
    return m;
  }
};

TEST(SideBySide, AlternatesAndTakesEachSidesMedian) {
  ScriptedMeasurer m;
  m.kernel = {1.0, 5.0, 2.0, 0.0, 3.0};   // one failed round: both of its timings are dropped
  m.library = {4.0, 2.0, 9.0, 7.0, 3.0};  // rounds kept: (1, 4), (5, 2), (2, 9), (3, 3)
  const auto s = timeSideBySide(m, {Config{{0}}}, 5, std::chrono::milliseconds(0));
  ASSERT_TRUE(s);
  EXPECT_EQ(m.calls, "KRKRKRKRKR");
  EXPECT_EQ(s->library, "the library");
  EXPECT_EQ(s->rounds, 4);
  EXPECT_DOUBLE_EQ(s->bestSpeed, 2.5);       // median of 1, 5, 2, 3
  EXPECT_DOUBLE_EQ(s->referenceSpeed, 3.5);  // median of 4, 2, 9, 3
  EXPECT_EQ(s->chosen, 0u);
  EXPECT_EQ(s->candidates, 1u);
}

// Three candidates: each round times every one, then the library. The run's best (first) had one
// lucky timing in the run; side by side the second is faster by median and is the one reported,
// with the library's median over the rounds that candidate succeeded in.
TEST(SideBySide, ReportsTheFastestCandidateByMedian) {
  ScriptedMeasurer m;
  m.kernel = {2.0, 3.0, 1.0,   // round 1: candidates 0, 1, 2
              2.0, 0.0, 1.0,   // round 2: candidate 1 fails
              2.0, 3.0, 1.0};  // round 3
  m.library = {4.0, 5.0, 6.0};
  const auto s =
      timeSideBySide(m, {Config{{0}}, Config{{1}}, Config{{2}}}, 3, std::chrono::milliseconds(0));
  ASSERT_TRUE(s);
  EXPECT_EQ(m.calls, "KKKRKKKRKKKR");
  EXPECT_EQ(s->candidates, 3u);
  EXPECT_EQ(s->chosen, 1u);
  EXPECT_EQ(s->rounds, 2);
  EXPECT_DOUBLE_EQ(s->bestSpeed, 3.0);
  EXPECT_DOUBLE_EQ(s->referenceSpeed, 5.0);  // median of rounds 1 and 3: 4 and 6
  EXPECT_EQ(s->speeds, (std::vector<double>{2.0, 3.0, 1.0}));
}

// Ctrl-C during the timing: the round in hand ends, and the rounds run so far are reported.
TEST(SideBySide, AStopEndsItAfterTheRoundInHand) {
  ScriptedMeasurer m;
  m.kernel = {1.0, 3.0, 5.0, 7.0, 9.0};
  m.library = {2.0, 2.0, 2.0, 2.0, 2.0};
  std::atomic<bool> stop{false};
  m.onReference = [&](int call) {
    if (call == 2) stop = true;  // pressed during the second round
  };
  const auto s = timeSideBySide(m, {Config{{0}}}, 5, std::chrono::milliseconds(0), &stop);
  ASSERT_TRUE(s);
  EXPECT_EQ(m.calls, "KRKR");
  EXPECT_TRUE(s->stopped);
  EXPECT_EQ(s->roundsRun, 2);
  EXPECT_EQ(s->rounds, 2);
  EXPECT_DOUBLE_EQ(s->bestSpeed, 2.0);  // median of 1 and 3
  // Stopped before the first round: nothing to report.
  ScriptedMeasurer early;
  early.kernel = {1.0};
  early.library = {2.0};
  EXPECT_FALSE(timeSideBySide(early, {Config{{0}}}, 3, std::chrono::milliseconds(0), &stop));
  EXPECT_EQ(early.calls, "");
  // Pressed during the last round: every round ran, and the stop is still reported.
  ScriptedMeasurer last;
  last.kernel = {1.0, 3.0};
  last.library = {2.0, 2.0};
  std::atomic<bool> late{false};
  last.onReference = [&](int call) {
    if (call == 2) late = true;
  };
  const auto lastRound =
      timeSideBySide(last, {Config{{0}}}, 2, std::chrono::milliseconds(0), &late);
  ASSERT_TRUE(lastRound);
  EXPECT_TRUE(lastRound->stopped);
  EXPECT_EQ(lastRound->roundsRun, 2);
  // Unstopped, every round asked for runs.
  ScriptedMeasurer full;
  full.kernel = {1.0, 1.0, 1.0};
  full.library = {2.0, 2.0, 2.0};
  const auto all = timeSideBySide(full, {Config{{0}}}, 3, std::chrono::milliseconds(0));
  ASSERT_TRUE(all);
  EXPECT_FALSE(all->stopped);
  EXPECT_EQ(all->roundsRun, 3);
}

TEST(SideBySide, NothingWithoutAReferenceOrASuccessfulRound) {
  ScriptedMeasurer none;
  none.kernel = {1.0, 1.0};
  none.hasReference = false;
  EXPECT_FALSE(timeSideBySide(none, {Config{{0}}}, 2, std::chrono::milliseconds(0)));
  EXPECT_EQ(none.calls, "KR");  // stops at the first round
  ScriptedMeasurer failing;
  failing.kernel = {0.0, 0.0};
  failing.library = {1.0, 1.0};
  EXPECT_FALSE(timeSideBySide(failing, {Config{{0}}}, 2, std::chrono::milliseconds(0)));
}

}  // namespace
}  // namespace opevo
