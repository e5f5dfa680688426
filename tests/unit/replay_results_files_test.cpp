// What compare and sweep write for a reader who has only the files: numbers that round-trip,
// where the figures come from, no fraction of an optimum that is not known, and the noise of
// a heat map's cells beside them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/race_summary.h"
#include "engine/sweep.h"
#include "io/heatmap_svg.h"
#include "io/trials_csv.h"

namespace opevo {
namespace {

namespace fs = std::filesystem;

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A fraction recomputed from trials.csv is exact: 6 digits made a run at the optimum read
// 1.0000034.
TEST(ReplayResultsFiles, TrialsCsvSpeedsRoundTrip) {
  TrialRecord t;
  t.measurement.speed = 11972.059020207564;
  t.bestSoFar = t.measurement.speed;
  t.measurement.medianMs = 0.0156;
  DeviceClock device;
  const std::string row = trialsCsvRow(t, device);
  EXPECT_TRUE(has(row, ",11972.059020207564,11972.059020207564,0.0156,")) << row;
  EXPECT_EQ(std::strtod(csvNumber(1.0 / 3).c_str(), nullptr), 1.0 / 3);
}

TEST(ReplayResultsFiles, NoFractionColumnWithoutAnOptimum) {
  const std::vector<SummaryRow> rows = {{"opevo", 50, 10232.0, 300.0, std::nullopt, 5}};
  const std::string md = summaryMarkdown(rows, "GFLOP/s");
  EXPECT_FALSE(has(md, "fraction of optimum")) << md;
  EXPECT_FALSE(has(md, "n/a")) << md;
  const std::vector<SummaryRow> known = {{"opevo", 50, 10232.0, 300.0, 0.855, 5}};
  EXPECT_TRUE(has(summaryMarkdown(known, "GFLOP/s"), "fraction of optimum"));
}

TEST(ReplayResultsFiles, SummaryJsonRowsSayWhereTheyComeFrom) {
  const fs::path path =
      fs::temp_directory_path() / ("opevo-summary-" + std::to_string(::getpid()) + ".json");
  SummaryProvenance p;
  p.measuredBy = "replay of x";
  p.speedUnit = "GFLOP/s";
  p.dataset = "mine/gemm_300.json";
  p.completeness = "sparse";
  p.seed = 7;
  p.repeats = 5;
  p.trialsPerRun = 50;
  p.schedule = "round-robin";
  p.trialsRun = 250;
  writeSummaryJson(path.string(), {{"opevo", 50, 10232.0, 300.0, std::nullopt, 5}}, p);
  std::ifstream in(path);
  const nlohmann::json rows = nlohmann::json::parse(in);
  fs::remove(path);
  ASSERT_EQ(rows.size(), 1u);
  const nlohmann::json& row = rows[0];
  EXPECT_EQ(row["dataset"], "mine/gemm_300.json");
  EXPECT_EQ(row["completeness"], "sparse");
  EXPECT_TRUE(row["optimum"].is_null());
  EXPECT_TRUE(row["mean_fraction_of_optimum"].is_null());
  EXPECT_EQ(row["seed"], 7);
  EXPECT_EQ(row["repeats"], 5);
  EXPECT_EQ(row["trials_per_run"], 50);
  EXPECT_EQ(row["schedule"], "round-robin");
  EXPECT_TRUE(row["batch"].is_null());
  EXPECT_EQ(row["trials_run"], 250);
  EXPECT_EQ(row["stopped_early"], false);
  EXPECT_EQ(row["version"], OPEVO_VERSION);
}

SweepPlan plan() {
  SweepPlan p;
  p.algorithm = "opevo";
  p.axes = {{"q", {"0.1", "0.5"}}};
  p.repeats = 10;
  p.seed = 3;
  p.budget.trials = 4;
  return p;
}

// Two cells, `repeats` runs each, every run's best after k trials given by best(cell, repeat).
std::vector<TrialRecord> trials(int repeats, double spread) {
  std::vector<TrialRecord> out;
  for (int r = 0; r < repeats; ++r)
    for (int cell = 0; cell < 2; ++cell)
      for (int k = 1; k <= 4; ++k) {
        TrialRecord t;
        t.run = r * 2 + cell + 1;
        t.repeat = r;
        t.trial = k;
        t.bestSoFar = 10 + cell * 0.1 + (r % 2 ? spread : -spread);
        out.push_back(t);
      }
  return out;
}

// A sweep stopped after 6 of 10 repeats says so on every line of sweep.csv, with its seed and
// dataset.
TEST(ReplayResultsFiles, SweepCsvSaysRepeatsSeedAndDataset) {
  const SweepPlan p = plan();
  SweepFacts facts{12.0, "GFLOP/s", 100};
  facts.dataset = "gemm/RTX_2080_Ti.json.gz";
  facts.completeness = "checked";
  const SweepResult result = sweepResult(p, trials(6, 0.5), 6, 4, facts);
  const std::string csv = sweepCsv(p, result.cells, facts, 6);
  EXPECT_TRUE(
      csv.starts_with("q,repeats,repeats_planned,seed,dataset,completeness,optimum,trials,"
                      "mean_best,std_best,mean_fraction_of_optimum,mean_device_seconds,"
                      "std_device_seconds,mean_device_seconds_to_best\n"))
      << csv;
  EXPECT_TRUE(has(csv, "\n0.1,6,10,3,gemm/RTX_2080_Ti.json.gz,checked,12,4,")) << csv;
}

// The title names the dataset; each cell shows its standard error, and a cell within noise of
// the best is marked, so a colour difference inside the noise is not read as an effect.
TEST(ReplayResultsFiles, HeatMapNamesItsDatasetAndShowsTheNoise) {
  const SweepPlan p = plan();
  SweepFacts facts{12.0, "GFLOP/s", 100};
  facts.dataset = "gemm/RTX_2080_Ti.json.gz";
  // Runs spread by +-0.5 around means 0.1 apart: the two cells are not told apart.
  const SweepResult noisy = sweepResult(p, trials(10, 0.5), 10, 4, facts);
  EXPECT_TRUE(has(noisy.map.title, "on gemm/RTX_2080_Ti.json.gz")) << noisy.map.title;
  ASSERT_TRUE(heatError(noisy.map, 0, 0).has_value());
  // The sample std of +-0.5 over 10 runs is 0.527; its standard error 0.167, over the optimum 12.
  EXPECT_NEAR(*heatError(noisy.map, 0, 0), 0.5270 / std::sqrt(10.0) / 12, 1e-4);
  EXPECT_TRUE(heatWithinNoise(noisy.map, 0, 0));
  const std::string svg = heatMapSvg(noisy.map);
  EXPECT_TRUE(has(svg, "\u00b10.014")) << svg;
  EXPECT_TRUE(has(svg, "class=\"within-noise\"")) << svg;
  EXPECT_TRUE(has(heatNoiseLegend(noisy.map), "1 other cell is within it of the best"));
  // With runs that agree, the difference is an effect: nothing is marked.
  const SweepResult clear = sweepResult(p, trials(10, 0.001), 10, 4, facts);
  EXPECT_FALSE(heatWithinNoise(clear.map, 0, 0));
  EXPECT_FALSE(has(heatMapSvg(clear.map), "class=\"within-noise\""));
}

}  // namespace
}  // namespace opevo
