// trials.csv is one format: compare's stream, `opevo export` and the window's save write the same
// columns through one function. compare's stream once had a device_seconds column the others
// lacked, and no file said which cluster agent measured a trial. sweep.csv says what each cell's
// runs cost the device, as compare's summary does of a race's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "csv_fields.h"
#include "engine/sweep.h"
#include "engine/trials_csv_writer.h"
#include "io/trials_csv.h"
#include "temp_dir.h"

namespace opevo {
namespace {

using test::csvFields;

std::vector<std::string> linesOf(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TrialRecord trial(std::int64_t run, int seq, double compileMs, double measureMs,
                  const std::string& agent) {
  TrialRecord t;
  t.run = run;
  t.trial = seq;
  t.algorithm = run == 1 ? "opevo" : "random";
  t.config = "x=" + std::to_string(seq);
  t.measurement.compileMs = compileMs;
  t.measurement.measureMs = measureMs;
  t.measurement.speed = 10.0 * seq;
  t.measurement.agent = agent;
  t.space = run == 1 ? "loop" : "joint";
  return t;
}

// Two runs interleaved, in two spaces, measured by this machine and by two agents (one name needing
// quotes), one trial answered from stored trials.
std::vector<TrialRecord> raceTrials() {
  std::vector<TrialRecord> trials = {
      trial(1, 1, 1200, 300, ""),           trial(2, 1, 800, 450.5, "node2"),
      trial(1, 2, 1000, 250, "node1-gpu0"), trial(2, 2, 900, 100, "rack 3, node 7"),
      trial(1, 3, 1100, 200, ""),
  };
  trials[4].measurement.reused = true;  // took no time here: it adds nothing
  for (std::size_t i = 0; i < trials.size(); ++i) trials[i].order = static_cast<long long>(i + 1);
  return trials;
}

TEST(TrialsCsvColumns, EachRowSaysItsRunsDeviceTimeWhichAgentMeasuredItAndItsSpace) {
  const std::vector<std::string> lines = linesOf(trialsCsv(raceTrials()));
  ASSERT_EQ(lines.size(), 6u);
  const std::vector<std::string> header = csvFields(lines[0]);
  ASSERT_GE(header.size(), 4u);
  // The columns every trials.csv had keep their places; the new ones come last.
  EXPECT_EQ(header[header.size() - 4], "message");
  EXPECT_EQ(header[header.size() - 3], "device_seconds");
  EXPECT_EQ(header[header.size() - 2], "agent");
  EXPECT_EQ(header.back(), "space");
  // Each run's device time so far: its trials' build and measurement added up, in seconds.
  const std::vector<double> device = {
      (1200 + 300) / 1e3, (800 + 450.5) / 1e3, (1200 + 300 + 1000 + 250) / 1e3,
      (800 + 450.5 + 900 + 100) / 1e3, (1200 + 300 + 1000 + 250) / 1e3};
  const std::vector<std::string> agents = {"", "node2", "node1-gpu0", "rack 3, node 7", ""};
  for (std::size_t i = 0; i < device.size(); ++i) {
    const std::vector<std::string> row = csvFields(lines[i + 1]);
    ASSERT_EQ(row.size(), header.size()) << lines[i + 1];
    EXPECT_EQ(std::strtod(row[header.size() - 3].c_str(), nullptr), device[i]) << lines[i + 1];
    EXPECT_EQ(row[header.size() - 2], agents[i]) << lines[i + 1];
    EXPECT_EQ(row.back(), i % 2 == 0 ? "loop" : "joint") << lines[i + 1];
  }
}

// compare's stream (TrialsCsvWriter, a row flushed per trial) writes what `opevo export` and the
// window write of the same trials (trialsCsv), byte for byte: the engine's records do not know
// their space, the stream names it.
TEST(TrialsCsvColumns, CompareStreamsWhatTheOtherFilesHold) {
  const test::TempDir dir;
  std::vector<TrialRecord> trials = raceTrials();
  {
    TrialsCsvWriter writer(dir.file("race/trials.csv"), "replay");
    for (const TrialRecord& t : trials) {
      TrialEvent event;
      event.record = t;
      event.record.space.clear();
      writer.trialMeasured(event, EngineProgress{});
    }
  }
  for (TrialRecord& t : trials) t.space = "replay";
  std::ifstream in(dir.file("race/trials.csv"));
  const std::string streamed{std::istreambuf_iterator<char>(in), {}};
  EXPECT_EQ(streamed, trialsCsv(trials));
}

// sweep.csv: each cell's mean device time over its runs, its standard deviation, and the mean
// device time until each run found its best, as compare's summary.json names them.
TEST(TrialsCsvColumns, SweepCsvSaysWhatEachCellsRunsCostTheDevice) {
  SweepPlan plan;
  plan.algorithm = "opevo";
  plan.axes = {{"q", {"0.1", "0.5"}}};
  plan.repeats = 2;
  plan.seed = 3;
  plan.budget.trials = 3;
  // Run r of repeat p is cell (r - 1) % 2; each trial costs (cell + 1) * (repeat + 1) * k
  // seconds, and the best is found at trial 2.
  std::vector<TrialRecord> trials;
  for (int repeat = 0; repeat < 2; ++repeat)
    for (int cell = 0; cell < 2; ++cell)
      for (int k = 1; k <= 3; ++k) {
        TrialRecord t;
        t.run = repeat * 2 + cell + 1;
        t.repeat = repeat;
        t.trial = k;
        t.measurement.compileMs = 250.0 * (cell + 1) * (repeat + 1) * k;
        t.measurement.measureMs = 750.0 * (cell + 1) * (repeat + 1) * k;
        t.bestSoFar = k >= 2 ? 5.0 + cell : 1.0;
        trials.push_back(t);
      }
  const SweepFacts facts{std::nullopt, "GFLOP/s", 100};
  const SweepResult result = sweepResult(plan, trials, 2, 3, facts);
  const std::vector<std::string> lines = linesOf(sweepCsv(plan, result.cells, facts, 2));
  const std::vector<std::string> header = csvFields(lines.at(0));
  const auto column = [&](const std::string& name) {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return i;
    ADD_FAILURE() << "no column " << name << " in " << lines[0];
    return header.size();
  };
  const std::size_t mean = column("mean_device_seconds"), sd = column("std_device_seconds"),
                    toBest = column("mean_device_seconds_to_best");
  ASSERT_LT(std::max({mean, sd, toBest}), header.size());
  // A run of cell c in repeat p spends (c + 1)(p + 1)(1 + 2 + 3) seconds, and (c + 1)(p + 1)(1 + 2)
  // until its best.
  std::map<std::string, std::vector<double>> expected;  // by q: mean, sd, to best
  for (int cell = 0; cell < 2; ++cell) {
    const double a = (cell + 1) * 6.0, b = (cell + 1) * 12.0;
    const double m = (a + b) / 2;
    const double s = std::sqrt(((a - m) * (a - m) + (b - m) * (b - m)) / 1);
    expected[plan.axes[0].values[static_cast<std::size_t>(cell)]] = {m, s,
                                                                     (cell + 1) * (3.0 + 6.0) / 2};
  }
  int checked = 0;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const std::vector<std::string> row = csvFields(lines[i]);
    ASSERT_EQ(row.size(), header.size()) << lines[i];
    if (row[column("trials")] != "3") continue;
    const std::vector<double>& want = expected.at(row[0]);
    EXPECT_DOUBLE_EQ(std::strtod(row[mean].c_str(), nullptr), want[0]) << lines[i];
    EXPECT_DOUBLE_EQ(std::strtod(row[sd].c_str(), nullptr), want[1]) << lines[i];
    EXPECT_DOUBLE_EQ(std::strtod(row[toBest].c_str(), nullptr), want[2]) << lines[i];
    ++checked;
  }
  EXPECT_EQ(checked, 2);
}

}  // namespace
}  // namespace opevo
