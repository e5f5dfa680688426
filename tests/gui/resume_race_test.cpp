#include <gtest/gtest.h>

#include <QTemporaryDir>
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backends/stored_run.h"
#include "common/error.h"
#include "gui_test_support.h"
#include "io/replay_dataset.h"
#include "store/store.h"
#include "ui/controller/engine_controller.h"
#include "ui/controller/race_data.h"
#include "ui/controller/resumed_race.h"

// Stored runs resumed through the window's engine controller, on a real SQLite store: a replay
// race stopped midway, then its runs resumed as the Runs page resumes them.
namespace opevo::ui {
namespace {

using test::waitUntil;

const std::string kDataset = OPEVO_DATASETS_DIR "/gemm/RTX_2080_Ti.json.gz";

class ResumeRaceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(m_dir.isValid());
    m_path = m_dir.filePath(QStringLiteral("runs.db")).toStdString();
    QObject::connect(&m_controller, &EngineController::updated, &m_controller,
                     [this](const EngineUpdatePtr& u) {
                       m_updates.push_back(u);
                       m_data.append(u->trials);
                       if (u->reference) m_data.setReference(*u->reference);
                       for (const auto& [algorithm, repeat] : u->runsEnded)
                         m_data.finishRun(algorithm, repeat);
                     });
  }

  // A race of `algorithms` x `repeats` on the replay, stopped once `stopAfter` trials are in.
  RaceSpec raceSpec(const std::vector<std::string>& algorithms, int repeats) {
    RaceSpec spec;
    spec.backend = "replay";
    spec.dataset = std::make_shared<const ReplayDataset>(loadReplayDataset(kDataset));
    for (const std::string& a : algorithms) spec.algorithms.push_back({a, {}});
    spec.repeats = repeats;
    spec.trials = 60;
    spec.paceMs = 5;
    spec.storePath = m_path;
    return spec;
  }
  void raceAndStop(RaceSpec spec, long long stopAfter) {
    RaceData::Info info;
    for (const AlgorithmChoice& a : spec.algorithms)
      info.algorithms << QString::fromStdString(a.name);
    info.repeats = spec.repeats;
    m_data.reset(info);
    ASSERT_TRUE(m_controller.start(std::move(spec)));
    ASSERT_TRUE(waitUntil([&] { return m_data.trialCount() >= stopAfter; }, 30000));
    m_controller.stop();
    ASSERT_TRUE(waitUntil([&] { return !m_controller.busy(); }, 30000));
  }
  // Resumes as the Runs page does: one algorithm named, no repeat given.
  void resume(RaceSpec spec, const RunRecord& run) {
    RaceData::Info info;
    info.algorithms << QString::fromStdString(run.algorithm);
    resume(std::move(spec), info);
  }
  void resume(RaceSpec spec, RaceData::Info info) {
    info.storePath = QString::fromStdString(m_path);
    m_data.reset(info);
    m_updates.clear();
    spec.storePath = m_path;
    ASSERT_TRUE(m_controller.start(std::move(spec)));
    ASSERT_TRUE(waitUntil([&] { return !m_controller.busy(); }, 60000));
  }

  QTemporaryDir m_dir;
  std::string m_path;
  EngineController m_controller;
  RaceData m_data;
  std::vector<EngineUpdatePtr> m_updates;
};

TEST_F(ResumeRaceTest, AResumedRunKeepsItsRepeatInTheTableCurveAndExport) {
  raceAndStop(raceSpec({"random"}, 3), 30);
  std::vector<RunRecord> runs = Store(m_path).runs();
  ASSERT_EQ(runs.size(), 3u);
  const auto third =
      std::find_if(runs.begin(), runs.end(), [](const RunRecord& r) { return r.raceRepeat == 2; });
  ASSERT_NE(third, runs.end());

  RaceSpec spec;
  spec.resumeRun = third->id;
  resume(spec, *third);
  ASSERT_EQ(m_data.trialCount(), 60);  // its stored trials, then the rest of its budget
  for (const TrialPoint& p : m_data.trials()) {
    EXPECT_EQ(p.repeat, 2) << "trial " << p.seq;
    // File > Export trials as CSV writes this record: 0-based, as `opevo compare` does.
    EXPECT_EQ(trialRecordOf(p, QStringLiteral("random"), QString()).repeat, 2);
  }
  EXPECT_EQ(m_data.curve(0, 2).trials, 60);
  EXPECT_TRUE(m_data.curve(0, 2).finished);
}

// History's whole race after a kill: every unfinished run goes on, together, each in its own
// place, to its own budget.
TEST_F(ResumeRaceTest, AWholeRaceResumesTogetherEachRunInItsPlace) {
  raceAndStop(raceSpec({"random", "opevo"}, 2), 40);
  const std::vector<RunRecord> runs = Store(m_path).runs();
  ASSERT_EQ(runs.size(), 4u);
  RaceSpec spec;
  spec.resumeRun = runs.front().id;
  for (std::size_t i = 1; i < runs.size(); ++i) spec.resumeWith.push_back(runs[i].id);
  const ResumedRace race = resumedRaceOf(runs);
  EXPECT_EQ(race.algorithms, QStringList({"random", "opevo"}));
  EXPECT_EQ(race.repeats, 2);
  RaceData::Info info;
  info.algorithms = race.algorithms;
  info.repeats = race.repeats;
  resume(spec, info);
  EXPECT_TRUE(m_updates.back()->progress.runsDone == 4) << m_updates.back()->progress.runsDone;
  Store store(m_path);
  for (const RunRecord& r : store.runs()) {
    EXPECT_EQ(r.status, RunStatus::Finished) << "run " << r.id;
    EXPECT_EQ(store.trials(r.id).size(), 60u) << "run " << r.id;
    const RunCurve& c = m_data.curve(r.raceAlgorithm, r.raceRepeat);
    EXPECT_EQ(c.run, r.id);
    EXPECT_EQ(c.trials, 60);
  }
}

// A shuffled race keeps its schedule and seed in the store, and resumed goes on shuffled: where
// several runs are furthest behind, which goes first changes from level to level. It went on
// round-robin, the same run first at every level, whatever the form had said.
TEST_F(ResumeRaceTest, AShuffledRaceResumesShuffled) {
  RaceSpec shuffled = raceSpec({"random"}, 4);
  shuffled.trials = 400;
  shuffled.schedule = Schedule::Shuffle;
  shuffled.seed = 5;
  raceAndStop(shuffled, 30);
  Store store(m_path);
  const std::vector<RunRecord> runs = store.runs();
  ASSERT_EQ(runs.size(), 4u);
  std::map<std::int64_t, int> count;  // each run's trials so far
  long long stoppedAt = 0;
  for (const RunRecord& r : runs) {
    EXPECT_EQ(r.raceSchedule, Schedule::Shuffle);
    EXPECT_EQ(r.raceScheduleSeed, 5u);
    const std::vector<TrialRow> trials = store.trials(r.id);
    count[r.id] = static_cast<int>(trials.size());
    for (const TrialRow& t : trials) stoppedAt = std::max(stoppedAt, t.order);
  }
  RaceSpec spec;
  spec.resumeRun = runs.front().id;
  for (std::size_t i = 1; i < runs.size(); ++i) spec.resumeWith.push_back(runs[i].id);
  RaceData::Info info;
  info.algorithms = resumedRaceOf(runs).algorithms;
  info.repeats = 4;
  resume(spec, info);

  // The resumed trials in the order they were measured, cut into each run's batches; the runs
  // that start a batch at the same trial count (the furthest behind, among which the schedule
  // picks), in the order they started it.
  std::vector<std::pair<long long, std::int64_t>> resumed;  // (order, run)
  for (const RunRecord& r : runs)
    for (const TrialRow& t : store.trials(r.id))
      if (t.order > stoppedAt) resumed.emplace_back(t.order, r.id);
  std::sort(resumed.begin(), resumed.end());
  ASSERT_GT(resumed.size(), 300u);
  std::map<int, std::vector<std::int64_t>> startersAt;  // trial count -> runs, in order
  std::int64_t previous = 0;
  for (const auto& [order, run] : resumed) {
    if (run != previous) startersAt[count[run]].push_back(run);
    previous = run;
    ++count[run];
  }
  // Round-robin takes the tied runs in one cyclic order at every level: each level's order is a
  // rotation of the runs by id. Under the shuffle some level's is not (each of 3 or 4 tied runs'
  // orders is drawn afresh; all rotations over these levels would be odds of 2^-20 or less).
  int levels = 0;
  bool notARotation = false;
  for (const auto& [level, starters] : startersAt) {
    if (starters.size() < 3) continue;
    ++levels;
    std::vector<std::int64_t> sorted = starters;
    std::sort(sorted.begin(), sorted.end());
    bool rotation = false;
    for (std::size_t k = 0; k < sorted.size() && !rotation; ++k) {
      std::vector<std::int64_t> rotated = sorted;
      std::rotate(rotated.begin(), rotated.begin() + static_cast<long>(k), rotated.end());
      rotation = rotated == starters;
    }
    notARotation = notARotation || !rotation;
  }
  EXPECT_GE(levels, 20);
  EXPECT_TRUE(notARotation) << "every one of " << levels << " levels went round-robin";
}

// Runs of two races are not one race: nothing is marked running, nothing measured.
TEST_F(ResumeRaceTest, RunsOfTwoRacesAreRefusedTogether) {
  raceAndStop(raceSpec({"random"}, 2), 10);
  raceAndStop(raceSpec({"random"}, 2), 10);
  Store store(m_path);
  const std::vector<RunRecord> runs = store.runs();
  ASSERT_EQ(runs.size(), 4u);
  ASSERT_NE(runs.front().raceId, runs.back().raceId);
  EXPECT_THROW(resumeStoredRace(store, {runs.front().id, runs.back().id}), InputError);
  EXPECT_NE(whyNotOneRace({runs.front(), runs.back()}), "");
  for (const RunRecord& r : store.runs()) EXPECT_NE(r.status, RunStatus::Running);
}

// A replay race's pace is stored with its runs and a resume keeps it: its resumed trials take
// 20 ms each, as its first did. Its time budget counts device time by the file, not the pace's
// time (at 20 ms a trial 60 s would have been some 3000 trials): the resume goes on from its
// stored trials' device time and ends on the trial at which all of them together reach 60 s.
TEST_F(ResumeRaceTest, AResumedReplayKeepsItsRacesPaceAndItsDeviceClock) {
  RaceSpec paced = raceSpec({"random"}, 1);
  paced.trials.reset();
  paced.seconds = 60.0;  // about 40 of the file's trials, at 1.5 s each
  paced.paceMs = 20;
  raceAndStop(paced, 10);
  const RunRecord run = Store(m_path).runs().front();
  EXPECT_EQ(replayPaceOf(run.operatorJson), 20) << run.operatorJson;
  ASSERT_EQ(run.status, RunStatus::Interrupted);
  const std::size_t before = Store(m_path).trials(run.id).size();
  RaceSpec spec;
  spec.resumeRun = run.id;
  resume(spec, run);
  const std::vector<TrialRow> trials = Store(m_path).trials(run.id);
  ASSERT_GT(trials.size(), before + 1);
  const double resumed = double(trials.size() - 1 - before);
  EXPECT_GE(trials.back().seconds - trials[before].seconds, resumed * 0.020 * 0.99)
      << trials[before].seconds << " -> " << trials.back().seconds;
  double ms = 0, beforeLast = 0;
  for (const TrialRow& t : trials) {
    beforeLast = ms;
    ms += t.compileMs + t.measureMs;
  }
  EXPECT_GE(ms / 1e3, 60.0);
  EXPECT_LT(beforeLast / 1e3, 60.0);
  EXPECT_EQ(Store(m_path).run(run.id)->endReason, EndReason::Time);
  // The window says the run's device time so far, from its stored trials on.
  ASSERT_TRUE(m_data.deviceSeconds(0, 0).has_value());
  EXPECT_NEAR(*m_data.deviceSeconds(0, 0), ms / 1e3, 1e-6);
}

// A resumed run is drawn against the library's timing stored with it, and the legend says so; a
// replay times no library, so the stored line stays as it was.
TEST_F(ResumeRaceTest, AResumeKeepsTheStoredReferenceAndSaysWhatItIs) {
  raceAndStop(raceSpec({"random"}, 1), 10);
  RunRecord run = Store(m_path).runs().front();
  Store(m_path).setRunReference(run.id, "OpenBLAS sgemm", 118.5);
  RaceSpec spec;
  spec.resumeRun = run.id;
  resume(spec, run);
  ASSERT_TRUE(m_data.info().reference.has_value());
  EXPECT_EQ(m_data.info().reference->speed, 118.5);
  EXPECT_EQ(m_data.info().reference->origin, QStringLiteral("stored with run %1").arg(run.id));
  run = *Store(m_path).run(run.id);
  ASSERT_TRUE(run.referenceSpeed.has_value());
  EXPECT_EQ(*run.referenceSpeed, 118.5);
}

}  // namespace
}  // namespace opevo::ui
